/// Finds the name of an XML document's root element in its first bytes, to tell GPX from KML
/// (and name anything else) before a parser reads the whole document.
enum XMLRootName {
    /// The root element's name without a namespace prefix (`gpx`, `kml`), or `nil` when the
    /// prefix ends first or is not XML.
    static func find(in prefix: UnsafeBufferPointer<UInt8>) -> String? {
        var i = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { i = 3 }
        func starts(with text: String, at index: Int) -> Bool {
            let bytes = Array(text.utf8)
            guard index + bytes.count <= prefix.count else { return false }
            return (0..<bytes.count).allSatisfy { prefix[index + $0] == bytes[$0] }
        }
        func skip(past text: String) -> Bool {
            let bytes = Array(text.utf8)
            while i + bytes.count <= prefix.count {
                if starts(with: text, at: i) {
                    i += bytes.count
                    return true
                }
                i += 1
            }
            return false
        }
        while i < prefix.count {
            if LineBytes.isSpace(prefix[i]) {
                i += 1
                continue
            }
            guard prefix[i] == UInt8(ascii: "<") else { return nil }
            if starts(with: "<?", at: i) {
                guard skip(past: "?>") else { return nil }
            } else if starts(with: "<!--", at: i) {
                guard skip(past: "-->") else { return nil }
            } else if starts(with: "<!", at: i) {
                guard skip(past: ">") else { return nil }
            } else {
                var end = i + 1
                while end < prefix.count, !LineBytes.isSpace(prefix[end]), prefix[end] != UInt8(ascii: ">"),
                    prefix[end] != UInt8(ascii: "/")
                {
                    end += 1
                }
                guard end < prefix.count, end > i + 1 else { return nil }
                let name = String(
                    decoding: UnsafeBufferPointer(rebasing: prefix[(i + 1)..<end]), as: UTF8.self)
                return name.split(separator: ":").last.map(String.init)
            }
        }
        return nil
    }
}
