import CCurl
import Foundation

/// One POST through libcurl: blocking, bounded by a timeout, never following redirects, only
/// `http` and `https`. Only this file touches libcurl.
enum WebhookClient {
    /// What to send.
    struct Request: Sendable, Equatable {
        /// The URL.
        var url: String
        /// The body.
        var body: [UInt8]
        /// Headers, `Content-Type` among them.
        var headers: [String: String]
        /// The whole exchange (connecting, sending, the answer) is given up after this long.
        var timeoutSeconds: Double
    }

    /// How the POST went.
    struct Result: Sendable, Equatable {
        /// The HTTP status, if an answer came.
        var status: Int?
        /// Why no answer came (libcurl's message), if none did.
        var failure: String?
        /// The start of the answer's body, for messages.
        var answer: String = ""

        /// A 2xx answer.
        var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }

        /// Whether trying again may help: no answer, 408, 425, 429 or a 5xx. Another 4xx means
        /// the request itself is wrong (a bad URL, a revoked token) and is not repeated.
        var isWorthRetrying: Bool {
            guard let status else { return true }
            return status == 408 || status == 425 || status == 429 || status >= 500
        }

        /// One line for logs and the outbox.
        var summary: String {
            if let status {
                let trimmed = answer.trimmingCharacters(in: .whitespacesAndNewlines)
                return "HTTP \(status)" + (trimmed.isEmpty ? "" : ": \(trimmed.prefix(200))")
            }
            return failure ?? "no answer"
        }
    }

    /// Why libcurl cannot be used (it is loaded, and set up, with the first POST or the first
    /// question), or `nil`.
    static let unavailable: String? = geofence_curl_load().map { String(cString: $0) }

    /// The most of an answer's body kept.
    private static let answerLimitBytes = 4096

    /// Sends `request` and waits for the answer or the timeout.
    static func post(_ request: Request) -> Result {
        if let unavailable { return Result(failure: unavailable) }
        // NULL when out of memory.
        guard let handle = geofence_curl_easy_init() else {
            return Result(failure: "libcurl cannot make a handle")
        }
        defer { geofence_curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { geofence_curl_slist_free_all(headerList) }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            // Returns NULL when out of memory; the list so far is kept.
            if let grown = geofence_curl_slist_append(headerList, "\(name): \(value)") { headerList = grown }
        }
        let collected = Collected()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        let timeoutMilliseconds = max(1, Int(request.timeoutSeconds * 1000))
        let code: CURLcode = request.url.withCString { url in
            request.body.withUnsafeBytes { body -> CURLcode in
                let steps: [() -> CURLcode] = [
                    { geofence_curl_set_string(handle, CURLOPT_URL, url) },
                    { geofence_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https") },
                    { geofence_curl_set_long(handle, CURLOPT_NOSIGNAL, 1) },
                    { geofence_curl_set_long(handle, CURLOPT_POST, 1) },
                    // The size first: COPYPOSTFIELDS copies that many bytes (the body may hold NULs).
                    { geofence_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, body.count) },
                    {
                        geofence_curl_set_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS,
                            UnsafeMutableRawPointer(mutating: body.baseAddress ?? UnsafeRawPointer(url)))
                    },
                    {
                        geofence_curl_set_pointer(
                            handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
                    },
                    { geofence_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds) },
                    { geofence_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds) },
                    { geofence_curl_set_string(handle, CURLOPT_USERAGENT, "geofence") },
                    { geofence_curl_set_write(handle, WebhookClient.write, context) },
                ]
                for step in steps {
                    let result = step()
                    guard result == CURLE_OK else { return result }
                }
                return geofence_curl_easy_perform(handle)
            }
        }
        let answer = String(decoding: collected.bytes, as: UTF8.self)
        guard code == CURLE_OK else {
            return Result(failure: String(cString: geofence_curl_easy_strerror(code)), answer: answer)
        }
        var status = 0
        _ = geofence_curl_response_code(handle, &status)
        return Result(status: status, answer: answer)
    }

    /// The answer's body so far.
    private final class Collected {
        var bytes: [UInt8] = []
    }

    /// Keeps the start of the answer and drops the rest (returning the full size, so libcurl goes on).
    private static let write:
        @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
            data, size, count, context in
            let length = size * count
            guard let data, let context else { return length }
            let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            let room = max(0, answerLimitBytes - collected.bytes.count)
            if room > 0 {
                data.withMemoryRebound(to: UInt8.self, capacity: length) {
                    collected.bytes.append(
                        contentsOf: UnsafeBufferPointer(start: $0, count: min(room, length)))
                }
            }
            return length
        }

    /// `url` without its query and user information, for log lines: tokens often live there.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(a URL)" }
        let hadQuery = components.query != nil
        components.query = nil
        components.user = nil
        components.password = nil
        components.fragment = nil
        return (components.string ?? "(a URL)") + (hadQuery ? "?..." : "")
    }
}
