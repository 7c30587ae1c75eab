import Geofence
import Testing

@testable import GeofenceRules

/// The directory gives back the position kept for each name, through its growth and after the
/// dictionary changed, and nothing for a name it does not hold.
@Suite struct DeviceDirectoryTests {
    /// A dictionary of `count` devices named as a fleet's are (`d00000`, `d00001`, ...), a few
    /// with long names (kept out of line, unlike the short ones) and one not ASCII.
    private func devices(_ count: Int) -> [String: DeviceEngine] {
        let engine = DeviceEngine(monitor: MonitorEngine(name: ""), detector: nil, rules: RuleState())
        var devices: [String: DeviceEngine] = [:]
        for number in 0..<count {
            let digits = String(number)
            var name = "d" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
            if number % 97 == 0 { name = "owntracks/user-\(number)/phone" }
            if number == 1 { name = "Zürich-Gerät" }
            devices[name] = engine
        }
        return devices
    }

    @Test func keptPositionsAreFoundByTheirNames() {
        let devices = devices(5_000)
        var directory = DeviceDirectory()
        for name in devices.keys {
            guard let index = devices.index(forKey: name) else { continue }
            directory.keep(index, given: name, hash: DeviceDirectory.hash(name))
        }
        var found = 0
        for name in devices.keys {
            let index = directory.index(given: name, hash: DeviceDirectory.hash(name))
            #expect(index == devices.index(forKey: name))
            if let index, devices[index].key == name { found += 1 }
        }
        #expect(found == devices.count)
        for stranger in ["d05000", "d0000", "", "owntracks/user-1/phone", "zürich-Gerät"] {
            #expect(directory.index(given: stranger, hash: DeviceDirectory.hash(stranger)) == nil)
        }
    }

    /// A new generation forgets every position (a device added to the dictionary invalidates
    /// them all); positions kept after it are found, and only those.
    @Test func aNewGenerationForgetsEveryPositionKeptBefore() {
        let devices = devices(300)
        let names = devices.keys.sorted()
        var directory = DeviceDirectory()
        for name in names {
            guard let index = devices.index(forKey: name) else { continue }
            directory.keep(index, given: name, hash: DeviceDirectory.hash(name))
        }
        directory.forgetAll()
        #expect(names.allSatisfy { directory.index(given: $0, hash: DeviceDirectory.hash($0)) == nil })
        let again = names.prefix(40)
        for name in again {
            guard let index = devices.index(forKey: name) else { continue }
            directory.keep(index, given: name, hash: DeviceDirectory.hash(name))
        }
        for name in names {
            let index = directory.index(given: name, hash: DeviceDirectory.hash(name))
            #expect(index == (again.contains(name) ? devices.index(forKey: name) : nil))
        }
    }

    /// The hash is the shards' FNV-1a of the name's UTF-8 (values computed apart, in Python).
    @Test func theHashIsFNV1aOfTheNamesBytes() {
        #expect(DeviceDirectory.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(DeviceDirectory.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(DeviceDirectory.hash("d00001") % 7 == 6)
    }
}
