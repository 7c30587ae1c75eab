import Foundation
import GeofenceInput

/// What a phone posted to the HTTP receiver, turned into lines the ``LineDecoder`` reads, and
/// the answer its app expects.
///
/// Every protocol is told from the request itself, whatever the path:
/// - OwnTracks HTTP mode: a JSON object with `_type`; the device is `USER/DEVICE` from the
///   `X-Limit-U` and `X-Limit-D` headers (or the basic-auth user), as over MQTT; the answer is a
///   JSON array (of messages for the phone: none).
/// - Overland: `{"locations": [GeoJSON Feature...]}`; the answer is `{"result":"ok"}`.
/// - Traccar Client 9 and later: `{"location": {"timestamp", "coords": {...}}, "device_id"}`.
/// - The OsmAnd protocol (OsmAnd, Traccar Client before 9) and GPSLogger's custom URL: query or
///   form arguments `lat`, `lon` and more (see ``arguments(_:user:)``).
struct TrackerPost: Equatable {
    /// The protocols the receiver understands.
    enum Kind: String, Sendable {
        case ownTracks = "owntracks"
        case overland
        case traccar
        case osmAnd = "osmand"
        case gpsLogger = "gpslogger"
    }

    /// Which protocol it was.
    var kind: Kind
    /// The lines to decode: OwnTracks JSON (with the `topic` member naming the device) or the
    /// project's NDJSON.
    var lines: [String]
    /// The answer once the lines are committed.
    var reply: HTTPResponse
    /// An OwnTracks payload that names no user: worth one warning, since its device is only the
    /// tracker id.
    var unnamedOwnTracksDevice = false
    /// The device of an encrypted OwnTracks payload no key opens (it is not read).
    var keylessDevice: String?

    /// Reads a request; `user` is the authenticated user, if any. Throws a message for a 400 answer.
    /// An OwnTracks payload encrypted by the app is opened with `keys`.
    static func read(_ request: HTTPRequest, user: String?, keys: OwnTracksKeys = OwnTracksKeys())
        throws(TrackerPostError) -> TrackerPost
    {
        let body = request.body
        var start = body.startIndex
        while start < body.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(body[start]) { start += 1 }
        if start < body.endIndex, body[start] == UInt8(ascii: "{") {
            return try json(request, user: user, keys: keys)
        }
        var arguments = request.query
        if !body.isEmpty {
            arguments += HTTPRequest.formArguments(String(decoding: body, as: UTF8.self))
        }
        if arguments.contains(where: { ["lat", "latitude", "location"].contains($0.name) }) {
            return try self.arguments(arguments, user: user)
        }
        if body.isEmpty, request.header("x-limit-u") != nil || request.header("x-limit-d") != nil {
            // OwnTracks posts an empty payload when a friend is deleted: nothing to read.
            return TrackerPost(kind: .ownTracks, lines: [], reply: .json(200, "[]"))
        }
        throw TrackerPostError(
            "no position: neither a JSON body (OwnTracks, Overland, Traccar Client) nor lat and lon arguments (OsmAnd, GPSLogger)"
        )
    }

    // MARK: JSON bodies

    private static func json(
        _ request: HTTPRequest, user: String?, keys: OwnTracksKeys
    ) throws(TrackerPostError) -> TrackerPost {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
            else {
                throw TrackerPostError("the body is not a JSON object")
            }
            object = parsed
        } catch let error as TrackerPostError {
            throw error
        } catch {
            throw TrackerPostError("the body is not valid JSON")
        }
        if object["_type"] != nil { return try ownTracks(request, user: user, keys: keys) }
        if let locations = object["locations"] {
            guard let features = locations as? [Any] else {
                throw TrackerPostError("Overland: \"locations\" is not an array")
            }
            return try overland(features, user: user)
        }
        if let location = object["location"] {
            return try traccar(location, device: object["device_id"], user: user)
        }
        throw TrackerPostError(
            "a JSON body without \"_type\" (OwnTracks), \"locations\" (Overland) or \"location\" (Traccar Client)"
        )
    }

    /// The OwnTracks payload as it came, with the `topic` member an MQTT message would give, so
    /// that the same phone is the same device over HTTP and MQTT.
    private static func ownTracks(
        _ request: HTTPRequest, user: String?, keys: OwnTracksKeys
    ) throws(TrackerPostError) -> TrackerPost {
        let userName = nonEmpty(request.header("x-limit-u")) ?? nonEmpty(request.argument("u")) ?? user
        let device = nonEmpty(request.header("x-limit-d")) ?? nonEmpty(request.argument("d"))
        let deviceID = userName.map { "\($0)/\(device ?? $0)" }
        var payload = request.body
        switch keys.open(payload, device: deviceID) {
        case .plain: break
        case .decrypted(let clear): payload = clear
        case .noKey:
            // Answered 200 with nothing read: the app would post it again forever otherwise.
            return TrackerPost(
                kind: .ownTracks, lines: [], reply: .json(200, "[]"),
                keylessDevice: deviceID ?? "(a device that names no user)")
        case .failed(let reason):
            throw TrackerPostError("OwnTracks: the encrypted payload cannot be read: \(reason)")
        }
        let line: String
        var unnamed = false
        if let deviceID {
            line = OwnTracksMessage.line(payload: payload, topic: "owntracks/\(deviceID)")
        } else {
            line = String(decoding: payload, as: UTF8.self)
            unnamed = true
        }
        return TrackerPost(
            kind: .ownTracks, lines: [flat(line)], reply: .json(200, "[]"), unnamedOwnTracksDevice: unnamed)
    }

    /// Overland's GeoJSON Features: Point geometry `[lon, lat]` and properties `timestamp`,
    /// `horizontal_accuracy`, `vertical_accuracy`, `altitude`, `speed`, `course` and
    /// `device_id`; CoreLocation's -1 for an unknown speed or course is left out.
    private static func overland(_ features: [Any], user: String?) throws(TrackerPostError) -> TrackerPost {
        var lines: [String] = []
        for (index, item) in features.enumerated() {
            let place = "Overland locations[\(index)]"
            guard let feature = item as? [String: Any], let geometry = feature["geometry"] as? [String: Any]
            else { throw TrackerPostError("\(place): not a GeoJSON Feature with a geometry") }
            guard geometry["type"] as? String == "Point" else { continue }
            guard let coordinates = geometry["coordinates"] as? [Any], coordinates.count >= 2,
                let longitude = number(coordinates[0]), let latitude = number(coordinates[1])
            else { throw TrackerPostError("\(place): coordinates are not [longitude, latitude]") }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let time = properties["timestamp"] as? String else {
                throw TrackerPostError("\(place): properties.timestamp is missing")
            }
            var line = NDJSONLine()
            line.add("latitude", latitude)
            line.add("longitude", longitude)
            line.add("time", time)
            line.add("horizontalAccuracy", number(properties["horizontal_accuracy"]).flatMap(known))
            line.add("verticalAccuracy", number(properties["vertical_accuracy"]).flatMap(known))
            line.add("altitude", number(properties["altitude"]))
            line.add("speed", number(properties["speed"]).flatMap(known))
            line.add("course", number(properties["course"]).flatMap(known))
            line.add("deviceId", nonEmpty(properties["device_id"] as? String) ?? user ?? "overland")
            lines.append(line.text)
        }
        return TrackerPost(kind: .overland, lines: lines, reply: .json(200, #"{"result":"ok"}"#))
    }

    /// Traccar Client's JSON (from version 9): `location.timestamp`, `location.coords` with
    /// `latitude`, `longitude`, `accuracy`, `speed` (m/s), `heading`, `altitude`.
    private static func traccar(_ value: Any, device: Any?, user: String?) throws(TrackerPostError)
        -> TrackerPost
    {
        guard let location = value as? [String: Any], let coords = location["coords"] as? [String: Any],
            let latitude = number(coords["latitude"]), let longitude = number(coords["longitude"])
        else { throw TrackerPostError("Traccar Client: location.coords has no latitude and longitude") }
        guard let time = location["timestamp"] as? String else {
            throw TrackerPostError("Traccar Client: location.timestamp is missing")
        }
        var line = NDJSONLine()
        line.add("latitude", latitude)
        line.add("longitude", longitude)
        line.add("time", time)
        line.add("horizontalAccuracy", number(coords["accuracy"]).flatMap(known))
        line.add("altitude", number(coords["altitude"]))
        line.add("speed", number(coords["speed"]).flatMap(known))
        line.add("course", number(coords["heading"]).flatMap(known))
        let named = (device as? String) ?? (device as? NSNumber).map { "\($0)" }
        line.add("deviceId", nonEmpty(named) ?? user ?? "traccar")
        return TrackerPost(kind: .traccar, lines: [line.text], reply: .text(200, "OK"))
    }

    // MARK: Query and form arguments

    /// The OsmAnd protocol (as Traccar defines it) and GPSLogger's custom URL, from query or form
    /// arguments:
    /// - position: `lat` and `lon` (or `latitude`, `longitude`, `lng`), or `location=LAT,LON`;
    /// - time: `timestamp` (Unix seconds or milliseconds, or ISO 8601) or `time` (ISO 8601, GPSLogger's
    ///   `%TIME`); without either, the time of arrival;
    /// - accuracy in metres: `accuracy` or `acc`, else `hdop` (what OsmAnd sends there is metres);
    /// - `altitude` or `alt`; course: `bearing`, `course`, `heading` or `dir`;
    /// - speed: `speed` in knots with `id` (the OsmAnd protocol, as Traccar Client sends it),
    ///   `spd` or `speed` in metres a second otherwise (GPSLogger's `%SPD`);
    /// - device: `id` or `deviceid` (OsmAnd), else `device`, `ser`, `serial` or `aid` (GPSLogger),
    ///   else the authenticated user.
    static func arguments(_ arguments: [(name: String, value: String)], user: String?)
        throws(TrackerPostError)
        -> TrackerPost
    {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let found = arguments.first(where: { $0.name == name && !$0.value.isEmpty }) {
                    return found
                }
            }
            return nil
        }
        func decimal(_ names: String...) throws(TrackerPostError) -> Double? {
            for name in names {
                guard let found = arguments.first(where: { $0.name == name && !$0.value.isEmpty }) else {
                    continue
                }
                guard let number = Double(found.value.trimmingCharacters(in: .whitespaces)), number.isFinite
                else {
                    throw TrackerPostError("argument \(name): '\(found.value)' is not a number")
                }
                return number
            }
            return nil
        }
        let osmAndDevice = value("id", "deviceid")
        let kind: Kind = osmAndDevice != nil ? .osmAnd : .gpsLogger
        var latitude = try decimal("lat", "latitude")
        var longitude = try decimal("lon", "lng", "longitude")
        if latitude == nil, longitude == nil, let location = value("location") {
            let parts = location.value.split(separator: ",").map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard parts.count == 2, let first = parts[0], let second = parts[1] else {
                throw TrackerPostError("argument location: '\(location.value)' is not LATITUDE,LONGITUDE")
            }
            latitude = first
            longitude = second
        }
        guard let latitude, let longitude else {
            throw TrackerPostError("a position needs both lat and lon")
        }
        var line = NDJSONLine()
        line.add("latitude", latitude)
        line.add("longitude", longitude)
        if let stamp = value("timestamp") {
            if let number = Double(stamp.value), number.isFinite {
                // Seconds until the year 2286; larger numbers are milliseconds.
                line.add("timestamp", (number < 1e10 ? number * 1000 : number).rounded())
            } else {
                line.add("time", stamp.value)
            }
        } else if let time = value("time") {
            line.add("time", time.value)
        } else {
            line.add("timestamp", (Date().timeIntervalSince1970 * 1000).rounded())
        }
        line.add("horizontalAccuracy", try decimal("accuracy", "acc", "hdop").flatMap(known))
        line.add("altitude", try decimal("altitude", "alt"))
        line.add("course", try decimal("bearing", "course", "heading", "dir").flatMap(known))
        if kind == .osmAnd {
            line.add("speed", try decimal("speed").flatMap(known).map { $0 * 1852 / 3600 })
        } else {
            line.add("speed", try decimal("spd", "speed").flatMap(known))
        }
        let device =
            osmAndDevice?.value ?? value("device", "ser", "serial", "aid")?.value ?? user ?? kind.rawValue
        line.add("deviceId", device)
        return TrackerPost(kind: kind, lines: [line.text], reply: .text(200, "OK"))
    }

    // MARK: Helpers

    private static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else {
            return (value as? String).flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil }
        }
        let double = number.doubleValue
        return double.isFinite ? double : nil
    }

    /// Leaves out CoreLocation's -1 (and any negative) for "unknown".
    private static func known(_ value: Double) -> Double? { value < 0 ? nil : value }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// One line: a pretty-printed payload's line breaks would split it.
    private static func flat(_ text: String) -> String {
        text.contains(where: { $0 == "\n" || $0 == "\r" })
            ? String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 }) : text
    }
}

/// Why a request carries nothing the receiver can read: the text of its 400 answer.
struct TrackerPostError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, naming the field.
    var message: String
    init(_ message: String) { self.message = message }
    /// The message.
    var description: String { message }
}
