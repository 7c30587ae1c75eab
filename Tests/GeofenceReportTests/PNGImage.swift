import CZlib
import Foundation

/// An 8-bit RGB or RGBA PNG decoded to pixels: just enough of the format to read Chromium's
/// screenshots and count what is on them.
struct PNGImage {
    let width: Int
    let height: Int
    /// RGB triples, row by row.
    let rgb: [UInt8]

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, Array(bytes[0..<8]) == [137, 80, 78, 71, 13, 10, 26, 10] else {
            throw HarnessError("not a PNG")
        }
        func be32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        var offset = 8
        var width = 0
        var height = 0
        var channels = 0
        var compressed: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = offset + 8
            guard body + length <= bytes.count else { throw HarnessError("truncated PNG chunk \(type)") }
            switch type {
            case "IHDR":
                width = be32(body)
                height = be32(body + 4)
                guard bytes[body + 8] == 8, bytes[body + 12] == 0 else {
                    throw HarnessError("only 8-bit, non-interlaced PNGs are read here")
                }
                switch bytes[body + 9] {
                case 2: channels = 3
                case 6: channels = 4
                default: throw HarnessError("colour type \(bytes[body + 9]) not read here")
                }
            case "IDAT": compressed += bytes[body..<(body + length)]
            default: break
            }
            offset = body + length + 4
        }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &rawLength, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else {
            throw HarnessError("PNG data did not inflate: \(status)")
        }
        // Undo the per-row filters (PNG specification, section 9).
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for index in 0..<stride {
                let x = Int(raw[source + index])
                let a = index >= channels ? Int(pixels[target + index - channels]) : 0
                let b = row > 0 ? Int(pixels[target - stride + index]) : 0
                let c = row > 0 && index >= channels ? Int(pixels[target - stride + index - channels]) : 0
                let value: Int
                switch filter {
                case 0: value = x
                case 1: value = x + a
                case 2: value = x + b
                case 3: value = x + (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    value = x + (pa <= pb && pa <= pc ? a : (pb <= pc ? b : c))
                default: throw HarnessError("unknown PNG filter \(filter)")
                }
                pixels[target + index] = UInt8(value & 0xFF)
            }
        }
        var rgb = [UInt8]()
        rgb.reserveCapacity(width * height * 3)
        for pixel in 0..<(width * height) {
            rgb += pixels[(pixel * channels)..<(pixel * channels + 3)]
        }
        (self.width, self.height, self.rgb) = (width, height, rgb)
    }

    /// How many different colours the image has.
    var distinctColours: Int {
        var seen = Set<UInt32>()
        for pixel in 0..<(width * height) {
            seen.insert(
                UInt32(rgb[pixel * 3]) << 16 | UInt32(rgb[pixel * 3 + 1]) << 8 | UInt32(rgb[pixel * 3 + 2]))
        }
        return seen.count
    }

    /// How many pixels are within `tolerance` of a colour on every channel.
    func count(near colour: (UInt8, UInt8, UInt8), tolerance: Int = 12) -> Int {
        var count = 0
        for pixel in 0..<(width * height) {
            if abs(Int(rgb[pixel * 3]) - Int(colour.0)) <= tolerance
                && abs(Int(rgb[pixel * 3 + 1]) - Int(colour.1)) <= tolerance
                && abs(Int(rgb[pixel * 3 + 2]) - Int(colour.2)) <= tolerance
            {
                count += 1
            }
        }
        return count
    }
}
