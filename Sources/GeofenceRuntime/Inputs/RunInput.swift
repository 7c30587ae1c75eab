import Foundation
import GeofenceInput

/// A source of records for `geofence run`: a followed file, standard input, an MQTT broker, and
/// later an HTTP receiver or gpsd.
///
/// The runner knows inputs only through this protocol: it starts each one, reads what they put on
/// the ``RecordQueue``, and stops them. An input that reaches its end puts ``InputItem/ended(input:failure:)``;
/// one that never ends (a broker, a server) simply never does, and only a signal stops the run.
///
/// # Implementation requirements
/// - Read on a thread of your own (reading blocks), never on Swift's cooperative pool.
/// - Name every item with ``name``; it is also the key of the stored position and of pauses.
/// - Return from ``stop()`` promptly; the input must stop putting items soon after (the queue is
///   closed next, and ``RecordQueue/put(_:)`` then returns false).
protocol RunInput: AnyObject, Sendable {
    /// The input's name in logs, pauses, engine events and the store.
    var name: String { get }

    /// How the input's lines are read, given the run's `--format` and `--time-zone`: a
    /// ``StreamDecoder``, which tells the format from the first line (NMEA, GeoLife, a JSON
    /// document, or lines) and keeps its state across lines.
    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder

    /// Starts reading, handing lines and notes to `queue`. Throws if the input cannot start at all;
    /// the run then stops with status 1.
    func start(into queue: RecordQueue) throws

    /// Asks the input to stop.
    func stop()
}

extension RunInput {
    /// Runs `body` on a thread of its own named after the input (reading blocks and polls, which
    /// must not happen on Swift's cooperative pool).
    func readOnThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "geofence input \(name)"
        thread.start()
    }
}
