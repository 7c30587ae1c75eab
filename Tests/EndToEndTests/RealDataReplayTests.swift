import Foundation
import TestSupport
import Testing

/// The real recorded files shared with GeofenceInputTests (copied unchanged from the project's
/// shared data folder).
private let dataFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("GeofenceInputTests/Data").path

private let realFiles = [
    "gpx/Mojstrovka.gpx", "gpx/around-visnjan-with-car.gpx", "gpx/cerknicko-jezero.gpx",
    "gpx/gpx1.1_with_all_fields.gpx", "gpx/korita-zbevnica.gpx", "gpx/track-with-empty-segment.gpx",
    "gpx/track_with_dilution_errors.gpx", "gpx/track_with_speed.gpx", "gpx/unicode_with_bom.gpx",
    "posmo_trajectory.csv",
]

extension EndToEnd {
    /// Issue 6, promise 5: each real GPX and CSV file replays against a place near its own track
    /// with status 0 (1 when it gives no usable fix, issue 13), no error, and a summary that counts the points the file really gives no time
    /// for (checked against the file itself) among the records that move nothing.
    @Test(arguments: realFiles)
    func realRecordingsReplayWithoutAnError(file: String) throws {
        let scratch = try TemporaryDirectory("real")
        let path = dataFolder + "/" + file
        let text = TemporaryDirectory.read(path)
        try #require(!text.isEmpty, "\(path) is there")
        let points = RecordedPoints(text: text, csv: file.hasSuffix(".csv"))
        let near = try #require(points.middle, "the file has a point to put a place at")
        try scratch.write(
            "rules.yaml",
            """
            places:
              near: { center: [\(near.latitude), \(near.longitude)], radius: 300 }
            rules:
              - { name: arrived, on: enter near, log: true }
              - { name: left, on: exit near, log: true }

            """)

        let result = try GeofenceProcess.run(
            ["replay", "rules.yaml", path], in: scratch.path, name: "replay")
        var errors = result.stderr.split(separator: "\n").map(String.init)
        // Issue 13: a replay that read no fix exits 1 and says why, after its summary. Two of these
        // files give none (every point undated, or dated before 2000).
        let usable = points.coordinates.count - points.untimedLines.count - points.implausibleLines.count
        if usable == 0 {
            #expect(result.status == 1, "stderr:\n\(result.stderr)")
            let why = errors.popLast() ?? ""
            #expect(why.hasPrefix("geofence: no fix was read from \(path): "), "\(why)")
        } else {
            #expect(result.status == 0, "stderr:\n\(result.stderr)")
        }
        let summary = errors.popLast() ?? ""
        #expect(summary.hasPrefix("geofence: replayed: "))
        // Points without a time are not fixes and are counted, not reported. The only errors are
        // points dated before 2000 (a clock never set), refused where times enter (issue 10).
        #expect(errors.count == points.implausibleLines.count, "unexpected: \(errors)")
        #expect(errors.allSatisfy { $0.contains("before 2000-01-01") }, "unexpected: \(errors)")
        #expect(summary.contains(" \(points.implausibleLines.count) unreadable lines"), "\(summary)")
        #expect(summary.contains(" \(points.untimedLines.count) records that move nothing"), "\(summary)")
        for line in result.stdout.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
        }
    }
}

/// The points of a GPX or CSV file, read with regular expressions, independently of GeofenceInput.
private struct RecordedPoints {
    var coordinates: [(latitude: Double, longitude: Double)] = []
    /// The line numbers of GPX points with no `<time>`.
    var untimedLines: Set<Int> = []
    /// The line numbers of GPX points whose `<time>` is before the year 2000.
    var implausibleLines: Set<Int> = []

    init(text: String, csv: Bool) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if csv {
            // user_id;longitude;latitude;accuracy;tracked_at
            for line in lines.dropFirst() {
                let fields = line.split(separator: ";")
                if fields.count >= 3, let longitude = Double(fields[1]), let latitude = Double(fields[2]) {
                    coordinates.append((latitude, longitude))
                }
            }
            return
        }
        var open: (line: Int, timed: Bool, early: Bool)?
        for (index, line) in lines.enumerated() {
            if let start = line.range(of: #"<(trkpt|rtept|wpt)\s"#, options: .regularExpression) {
                open = (index + 1, false, false)
                let tag = line[start.lowerBound...]
                if let latitude = Self.attribute("lat", in: tag),
                    let longitude = Self.attribute("lon", in: tag)
                {
                    coordinates.append((latitude, longitude))
                }
            }
            if let time = line.range(of: "<time>") {
                open?.timed = true
                if let year = Int(line[time.upperBound...].prefix(4)), year < 2000 { open?.early = true }
            }
            if line.range(
                of: #"</(trkpt|rtept|wpt)>|<(trkpt|rtept|wpt)\s[^>]*/>"#, options: .regularExpression) != nil,
                let point = open
            {
                if !point.timed { untimedLines.insert(point.line) }
                if point.early { implausibleLines.insert(point.line) }
                open = nil
            }
        }
    }

    var middle: (latitude: Double, longitude: Double)? {
        coordinates.isEmpty ? nil : coordinates[coordinates.count / 2]
    }

    private static func attribute(_ name: String, in tag: Substring) -> Double? {
        guard let range = tag.range(of: name + #"\s*=\s*"[^"]*""#, options: .regularExpression) else {
            return nil
        }
        return Double(tag[range].split(separator: "\"").dropFirst().first ?? "")
    }
}
