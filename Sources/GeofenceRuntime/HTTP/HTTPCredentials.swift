import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who may post to the HTTP receiver: read from the file named by `--http-auth`, one credential
/// a line: `USER:PASSWORD` for HTTP basic authentication (what OwnTracks and GPSLogger send), or
/// a bare `TOKEN` (no colon) accepted as `Authorization: Bearer TOKEN` (Overland's access token)
/// or as the query argument `token=TOKEN` (for apps that can only change the URL, such as
/// OsmAnd). Blank lines and lines starting with `#` are skipped.
struct HTTPCredentials: Sendable {
    private var passwords: [String: [UInt8]] = [:]
    private var tokens: [[UInt8]] = []

    /// Whether the file held no credential at all.
    var isEmpty: Bool { passwords.isEmpty && tokens.isEmpty }

    /// Reads the credentials from `text`; `source` names the file in errors.
    init(text: String, source: String) throws(HTTPServerError) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let colon = line.firstIndex(of: ":") {
                let user = String(line[..<colon])
                let password = String(line[line.index(after: colon)...])
                guard !user.isEmpty, !password.isEmpty else {
                    throw HTTPServerError(
                        "\(source):\(index + 1): USER:PASSWORD needs both a user and a password")
                }
                guard passwords[user] == nil else {
                    throw HTTPServerError("\(source):\(index + 1): the user \(user) is named twice")
                }
                passwords[user] = Array(password.utf8)
            } else {
                guard line.utf8.count >= 16 else {
                    throw HTTPServerError("\(source):\(index + 1): a token needs at least 16 characters")
                }
                tokens.append(Array(line.utf8))
            }
        }
        guard !isEmpty else {
            throw HTTPServerError("\(source): no credential (USER:PASSWORD or TOKEN lines)")
        }
    }

    /// Reads the file at `path`. Throws if it cannot be read or holds no credential.
    init(path: String) throws(HTTPServerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw HTTPServerError("--http-auth \(path): cannot read it (\(error.localizedDescription))")
        }
        try self.init(text: text, source: path)
    }

    /// Whether other users of the machine can read the file at `path` (worth a warning).
    static func isReadableByOthers(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & 0o044 != 0
    }

    /// Who the request is: the user of its basic authentication (`nil` for a token), or
    /// ``Verdict/refused`` when it carries no valid credential.
    func check(_ request: HTTPRequest) -> Verdict {
        if let (user, password) = request.basicCredentials, let expected = passwords[user],
            HTTPCredentials.same(expected, Array(password.utf8))
        {
            return .user(user)
        }
        let offered = request.bearerToken ?? request.argument("token") ?? request.argument("access_token")
        if let offered {
            let bytes = Array(offered.utf8)
            // Every token is compared, so the time taken does not tell which one nearly matched.
            var matched = false
            for token in tokens where HTTPCredentials.same(token, bytes) { matched = true }
            if matched { return .token }
        }
        return .refused
    }

    /// What ``check(_:)`` found.
    enum Verdict: Equatable {
        /// Basic authentication as this user.
        case user(String)
        /// A valid token.
        case token
        /// No valid credential.
        case refused
    }

    /// Compares in time that depends only on the lengths.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
