import CNATS

/// A call into the NATS client library that failed: what geofence was doing, the library's
/// status and its last error text, and JetStream's own error code when the server sent one.
public struct NATSError: Error, CustomStringConvertible, Sendable {
    /// What geofence was doing, in its words ("creating the stream GEOFENCE_FIXES").
    public var operation: String
    /// The library's status text ("Timeout", "No Server"...).
    public var status: String
    /// The library's last error on this thread, often the server's own words.
    public var detail: String
    /// JetStream's error code (for example 10071, wrong last sequence), 0 when there is none.
    public var jetStreamCode: Int
    /// Whether the failure is one a cluster gives while it elects leaders or a node is away (see
    /// ``isTransient``).
    private var transient = false

    /// A readable form, for logs and messages.
    public var description: String {
        var text = "\(operation): \(status)"
        if !detail.isEmpty, detail != status { text += " (\(detail))" }
        if jetStreamCode != 0 { text += " [JetStream error \(jetStreamCode)]" }
        return text
    }

    init(_ operation: String, status: natsStatus, code: jsErrCode = jsErrCode(rawValue: 0)) {
        self.operation = operation
        self.status = String(cString: natsStatus_GetText(status))
        // The library keeps the thread's last error, which may belong to an earlier call: its
        // text is this failure's only when it has this failure's status.
        var last = NATS_OK
        let text = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        detail = last == status ? text : ""
        jetStreamCode = Int(code.rawValue)
        transient =
            [NATS_TIMEOUT, NATS_NO_RESPONDERS, NATS_CONNECTION_DISCONNECTED, NATS_NOT_YET_CONNECTED].contains(
                status)
            || [
                JSClusterNotAvailErr, JSClusterNotLeaderErr, JSStreamOfflineErr, JSConsumerOfflineErr,
                // A cluster whose metadata leader was elected before every node had reported in
                // cannot place R3 yet ("no suitable peers for placement"): seen at start on a
                // loaded machine, gone a moment later.
                JSClusterNoPeersErr,
            ].contains(code)
    }

    init(_ operation: String, message: String) {
        self.operation = operation
        status = message
        detail = ""
        jetStreamCode = 0
    }

    /// Whether the library timed out (the server did not answer in time; often worth a retry).
    public var isTimeout: Bool { status == String(cString: natsStatus_GetText(NATS_TIMEOUT)) }

    /// Whether trying again later can succeed: a timeout, no responder yet, the connection away,
    /// or JetStream saying it is temporarily unavailable, has no leader or no peers to place
    /// replicas on yet. A cluster answers so for the seconds it takes to elect leaders after
    /// losing a node, or while it forms.
    public var isTransient: Bool { transient }
}

/// Throws a ``NATSError`` for `operation` unless `status` is `NATS_OK`.
@inline(__always)
func check(
    _ status: natsStatus, _ operation: @autoclosure () -> String, code: jsErrCode = jsErrCode(rawValue: 0)
)
    throws(NATSError)
{
    guard status == NATS_OK else { throw NATSError(operation(), status: status, code: code) }
}
