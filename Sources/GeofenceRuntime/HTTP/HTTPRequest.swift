import Foundation

/// One HTTP request as the receiver's handler sees it: read whole, with its body bounded.
struct HTTPRequest: Sendable {
    /// `GET`, `POST`...
    var method: String
    /// The path, percent-decoded, without the query.
    var path: String
    /// The query arguments in order, percent-decoded; an argument without `=` has an empty value.
    var query: [(name: String, value: String)]
    /// The headers, names lowercased (a header given twice keeps its first value).
    var headers: [String: String]
    /// The body.
    var body: [UInt8]

    /// The value of the header `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The first query argument called `name`.
    func argument(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The media type of the body, lowercased, without parameters (`application/json`).
    var contentType: String? {
        header("content-type").map {
            $0.split(separator: ";", maxSplits: 1).first.map(String.init)?.trimmingCharacters(
                in: .whitespaces
            )
            .lowercased() ?? ""
        }
    }

    /// The user and password of `Authorization: Basic ...`, if the request carries it.
    var basicCredentials: (user: String, password: String)? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The token of `Authorization: Bearer ...`, if the request carries it.
    var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// Splits `a=1&b=x%20y` (a query or an `application/x-www-form-urlencoded` body), decoding
    /// `+` as a space as forms do.
    static func formArguments(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// What the receiver answers.
struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    var status: Int
    /// The body.
    var body: [UInt8]
    /// The `Content-Type` of the body.
    var contentType: String
    /// Further headers.
    var headers: [String: String] = [:]

    /// A JSON body.
    static func json(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, body: Array(text.utf8), contentType: "application/json")
    }

    /// A plain-text body ending in a line break.
    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, body: Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8")
    }
}
