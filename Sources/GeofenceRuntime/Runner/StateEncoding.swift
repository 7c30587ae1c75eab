import Foundation
import GeofenceRules

/// Encodes the saved states of a batch's devices, on every core when there are many.
///
/// A device's state holds its monitor, filter, visit detector and rule state: tens of KiB of JSON
/// at twenty places, and encoding it costs far more than the SQLite row it goes into. A batch of
/// history from a thousand devices saves a thousand of them, so the devices are split into
/// contiguous shares, one per core, each encoded on a thread of its own with its own encoder, and
/// the shares put back in order: the states are the same, in the same order, as one thread gives.
enum StateEncoding {
    /// The fewest devices worth a thread of their own.
    static let devicesPerThread = 16

    /// The saved state of each device in `devices`, in order, dated `now`.
    static func encode(
        _ devices: [(name: String, engine: DeviceEngine)], now: Date,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws -> [DeviceState] {
        let count = max(1, min(threads, 8, devices.count / devicesPerThread))
        guard count > 1 else { return try encodeShare(devices[...], now: now) }
        let shareSize = (devices.count + count - 1) / count
        let shares = stride(from: 0, to: devices.count, by: shareSize).map {
            devices[$0..<min($0 + shareSize, devices.count)]
        }
        let results = Results(count: shares.count)
        for index in shares.indices.dropFirst() {
            let share = shares[index]
            let thread = Thread {
                results.put(index, Result { try encodeShare(share, now: now) })
            }
            thread.name = "geofence-encode"
            thread.start()
        }
        results.put(0, Result { try encodeShare(shares[0], now: now) })
        return try results.waitForAll().flatMap { try $0.get() }
    }

    private static func encodeShare(_ share: ArraySlice<(name: String, engine: DeviceEngine)>, now: Date) throws
        -> [DeviceState]
    {
        let encoder = EngineJSON.stateEncoder()
        return try share.map {
            DeviceState(device: $0.name, state: try encoder.encode($0.engine), updatedAt: now)
        }
    }

    /// The shares' results, put by their threads under one condition lock.
    private final class Results: @unchecked Sendable {
        private let condition = NSCondition()
        private var results: [Result<[DeviceState], any Error>?]

        init(count: Int) { results = Array(repeating: nil, count: count) }

        func put(_ index: Int, _ result: Result<[DeviceState], any Error>) {
            condition.lock()
            results[index] = result
            condition.broadcast()
            condition.unlock()
        }

        func waitForAll() -> [Result<[DeviceState], any Error>] {
            condition.lock()
            defer { condition.unlock() }
            while results.contains(where: { $0 == nil }) { condition.wait() }
            return results.compactMap { $0 }
        }
    }
}
