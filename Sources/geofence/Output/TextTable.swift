/// A table for a person: each column as wide as its widest cell, two spaces between columns.
///
/// Listings that print when they are complete (`events`, `commutes`, `actions`) use it, so no
/// column is cut or padded far beyond its content.
struct TextTable {
    /// The column titles; the first row printed.
    var columns: [String]
    /// The cells, one array per row, as many as there are columns.
    var rows: [[String]] = []

    /// The header and the rows, padded; the last column is not padded.
    func lines() -> [String] {
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                if index == cells.count - 1 {
                    text += cell
                } else {
                    text += cell + String(repeating: " ", count: max(0, widths[index] - cell.count) + 2)
                }
            }
            return text
        }
        return [line(columns)] + rows.map(line)
    }
}
