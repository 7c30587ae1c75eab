import Foundation
import GeofenceInput
import Synchronization

/// gpsd as an input of `geofence run` (`--gpsd`): its fixes, live, for one device; it never ends
/// by itself and reconnects whenever gpsd goes away.
final class GPSDInput: RunInput {
    let name = "gpsd"
    private let address: GPSDReader.Address
    private let device: String
    private let history: Bool
    private let reader = Locked<GPSDReader?>(nil)
    private let fixes = Atomic<Int64>(0)

    init(address: GPSDReader.Address, device: String, history: Bool) {
        self.address = address
        self.device = device
        self.history = history
    }

    /// The reader writes the project's NDJSON.
    func decoder(format: InputFormat, timeZone: TimeZone) -> StreamDecoder {
        StreamDecoder(lines: LineDecoder(format: .ndjson, source: name, timeZone: timeZone))
    }

    func start(into queue: RecordQueue) {
        let name = self.name
        let live = !history
        let started = GPSDReader(address: address, device: device) { [self] happening in
            switch happening {
            case .fix(let line):
                let number = fixes.add(1, ordering: .relaxed).newValue
                queue.put(
                    .lines(input: name, lines: [(text: line, number: number)], position: nil, live: live))
            case .note(let level, let message):
                queue.put(.note(input: name, message: message, level: level))
            }
        }
        reader.withLock { $0 = started }
        started.start()
    }

    func stop() {
        let running = reader.withLock { current in
            defer { current = nil }
            return current
        }
        running?.stop()
    }
}
