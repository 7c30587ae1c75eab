import CSodium
import Foundation

/// The secrets OwnTracks payloads are encrypted with, and the decryption the apps expect:
/// libsodium's secretbox (XSalsa20-Poly1305) with the secret's UTF-8 bytes, up to 32, padded
/// with zero bytes to the 32-byte key, and `data` holding base64 of the 24-byte nonce followed by
/// the box (https://owntracks.org/booklet/features/encrypt/).
///
/// The file (`--owntracks-keys FILE`) has one secret a line: `USER/DEVICE=SECRET` for one device,
/// or a line without `=` (or `*=SECRET`) for every device without its own. Blank lines and lines
/// starting with `#` are skipped. Only this file touches libsodium.
struct OwnTracksKeys: Sendable {
    private var keys: [String: [UInt8]] = [:]
    private var fallback: [UInt8]?

    /// What became of a payload.
    enum Opened: Equatable {
        /// Not an encrypted payload: read it as it is.
        case plain
        /// The decrypted JSON.
        case decrypted([UInt8])
        /// Encrypted, and there is no key for its device.
        case noKey
        /// Encrypted, and it cannot be opened: the reason (a wrong key, a damaged payload).
        case failed(String)
    }

    private static let ready: Bool = sodium_init() >= 0

    /// The one warning a device without a key gets.
    static func keylessWarning(device: String) -> String {
        "OwnTracks payloads from \(device) are encrypted and no key opens them: they are skipped; give the device's secret with --owntracks-keys FILE (a USER/DEVICE=SECRET line)"
    }

    /// No keys at all: every encrypted payload is ``Opened/noKey``.
    init() {}

    /// Reads the keys from `text`; `source` names the file in errors.
    init(text: String, source: String) throws(OwnTracksKeyError) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            var device = "*"
            var secret = line
            if let equals = line.firstIndex(of: "=") {
                device = line[..<equals].trimmingCharacters(in: .whitespaces)
                secret = String(line[line.index(after: equals)...])
            }
            let bytes = Array(secret.utf8)
            guard !bytes.isEmpty, bytes.count <= 32 else {
                throw OwnTracksKeyError(
                    "\(source):\(index + 1): an OwnTracks secret has 1 to 32 bytes, this one \(bytes.count)")
            }
            let key = bytes + Array(repeating: 0, count: 32 - bytes.count)
            if device == "*" { fallback = key } else { keys[device] = key }
        }
        guard fallback != nil || !keys.isEmpty else {
            throw OwnTracksKeyError("\(source): no secret (SECRET or USER/DEVICE=SECRET lines)")
        }
    }

    /// Reads the key file at `path`.
    init(path: String) throws(OwnTracksKeyError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw OwnTracksKeyError(
                "--owntracks-keys \(path): cannot read it (\(error.localizedDescription))")
        }
        try self.init(text: text, source: path)
    }

    /// Opens `payload` if it is `{"_type":"encrypted","data":...}`; `device` is `USER/DEVICE`
    /// when known (from the topic or the HTTP headers).
    func open(_ payload: [UInt8], device: String?) -> Opened {
        guard payload.count < 4 << 20, let object = OwnTracksKeys.object(payload),
            object["_type"] as? String == "encrypted"
        else { return .plain }
        guard let key = device.flatMap({ keys[$0] }) ?? fallback else { return .noKey }
        guard let text = object["data"] as? String,
            let sealed = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
        else { return .failed("\"data\" is not base64") }
        guard OwnTracksKeys.ready else { return .failed("libsodium could not be initialised") }
        let nonceBytes = Int(crypto_secretbox_noncebytes())
        let macBytes = Int(crypto_secretbox_macbytes())
        guard sealed.count >= nonceBytes + macBytes else {
            return .failed("\"data\" is too short to be a secretbox")
        }
        let bytes = Array(sealed)
        let length = bytes.count - nonceBytes - macBytes
        // One spare byte, so that an empty message still has an address to be written to.
        var message = [UInt8](repeating: 0, count: length + 1)
        // Returns -1 when the box does not verify: a wrong key, or the payload was altered.
        let status = bytes.withUnsafeBufferPointer { all in
            key.withUnsafeBufferPointer { key in
                message.withUnsafeMutableBufferPointer { out -> Int32 in
                    guard let base = all.baseAddress, let keyBase = key.baseAddress,
                        let outBase = out.baseAddress
                    else { return -1 }
                    return crypto_secretbox_open_easy(
                        outBase, base + nonceBytes, UInt64(bytes.count - nonceBytes), base, keyBase)
                }
            }
        }
        guard status == 0 else { return .failed("it does not open with the key (a different secret?)") }
        return .decrypted(Array(message.prefix(length)))
    }

    /// Encrypts `message` as the apps do, with a random nonce: `{"_type":"encrypted","data":...}`.
    static func seal(_ message: [UInt8], secret: String) -> [UInt8] {
        guard ready else { return [] }
        let secretBytes = Array(secret.utf8.prefix(32))
        let key = secretBytes + Array(repeating: 0, count: 32 - secretBytes.count)
        var nonce = [UInt8](repeating: 0, count: Int(crypto_secretbox_noncebytes()))
        randombytes_buf(&nonce, nonce.count)
        var box = [UInt8](repeating: 0, count: message.count + Int(crypto_secretbox_macbytes()))
        _ = crypto_secretbox_easy(&box, message, UInt64(message.count), nonce, key)
        let data = Data(nonce + box).base64EncodedString()
        return Array(#"{"_type":"encrypted","data":"\#(data)"}"#.utf8)
    }

    private static func object(_ payload: [UInt8]) -> [String: Any]? {
        var index = payload.startIndex
        while index < payload.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(payload[index]) { index += 1 }
        guard index < payload.endIndex, payload[index] == UInt8(ascii: "{") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}

/// The OwnTracks key file cannot be used.
struct OwnTracksKeyError: Error, CustomStringConvertible, Equatable {
    /// What is wrong, naming the file and line.
    var message: String
    init(_ message: String) { self.message = message }
    /// The message.
    var description: String { message }
}

/// Remembers which devices have been warned about, so that each gets one warning.
final class OnceEach: Sendable {
    private let seen = Locked<Set<String>>([])

    /// Whether `key` is new (and remembers it).
    func first(_ key: String) -> Bool { seen.withLock { $0.insert(key).inserted } }
}
