public import Foundation
import Geofence

/// Reads and checks a rules file: YAML (or JSON) into a ``RulesFile``, or every problem found.
public enum RulesLoader {
    /// At most this many places: a monitor evaluates twenty conditions, as CLMonitor does.
    public static let maxPlaces = 20

    /// Reads and checks the rules file at `path`; polygon files are resolved relative to it.
    public static func load(path: String) -> Result<RulesFile, RulesFileError> {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? "cannot read the file"
            return .failure(
                RulesFileError(diagnostics: [
                    RulesDiagnostic(file: path, mark: SourceMark(line: 1, column: 1), message: reason)
                ]))
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        return parse(text, file: path, baseDirectory: directory)
    }

    /// Checks rules text. `file` names it in errors; `baseDirectory` resolves relative paths.
    public static func parse(_ text: String, file: String, baseDirectory: URL) -> Result<
        RulesFile, RulesFileError
    > {
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(text)
        } catch {
            return .failure(
                RulesFileError(diagnostics: [
                    RulesDiagnostic(file: file, mark: error.mark, message: error.message)
                ]))
        }
        var parser = Parser(reader: NodeReader(file: file), baseDirectory: baseDirectory)
        let result = parser.file(root, path: file)
        let diagnostics = parser.reader.diagnostics.sorted { $0.mark < $1.mark }
        if var result, diagnostics.isEmpty {
            result.notes = parser.reader.notes.sorted { $0.mark < $1.mark }
            return .success(result)
        }
        return .failure(RulesFileError(diagnostics: diagnostics))
    }
}

private struct Parser {
    var reader: NodeReader
    let baseDirectory: URL
    /// The `channels:` read so far, for the rules' `to:`.
    var channels: [String: Channel] = [:]
    /// The centres of the file's circles, which tell the axis order of WKT whose numbers cannot.
    var nearbyCentres: [Coordinate] = []

    init(reader: NodeReader, baseDirectory: URL) {
        self.reader = reader
        self.baseDirectory = baseDirectory
    }

    static let topKeys = [
        "timezone", "profile", "hysteresis", "filter", "visits", "people", "places", "channels", "rules",
    ]
    static let channelKeys = ["post", "body", "headers", "timeout", "mqtt"]
    static let placeKeys = ["center", "radius", "geojson", "wkt", "hysteresis", "who"]
    static let hysteresisKeys = [
        "enter_margin", "exit_margin", "accuracy_weight", "confirm", "confirm_fixes", "confirm_span",
        "confirm_silence", "max_gap",
    ]
    static let filterKeys = ["max_accuracy", "max_speed_kmh", "expiration"]
    static let visitKeys = ["radius", "min_duration", "max_strays", "max_gap"]
    /// A rule's keys: its own, then those of every action kind (each kind declares its keys).
    static let ruleKeys =
        ["name", "on", "after", "when", "cooldown"] + ActionKindList.all.flatMap { $0.keys }
        + ["commute", "max_delay", "who"]
    /// The people declared, for checking `who:` names.
    var people = People()
    static let whenKeys = ["days", "between", "once_a_day", "cooldown"]
    static let commuteKeys = ["from", "to", "between", "max", "stops"]

    mutating func file(_ root: YAMLNode, path: String) -> RulesFile? {
        guard let top = reader.mapping(root, allowed: Parser.topKeys, context: "the rules file") else {
            return nil
        }
        var timeZone = TimeZone(identifier: "UTC") ?? .gmt
        if let node = top["timezone"], let name = reader.string(node, field: "timezone") {
            if let zone = TimeZone(identifier: name) {
                timeZone = zone
            } else {
                reader.error(
                    node.mark,
                    "unknown time zone \"\(name)\""
                        + DidYouMean.hint(for: name, among: TimeZone.knownTimeZoneIdentifiers))
            }
        }
        var profile = Profile.default
        if let node = top["profile"], let name = reader.string(node, field: "profile") {
            if let known = Profile(rawValue: name) {
                profile = known
            } else {
                let names = Profile.allCases.map(\.rawValue)
                reader.error(
                    node.mark,
                    "unknown profile \"\(name)\": use one of \(names.joined(separator: ", "))"
                        + DidYouMean.hint(for: name, among: names))
            }
        }
        var hysteresis = HysteresisSettings()
        if let node = top["hysteresis"] { hysteresis = self.hysteresis(node, context: "hysteresis") }
        var filter = FilterSettings()
        if let node = top["filter"] { filter = filterSettings(node) }
        var visits: VisitSettings?
        if let node = top["visits"] { visits = visitSettings(node) }

        if let node = top["people"] { people = self.people(node) }

        var places: [Place] = []
        if let node = top["places"] {
            if case .mapping(let pairs, _) = node {
                nearbyCentres = Parser.circleCentres(pairs)
                for pair in pairs {
                    if let place = place(pair.key, mark: pair.keyMark, node: pair.value) {
                        places.append(place)
                    }
                }
                if pairs.count > RulesLoader.maxPlaces {
                    reader.error(
                        pairs[RulesLoader.maxPlaces].keyMark,
                        "more than \(RulesLoader.maxPlaces) places (\(pairs.count)): a monitor evaluates at most \(RulesLoader.maxPlaces) conditions; split them across rules files"
                    )
                }
            } else if !node.isNull {
                reader.error(node.mark, "places must be a mapping of names to places, not \(node.kindName)")
            }
        }
        let placeNames = places.map(\.name)
        // Names of places that failed to parse still count as defined, so that one bad polygon
        // does not also produce an "unknown place" error for every rule that uses it.
        var definedNames = placeNames
        if case .mapping(let pairs, _)? = top["places"] { definedNames = pairs.map(\.key) }

        if let node = top["channels"] {
            if case .mapping(let pairs, _) = node {
                for pair in pairs {
                    if let channel = channel(pair.key, node: pair.value) { channels[pair.key] = channel }
                }
            } else if !node.isNull {
                reader.error(
                    node.mark, "channels must be a mapping of names to channels, not \(node.kindName)")
            }
        }
        var rules: [Rule] = []
        var ruleNames = Set<String>()
        if let node = top["rules"] {
            if case .sequence(let items, _) = node {
                for (index, item) in items.enumerated() {
                    if let rule = rule(item, index: index, places: definedNames) {
                        if !ruleNames.insert(rule.name).inserted {
                            reader.error(rule.mark, "duplicate rule name \"\(rule.name)\"")
                        }
                        rules.append(rule)
                    }
                }
            } else if !node.isNull {
                reader.error(node.mark, "rules must be a list of rules, not \(node.kindName)")
            }
        }
        let needsVisits = rules.contains { $0.trigger.needsVisits }
        if visits == nil, needsVisits { visits = VisitSettings() }
        return RulesFile(
            path: path, timeZone: timeZone, profile: profile, hysteresis: hysteresis, filter: filter,
            visits: visits,
            places: places, rules: rules, channels: channels, people: people)
    }

    // MARK: Channels and webhooks

    /// A channel: `{ post: URL, body:, headers:, timeout: }` or `{ mqtt: TOPIC }`.
    mutating func channel(_ name: String, node: YAMLNode) -> Channel? {
        let context = "channel \"\(name)\""
        guard let members = reader.mapping(node, allowed: Parser.channelKeys, context: context) else {
            return nil
        }
        if let topic = members["mqtt"] {
            if let extra = ["post", "body", "headers", "timeout"].first(where: { members[$0] != nil }) {
                reader.error(
                    members.keyMark(extra) ?? node.mark, "\(context): \(extra): goes with post:, not mqtt:")
            }
            guard let text = reader.string(topic, field: "mqtt") else { return nil }
            guard !text.isEmpty, !text.contains("+"), !text.contains("#") else {
                reader.error(topic.mark, "\(context): mqtt: \"\(text)\" is not a topic one can publish to")
                return nil
            }
            return .mqtt(topic: text)
        }
        guard let url = members["post"] else {
            reader.error(node.mark, "\(context) needs post: URL or mqtt: TOPIC")
            return nil
        }
        return reader.webhookTarget(url: url, options: members, context: context).map(Channel.post)
    }

    // MARK: Places

    mutating func place(_ name: String, mark: SourceMark, node: YAMLNode) -> Place? {
        let context = "place \"\(name)\""
        guard let members = reader.mapping(node, allowed: Parser.placeKeys, context: context) else {
            return nil
        }
        var hysteresis = HysteresisSettings()
        if let node = members["hysteresis"] {
            hysteresis = self.hysteresis(node, context: "\(context) hysteresis")
        }
        let who = members["who"].flatMap { self.who($0, context: context) }
        guard var place = shape(name, mark: mark, node: node, members: members, context: context) else {
            return nil
        }
        place.who = who
        place.hysteresis = hysteresis
        return place
    }

    /// The place's condition, from exactly one of its shape keys.
    private mutating func shape(
        _ name: String, mark: SourceMark, node: YAMLNode, members: Members, context: String
    ) -> Place? {
        let hysteresis = HysteresisSettings()
        let shapes = ["center", "geojson", "wkt"].filter { members[$0] != nil }
        guard shapes.count == 1 else {
            reader.error(
                node.mark,
                shapes.isEmpty
                    ? "\(context) needs a shape: center and radius, geojson, or wkt"
                    : "\(context) has more than one shape (\(shapes.joined(separator: ", "))): give exactly one"
            )
            return nil
        }
        if let centerNode = members["center"] {
            guard let radiusNode = members["radius"] else {
                reader.error(node.mark, "\(context) has a center but no radius (metres)")
                return nil
            }
            let radius = reader.number(radiusNode, field: "\(context) radius", minimum: 0, exclusive: true)
            guard let center = coordinate(centerNode, field: "\(context) center"), let radius else {
                return nil
            }
            do {
                let circle = try CircularCondition(center: center, radiusMeters: radius)
                return Place(name: name, condition: .circle(circle), hysteresis: hysteresis, mark: mark)
            } catch {
                reader.error(radiusNode.mark, "\(context): \(error)")
                return nil
            }
        }
        if let radiusNode = members["radius"] {
            reader.error(radiusNode.mark, "\(context): radius only goes with center")
        }
        do {
            if let wktNode = members["wkt"] {
                guard let text = reader.string(wktNode, field: "\(context) wkt") else { return nil }
                let centres = nearbyCentres
                let condition = try polygon(wktNode) {
                    try PolygonCondition.reading(wkt: text, axisOrder: .auto, near: centres)
                }
                return Place(name: name, condition: .polygon(condition), hysteresis: hysteresis, mark: mark)
            }
            if let geoNode = members["geojson"] {
                guard let relative = reader.string(geoNode, field: "\(context) geojson") else { return nil }
                let url =
                    relative.hasPrefix("/")
                    ? URL(fileURLWithPath: relative) : baseDirectory.appendingPathComponent(relative)
                let text: String
                do {
                    text = try String(contentsOf: url, encoding: .utf8)
                } catch {
                    reader.error(
                        geoNode.mark,
                        "\(context): cannot read polygon file \(relative) (\(url.path)): \(Parser.reason(error))"
                    )
                    return nil
                }
                let condition = try polygon(geoNode) { try PolygonCondition.reading(geoJSON: text) }
                return Place(name: name, condition: .polygon(condition), hysteresis: hysteresis, mark: mark)
            }
        } catch let failure as PlaceFailure {
            reader.error(failure.mark, "\(context): \(failure.message)")
        } catch {
            reader.error(node.mark, "\(context): \(error)")
        }
        return nil
    }

    private struct PlaceFailure: Error {
        let mark: SourceMark
        let message: String
    }

    /// Makes a polygon, turning its error into one at `node` and its notes into notes there.
    private mutating func polygon(
        _ node: YAMLNode, _ make: () throws -> (condition: PolygonCondition, notes: [String])
    ) throws -> PolygonCondition {
        do {
            let made = try make()
            for note in made.notes { reader.note(node.mark, note) }
            return made.condition
        } catch let error as PolygonError {
            throw PlaceFailure(mark: node.mark, message: error.description)
        }
    }

    /// The centres of the places written as circles, read quietly (errors are reported when the
    /// places themselves are read).
    static func circleCentres(_ pairs: [(key: String, keyMark: SourceMark, value: YAMLNode)]) -> [Coordinate]
    {
        pairs.compactMap { pair in
            guard case .mapping(let members, _) = pair.value,
                let centre = members.first(where: { $0.key == "center" })?.value,
                case .sequence(let items, _) = centre, items.count == 2,
                case .scalar(let latitudeText, _, _) = items[0],
                case .scalar(let longitudeText, _, _) = items[1],
                let latitude = Double(latitudeText), let longitude = Double(longitudeText)
            else { return nil }
            return try? Coordinate(latitude: latitude, longitude: longitude)
        }
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
            return "no such file"
        }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }

    mutating func coordinate(_ node: YAMLNode, field: String) -> Coordinate? {
        guard case .sequence(let items, _) = node, items.count == 2 else {
            reader.error(node.mark, "\(field) must be [latitude, longitude]")
            return nil
        }
        guard let latitude = reader.number(items[0], field: "\(field) latitude"),
            var longitude = reader.number(items[1], field: "\(field) longitude")
        else { return nil }
        if (-90...90).contains(latitude), longitude.isFinite, abs(longitude) > 180, abs(longitude) < 360 {
            // Map tools write points east of the antimeridian as -180.0014 and the like.
            let wrapped = longitude + (longitude > 0 ? -360 : 360)
            reader.note(items[1].mark, "\(field): longitude \(longitude) wrapped to \(wrapped)")
            longitude = wrapped
        }
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            let bad = (-90...90).contains(latitude) ? items[1] : items[0]
            reader.error(bad.mark, "\(field): \(error)")
            return nil
        }
    }

    // MARK: People

    /// `people:`: each person's devices, as one name, a list, or a mapping of devices to their
    /// aliases (a tracker id, a device id, a Takeout device tag).
    mutating func people(_ node: YAMLNode) -> People {
        var people = People()
        guard case .mapping(let pairs, _) = node else {
            if !node.isNull {
                reader.error(node.mark, "people must be a mapping of names to devices, not \(node.kindName)")
            }
            return people
        }
        func add(_ person: String, _ deviceNode: YAMLNode, aliases: [YAMLNode]) {
            guard let device = reader.string(deviceNode, field: "people \(person) device") else { return }
            var names: [String] = []
            for aliasNode in aliases {
                guard let alias = reader.string(aliasNode, field: "people \(person) alias") else { continue }
                names.append(alias)
            }
            for (name, mark) in [(device, deviceNode.mark)] + zip(names, aliases.map(\.mark)) {
                if let owner = people.declaredDevice(name), owner != device {
                    reader.error(
                        mark, "\"\(name)\" is already a name of \(owner) (\(people.person(ofDevice: owner)))")
                }
            }
            people.add(person: person, device: device, aliases: names)
        }
        for pair in pairs {
            switch pair.value {
            case .scalar:
                add(pair.key, pair.value, aliases: [])
            case .sequence(let devices, _):
                for device in devices { add(pair.key, device, aliases: []) }
            case .mapping(let devices, _):
                for device in devices {
                    let deviceNode = YAMLNode.scalar(device.key, quoted: true, mark: device.keyMark)
                    switch device.value {
                    case .sequence(let aliases, _): add(pair.key, deviceNode, aliases: aliases)
                    case let value where value.isNull: add(pair.key, deviceNode, aliases: [])
                    default: add(pair.key, deviceNode, aliases: [device.value])
                    }
                }
            }
        }
        return people
    }

    /// `who:`: one person or a list; with a `people:` section, each must be declared there.
    mutating func who(_ node: YAMLNode, context: String) -> Set<String>? {
        let items: [YAMLNode]
        switch node {
        case .scalar: items = [node]
        case .sequence(let list, _): items = list
        default:
            reader.error(node.mark, "\(context) who: must be a name or a list of names, not \(node.kindName)")
            return nil
        }
        var names: Set<String> = []
        for item in items {
            guard let name = reader.string(item, field: "\(context) who") else { continue }
            if !people.declared.isEmpty, !people.declared.contains(name) {
                reader.error(
                    item.mark,
                    "\(context) who: unknown person \"\(name)\"; people: declares \(people.declared.joined(separator: ", "))"
                        + DidYouMean.hint(for: name, among: people.declared))
            }
            names.insert(name)
        }
        return names
    }

    // MARK: Settings

    mutating func hysteresis(_ node: YAMLNode, context: String) -> HysteresisSettings {
        var settings = HysteresisSettings()
        guard let members = reader.mapping(node, allowed: Parser.hysteresisKeys, context: context) else {
            return settings
        }
        if let n = members["enter_margin"] {
            settings.enterMarginMeters = reader.number(n, field: "enter_margin", minimum: 0)
        }
        if let n = members["exit_margin"] {
            settings.exitMarginMeters = reader.number(n, field: "exit_margin", minimum: 0)
        }
        if let n = members["accuracy_weight"] {
            settings.accuracyWeight = reader.number(n, field: "accuracy_weight", minimum: 0)
        }
        if let n = members["confirm"] { settings.confirmationSeconds = reader.duration(n, field: "confirm") }
        if let n = members["confirm_fixes"] {
            settings.confirmationFixes = reader.integer(n, field: "confirm_fixes", minimum: 1)
        }
        if let n = members["confirm_span"] {
            settings.confirmationSpanSeconds = reader.duration(n, field: "confirm_span")
        }
        if let n = members["confirm_silence"] {
            settings.silenceConfirmationSeconds = reader.duration(n, field: "confirm_silence")
        }
        if let n = members["max_gap"] { settings.maxGapSeconds = reader.duration(n, field: "max_gap") }
        return settings
    }

    mutating func filterSettings(_ node: YAMLNode) -> FilterSettings {
        var settings = FilterSettings()
        guard let members = reader.mapping(node, allowed: Parser.filterKeys, context: "filter") else {
            return settings
        }
        if let n = members["max_accuracy"] {
            settings.maxAccuracyMeters = reader.number(n, field: "max_accuracy", minimum: 0, exclusive: true)
        }
        if let n = members["max_speed_kmh"] {
            settings.maxSpeedKilometresPerHour = reader.number(
                n, field: "max_speed_kmh", minimum: 0, exclusive: true)
        }
        if let n = members["expiration"] {
            settings.expirationSeconds = reader.duration(n, field: "expiration")
        }
        return settings
    }

    mutating func visitSettings(_ node: YAMLNode) -> VisitSettings {
        var settings = VisitSettings()
        guard let members = reader.mapping(node, allowed: Parser.visitKeys, context: "visits") else {
            return settings
        }
        if let n = members["radius"] {
            settings.radiusMeters = reader.number(n, field: "visits radius", minimum: 0, exclusive: true)
        }
        if let n = members["min_duration"] {
            settings.minimumStaySeconds = reader.duration(n, field: "min_duration")
        }
        if let n = members["max_strays"] {
            settings.maxStrays = reader.integer(n, field: "max_strays", minimum: 0)
        }
        if let n = members["max_gap"] { settings.maxGapSeconds = reader.duration(n, field: "visits max_gap") }
        return settings
    }

    // MARK: Rules

    mutating func rule(_ node: YAMLNode, index: Int, places: [String]) -> Rule? {
        let fallbackName = "rule \(index + 1)"
        var context = fallbackName
        if case .mapping(let pairs, _) = node, let nameNode = pairs.first(where: { $0.key == "name" })?.value,
            case .scalar(let text, _, _) = nameNode
        {
            context = "rule \"\(text)\""
        }
        guard let members = reader.mapping(node, allowed: Parser.ruleKeys, context: context) else {
            return nil
        }
        var ok = true
        var name = fallbackName
        if let node = members["name"], let text = reader.string(node, field: "name") { name = text }

        // Trigger: `on:` or `commute:`, exactly one.
        var trigger: Trigger?
        switch (members["on"], members["commute"]) {
        case (nil, nil):
            reader.error(
                node.mark,
                "\(context) needs a trigger: on: (enter, exit, dwell, visit start, visit end, engine ...) or commute:"
            )
            ok = false
        case (.some, .some):
            reader.error(
                members.keyMark("commute") ?? node.mark,
                "\(context) has both on: and commute:; a commute is its own trigger")
            ok = false
        case (let on?, nil):
            trigger = Trigger.read(
                on: on, after: members["after"], context: context, places: places, reader: &reader)
        case (nil, let commute?):
            trigger = self.commute(commute, context: context, places: places)
        }
        if trigger == nil { ok = false }
        if let after = members["after"],
            !(trigger.map { if case .dwell = $0 { true } else { false } } ?? true)
        {
            reader.error(after.mark, "\(context): after: only goes with on: dwell")
        }

        var guards = Guards()
        if let when = members["when"],
            let w = reader.mapping(when, allowed: Parser.whenKeys, context: "\(context) when")
        {
            if let days = w["days"] { guards.days = self.days(days) }
            if let between = w["between"] { guards.window = reader.window(between, field: "between") }
            if let once = w["once_a_day"] {
                guards.oncePerDay = reader.bool(once, field: "once_a_day") ?? false
            }
            if let cooldown = w["cooldown"] {
                guards.cooldownSeconds = reader.duration(cooldown, field: "cooldown")
            }
        }
        if let cooldown = members["cooldown"] {
            guards.cooldownSeconds = reader.duration(cooldown, field: "cooldown")
        }
        if let whoNode = members["who"] {
            guards.who = who(whoNode, context: context)
            if case .lifecycle? = trigger {
                reader.error(whoNode.mark, "\(context): who: is for people's places, not engine events")
            }
        }

        // Each action kind reads its own keys, in the order that gives the actions their ids.
        let source = ActionSource(members: members, context: context, trigger: trigger, channels: channels)
        let actions = ActionKindList.all.compactMap { $0.read(source, reader: &reader)?.action }
        if actions.isEmpty, case .commute? = trigger {
            // A commute with no action is still recorded in the store and printed by replay.
        } else if actions.isEmpty, ok, RuleAction.Name.allCases.allSatisfy({ members[$0.rawValue] == nil }) {
            let keys = RuleAction.Name.allCases.map { $0.rawValue + ":" }
            reader.error(
                node.mark,
                "\(context) has no action: add \(keys.dropLast().joined(separator: ", ")) or \(keys.last ?? "")"
            )
        }
        var maxDelay: Double?
        if let delay = members["max_delay"] {
            if case .scalar(let text, false, _) = delay, text.lowercased() == "none" {
                maxDelay = .infinity
            } else {
                maxDelay = reader.duration(delay, field: "max_delay")
            }
        }
        guard ok, let trigger else { return nil }
        return Rule(
            name: name, trigger: trigger, guards: guards, actions: actions, mark: node.mark,
            maxDelaySeconds: maxDelay)
    }

    mutating func commute(_ node: YAMLNode, context: String, places: [String]) -> Trigger? {
        guard let members = reader.mapping(node, allowed: Parser.commuteKeys, context: "\(context) commute")
        else { return nil }
        func placeName(_ key: String) -> String? {
            guard let n = members[key] else {
                reader.error(node.mark, "\(context) commute needs \(key):")
                return nil
            }
            guard let name = reader.string(n, field: key) else { return nil }
            guard places.contains(name) else {
                reader.error(
                    n.mark,
                    "\(context): unknown place \"\(name)\"" + DidYouMean.hint(for: name, among: places))
                return nil
            }
            return name
        }
        let from = placeName("from"), to = placeName("to")
        var window: TimeWindow?
        if let n = members["between"] { window = reader.window(n, field: "between") }
        var max: Double? = 3 * 3600
        if let n = members["max"] { max = reader.duration(n, field: "max") }
        var stops: Double? = 0
        if let n = members["stops"] { stops = reader.duration(n, field: "stops") }
        guard let from, let to, let max, let stops else { return nil }
        if from == to {
            reader.error(
                members["to"]?.mark ?? node.mark,
                "\(context): a commute needs two different places, not \(from) to \(to)")
            return nil
        }
        return .commute(
            CommuteSpec(from: from, to: to, window: window, maxSeconds: max, maxStopSeconds: stops))
    }

    mutating func days(_ node: YAMLNode) -> Set<Weekday>? {
        let names: [String: [Weekday]] = [
            "mon": [.monday], "tue": [.tuesday], "wed": [.wednesday], "thu": [.thursday], "fri": [.friday],
            "sat": [.saturday], "sun": [.sunday],
            "monday": [.monday], "tuesday": [.tuesday], "wednesday": [.wednesday], "thursday": [.thursday],
            "friday": [.friday], "saturday": [.saturday], "sunday": [.sunday],
            "weekdays": [.monday, .tuesday, .wednesday, .thursday, .friday],
            "weekends": [.saturday, .sunday],
        ]
        let items: [YAMLNode]
        switch node {
        case .sequence(let list, _): items = list
        case .scalar: items = [node]
        case .mapping: items = []
        }
        guard !items.isEmpty else {
            reader.error(node.mark, "days must be a list like [mon, tue] or weekdays/weekends")
            return nil
        }
        var result = Set<Weekday>()
        for item in items {
            guard let text = reader.string(item, field: "days") else { continue }
            if let days = names[text.lowercased()] {
                result.formUnion(days)
            } else {
                reader.error(
                    item.mark,
                    "unknown day \"\(text)\""
                        + DidYouMean.hint(for: text.lowercased(), among: names.keys.sorted()))
            }
        }
        return result
    }
}
