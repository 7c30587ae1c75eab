import Foundation
import GeofenceInput

/// Standard input as an input of `geofence run` (`--input -`): read until it closes; no position
/// is stored, since nothing can be read again.
final class StandardInput: RunInput {
    let name = "stdin"
    private let history: Bool
    private let pollSeconds: Double
    private let cancellation = InputCancellation()

    init(history: Bool, pollSeconds: Double) {
        self.history = history
        self.pollSeconds = pollSeconds
    }

    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder {
        StreamDecoder(format: format, source: name, timeZone: timeZone)
    }

    func start(into queue: RecordQueue) {
        readOnThread { [self] in read(into: queue) }
    }

    /// Asks the thread to stop; it does within a poll interval.
    func stop() { cancellation.cancel() }

    private func read(into queue: RecordQueue) {
        let reader = StandardInputReader(pollInterval: pollSeconds, cancellation: cancellation)
        do {
            while let lines = try reader.next() {
                let texts = lines.map { (text: $0.isTooLong ? nil : $0.text, number: $0.number) }
                guard queue.put(.lines(input: name, lines: texts, position: nil, live: !history)) else {
                    return
                }
            }
            queue.put(.ended(input: name, failure: nil))
        } catch {
            queue.put(.ended(input: name, failure: "\(error)"))
        }
    }
}
