/// A problem with the MQTT settings or the connection to the broker, in words a user can act on.
public struct MQTTError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. Never contains a password.
    public var message: String

    /// Makes an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
