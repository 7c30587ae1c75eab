import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP server through libmicrohttpd: binds the address itself (so that errors and the port
/// chosen for `:0` are known), reads each request whole, with a bounded body, and answers with
/// what `handler` returns.
///
/// The handler runs on the connection's own thread (one per connection, at most
/// ``Limits/connections`` at once) and may block: the receiver waits there until the store has
/// committed what the request carried. Only this file touches libmicrohttpd.
final class HTTPServer: @unchecked Sendable {
    /// The bounds that keep one client from taking the machine.
    struct Limits: Sendable {
        /// A larger body is refused with 413 and never kept.
        var bodyBytes = 4 << 20
        /// Connections open at once.
        var connections: UInt32 = 64
        /// Connections open at once from one address.
        var connectionsPerAddress: UInt32 = 32
        /// An idle connection is closed after this long.
        var idleSeconds: UInt32 = 60
    }

    /// What the server answers a request with.
    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The address it listens on.
    let address: HTTPAddress
    /// The port it listens on (the one the kernel chose when the address said 0).
    let port: Int
    private let limits: Limits
    private let handler: Handler
    private let daemon = Locked<Daemon?>(nil)

    /// libmicrohttpd's handle; it may be stopped from any thread.
    private struct Daemon: @unchecked Sendable { let pointer: OpaquePointer }

    /// Binds and starts serving. Throws if the address cannot be bound or libmicrohttpd cannot start.
    init(address: HTTPAddress, limits: Limits = Limits(), handler: @escaping Handler) throws(HTTPServerError)
    {
        self.address = address
        self.limits = limits
        self.handler = handler
        if let unavailable = geofence_mhd_load() {
            throw HTTPServerError("cannot serve HTTP: \(String(cString: unavailable))")
        }
        let (descriptor, port) = try HTTPServer.listen(on: address)
        self.port = port
        // NULL when libmicrohttpd cannot start its thread or use the socket.
        let started = geofence_mhd_start(
            descriptor, HTTPServer.access, Unmanaged.passUnretained(self).toOpaque(), HTTPServer.completed,
            limits.connections, limits.connectionsPerAddress, limits.idleSeconds)
        guard let started else {
            close(descriptor)
            throw HTTPServerError("libmicrohttpd could not start serving \(address)")
        }
        let handle = Daemon(pointer: started)
        daemon.withLock { $0 = handle }
    }

    deinit { stop() }

    /// Stops accepting, waits for the connections' threads to end and closes the socket.
    /// Handlers still running must be released first (they are waited for).
    func stop() {
        let running = daemon.withLock { current in
            defer { current = nil }
            return current
        }
        // Closes the listening socket too.
        if let running { geofence_mhd_stop_daemon(running.pointer) }
    }

    // MARK: Binding

    private static func listen(on address: HTTPAddress) throws(HTTPServerError) -> (Int32, Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard status == 0, let first = list else {
            throw HTTPServerError("--http \(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        let descriptor = socket(
            info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard descriptor >= 0 else { throw HTTPServerError("--http \(address): socket: \(errorText())") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            let reason = errorText()
            close(descriptor)
            throw HTTPServerError("--http \(address): cannot listen: \(reason)")
        }
        guard Glibc.listen(descriptor, 128) == 0 else {
            let reason = errorText()
            close(descriptor)
            throw HTTPServerError("--http \(address): listen: \(reason)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let port = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic -> Int in
                guard getsockname(descriptor, generic, &length) == 0 else { return address.port }
                if generic.pointee.sa_family == sa_family_t(AF_INET6) {
                    return generic.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin6_port))
                    }
                }
                return generic.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        }
        return (descriptor, port)
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    // MARK: libmicrohttpd callbacks

    /// What one connection's request has gathered between the handler's calls.
    private final class Upload {
        var body: [UInt8] = []
        var tooLarge = false
    }

    /// Called for a request first with its headers, then with each piece of the body, then once
    /// more with none: the request is whole.
    private static let access: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadSize, state in
        guard let context, let connection, let uploadSize, let state else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        guard let pointer = state.pointee else {
            let upload = Upload()
            state.pointee = Unmanaged.passRetained(upload).toOpaque()
            if let length = HTTPServer.value(connection, MHD_ValueKind.HEADER_KIND, "Content-Length").flatMap(
                Int.init),
                length > server.limits.bodyBytes
            {
                upload.tooLarge = true
                return server.respond(connection, server.tooLarge())
            }
            return MHD_Result.YES
        }
        let upload = Unmanaged<Upload>.fromOpaque(pointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !upload.tooLarge, let uploadData {
                if upload.body.count + uploadSize.pointee > server.limits.bodyBytes {
                    upload.tooLarge = true
                    upload.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        upload.body.append(
                            contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if upload.tooLarge { return server.respond(connection, server.tooLarge()) }
        let path = url.map { String(cString: $0) } ?? "/"
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET", path: path,
            query: HTTPServer.values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
            headers: Dictionary(
                HTTPServer.values(connection, MHD_ValueKind.HEADER_KIND).map {
                    ($0.name.lowercased(), $0.value)
                },
                uniquingKeysWith: { first, _ in first }),
            body: upload.body)
        upload.body = []
        return server.respond(connection, server.handler(request))
    }

    /// Frees what ``access`` kept for the request.
    private static let completed: MHD_RequestCompletedCallback = { _, _, state, _ in
        guard let state, let pointer = state.pointee else { return }
        Unmanaged<Upload>.fromOpaque(pointer).release()
        state.pointee = nil
    }

    private func tooLarge() -> HTTPResponse {
        .text(413, "the body is larger than \(limits.bodyBytes) bytes")
    }

    private func respond(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        // NULL when out of memory: the connection is closed.
        let made = response.body.withUnsafeBytes { bytes in
            geofence_mhd_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let made else { return MHD_Result.NO }
        defer { geofence_mhd_destroy_response(made) }
        _ = geofence_mhd_add_response_header(made, "Content-Type", response.contentType)
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) {
            _ = geofence_mhd_add_response_header(made, name, value)
        }
        return geofence_mhd_queue_response(connection, UInt32(response.status), made)
    }

    private static func value(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        geofence_mhd_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }

    /// Every value of `kind` (headers, query arguments), in order.
    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(
        name: String, value: String
    )] {
        final class Collected { var pairs: [(name: String, value: String)] = [] }
        let collected = Collected()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = geofence_mhd_get_connection_values(
            connection, kind,
            { context, _, key, value in
                guard let context, let key else { return MHD_Result.YES }
                Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().pairs.append(
                    (String(cString: key), value.map { String(cString: $0) } ?? ""))
                return MHD_Result.YES
            }, context)
        return withExtendedLifetime(collected) { collected.pairs }
    }
}

/// Where `geofence run --http` listens: `ADDRESS:PORT`, `[IPv6]:PORT`, or a bare `PORT` on the
/// loopback address.
struct HTTPAddress: Sendable, CustomStringConvertible, Equatable {
    /// The host name or address.
    var host: String
    /// The port; 0 lets the kernel choose.
    var port: Int

    /// Reads the `--http` argument. Throws if it names no port.
    init(_ text: String) throws(HTTPServerError) {
        var host = "127.0.0.1"
        var portText = text
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw HTTPServerError("--http \(text): the port is missing ([::1]:8080)")
            }
            portText = String(rest.dropFirst())
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = String(text[text.index(after: colon)...])
        }
        guard let port = Int(portText), (0...65535).contains(port), !host.isEmpty else {
            throw HTTPServerError("--http wants ADDRESS:PORT (127.0.0.1:8080) or a port, not '\(text)'")
        }
        self.host = host
        self.port = port
    }

    /// Whether only this machine can reach the address (127.0.0.0/8, ::1, localhost).
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// `host:port`, brackets around an IPv6 address.
    var description: String { "\(HTTPAddress.hostText(host)):\(port)" }

    /// `host`, in brackets if it is an IPv6 address.
    static func hostText(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}

/// The HTTP receiver cannot be set up or started.
struct HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, for the user.
    var message: String
    init(_ message: String) { self.message = message }
    /// The message.
    var description: String { message }
}
