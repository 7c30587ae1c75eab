/// Who carries which device, and the other names a device's fixes arrive under.
///
/// A phone reports as `jane/phone` over MQTT (its topic `owntracks/jane/phone`) and from the
/// Recorder's files (`rec/jane/phone/...`), but as `jp`, its tracker id, through a pipe that
/// carries no topic, and as a bare number in a Takeout export. Without one name those would be
/// two devices with two sets of states, and a rule would fire twice. A rules file's `people:`
/// section gives each person's devices and their aliases; every record's device is turned into
/// its one name here before anything else sees it.
///
/// The person of a device is the one whose `people:` entry lists it; otherwise, for a device named
/// `USER/DEVICE`, `USER`; otherwise the device's own name. So `who: [jane]` works for OwnTracks
/// users with no `people:` section at all.
public struct People: Sendable, Equatable {
    /// Alias or device name → the device's one name.
    private var deviceByName: [String: String] = [:]
    /// Device → the person declared for it.
    private var personByDevice: [String: String] = [:]
    /// The people declared, in file order.
    public private(set) var declared: [String] = []
    /// Person → their declared devices, in file order.
    private var devicesByPerson: [String: [String]] = [:]
    /// Whether some person has more than one device (and so rules shared between them); when
    /// not, the engine's per-fix path asks nothing more.
    public private(set) var sharesRules = false
    /// Device → its person, for the devices of people with more than one (one lookup a fix).
    private var sharingPersonByDevice: [String: String] = [:]

    /// No declarations: every device is named as it arrives.
    public init() {}

    /// Declares a person's device and the aliases it also arrives under.
    mutating func add(person: String, device: String, aliases: [String]) {
        if !declared.contains(person) { declared.append(person) }
        personByDevice[device] = person
        if !(devicesByPerson[person] ?? []).contains(device) {
            devicesByPerson[person, default: []].append(device)
        }
        if let devices = devicesByPerson[person], devices.count > 1 {
            sharesRules = true
            for shared in devices { sharingPersonByDevice[shared] = person }
        }
        deviceByName[device] = device
        for alias in aliases { deviceByName[alias] = device }
    }

    /// The device a name (or alias) belongs to, if declared.
    func declaredDevice(_ name: String) -> String? { deviceByName[name] }

    /// The one name of the device a record names.
    public func device(_ name: String) -> String { deviceByName[name] ?? name }

    /// The person `people:` declares for a device, if it does.
    public func declaredPerson(ofDevice device: String) -> String? { personByDevice[device] }

    /// The devices `people:` declares for a person, in file order.
    public func devices(ofPerson person: String) -> [String] { devicesByPerson[person] ?? [] }

    /// The person whose rules a device shares with their other devices: one `people:` declares
    /// with more than one device; `nil` for every other device, whose rules are its own.
    public func sharingPerson(ofDevice device: String) -> String? {
        sharesRules ? sharingPersonByDevice[device] : nil
    }

    /// The person who carries a device (given by its one name).
    public func person(ofDevice device: String) -> String {
        if let person = personByDevice[device] { return person }
        if let slash = device.firstIndex(of: "/"), slash != device.startIndex {
            return String(device[..<slash])
        }
        return device
    }
}
