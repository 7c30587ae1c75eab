import Foundation
/// Which column holds what, found in a CSV header line.
struct CSVHeader: Sendable {
    /// One of the values a CSV row can give.
    enum Column: CaseIterable {
        case latitude, longitude, time, accuracy, altitude, speed, course, device

        /// Header names that mean this column, normalised (lower case, without spaces,
        /// underscores, hyphens and dots), the preferred one first.
        var aliases: [String] {
            switch self {
            case .latitude: ["latitude", "lat"]
            case .longitude: ["longitude", "lon", "lng", "long"]
            case .time: ["time", "timestamp", "trackedat", "datetime", "date", "utc"]
            case .accuracy: ["accuracy", "horizontalaccuracy", "acc", "hacc"]
            case .altitude: ["altitude", "alt", "elevation", "ele"]
            case .speed: ["speed"]
            case .course: ["course", "bearing", "heading"]
            case .device: ["device", "deviceid", "userid", "tid"]
            }
        }
    }

    let delimiter: UInt8
    /// The index of each column found.
    let indices: [Column: Int]
    /// Each column's name as written in the header, for error messages.
    let names: [String]

    /// The header in this line, or `nil` if the line does not name latitude, longitude and time.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        let delimiter = CSVHeader.detectDelimiter(bytes, start, end)
        guard let cells = CSVCells.split(bytes, start, end, delimiter: delimiter) else { return nil }
        let names = cells.map { $0.text(bytes) }
        let normalised = names.map(CSVHeader.normalise)
        var indices: [Column: Int] = [:]
        for column in Column.allCases {
            for alias in column.aliases {
                if let index = normalised.firstIndex(of: alias) {
                    indices[column] = index
                    break
                }
            }
        }
        guard indices[.latitude] != nil, indices[.longitude] != nil, indices[.time] != nil else { return nil }
        self.delimiter = delimiter
        self.indices = indices
        self.names = names
    }

    /// The separator that occurs most often outside quotes; ties go to tab, then `;`, then `,`
    /// (a tab or semicolon is rarely inside a value, a comma often is).
    private static func detectDelimiter(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
        -> UInt8
    {
        var counts: [UInt8: Int] = [UInt8(ascii: "\t"): 0, UInt8(ascii: ";"): 0, UInt8(ascii: ","): 0]
        var quoted = false
        for index in start..<end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, let count = counts[byte] { counts[byte] = count + 1 }
        }
        var best = UInt8(ascii: ",")
        for candidate in [UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: ",")].reversed()
        where counts[candidate, default: 0] >= counts[best, default: 0] {
            best = candidate
        }
        return best
    }

    private static func normalise(_ name: String) -> String {
        String(
            name.lowercased().unicodeScalars.filter {
                !" _-.\u{FEFF}".unicodeScalars.contains($0)
            })
    }
}

/// One cell's place in a CSV line.
struct CSVCell {
    var start: Int
    var end: Int
    /// Whether the cell was in quotes (and so may hold doubled quotes).
    var quoted: Bool

    /// The cell's text, quotes resolved.
    func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        return quoted ? raw.replacingOccurrences(of: "\"\"", with: "\"") : raw
    }
}

/// Splits CSV lines (RFC 4180 quoting within one line; a quoted value cannot span lines here,
/// since lines are read one at a time).
enum CSVCells {
    /// The cells of `bytes[start..<end]`, trimmed of spaces and quotes; `nil` if a quote is
    /// left open.
    static func split(
        _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, delimiter: UInt8
    ) -> [CSVCell]? {
        var cells: [CSVCell] = []
        var i = start
        while true {
            while i < end, bytes[i] == UInt8(ascii: " ") { i += 1 }
            if i < end, bytes[i] == UInt8(ascii: "\"") {
                let cellStart = i + 1
                i += 1
                var closed = false
                while i < end {
                    if bytes[i] == UInt8(ascii: "\"") {
                        if i + 1 < end, bytes[i + 1] == UInt8(ascii: "\"") {
                            i += 2
                            continue
                        }
                        closed = true
                        break
                    }
                    i += 1
                }
                guard closed else { return nil }
                cells.append(CSVCell(start: cellStart, end: i, quoted: true))
                i += 1
                while i < end, bytes[i] != delimiter { i += 1 }
            } else {
                let cellStart = i
                while i < end, bytes[i] != delimiter { i += 1 }
                var cellEnd = i
                while cellEnd > cellStart, bytes[cellEnd - 1] == UInt8(ascii: " ") { cellEnd -= 1 }
                cells.append(CSVCell(start: cellStart, end: cellEnd, quoted: false))
            }
            guard i < end else { return cells }
            i += 1  // past the delimiter
        }
    }
}
