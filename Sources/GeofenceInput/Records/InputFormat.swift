/// The formats tracker output can come in, as named on the command line (`--format`).
public enum InputFormat: String, CaseIterable, Sendable {
    /// Tell the format from each line: a JSON object with `_type` is OwnTracks, any other JSON
    /// object is the project's NDJSON, a line shaped like `ISO-time<TAB>topic<TAB>JSON` is an
    /// OwnTracks Recorder line, and a CSV header line starts CSV. GPX is told from a whole
    /// document (`<?xml` or `<gpx` at its start).
    case auto
    /// The project's own NDJSON: one fix or visit per line, AWARE-style field names.
    case ndjson
    /// OwnTracks JSON messages, one per line (`_type` location, transition, waypoint, ...).
    case owntracks
    /// OwnTracks Recorder `.rec` lines: `ISO-time<TAB>relative-topic<TAB>OwnTracks-JSON`.
    case rec
    /// A GPX 1.0 or 1.1 document: track points, route points and waypoints that carry a time.
    case gpx
    /// Comma-, semicolon- or tab-separated values with a header line naming the columns.
    case csv
    /// A JSON document of records, each read by its shape: Google Takeout `Records.json`, the
    /// phone's `Timeline.json`, Overland batches, GeoJSON FeatureCollections, the OwnTracks
    /// Recorder's `ocat` and API output, Home Assistant history (``JSONDocumentReader``).
    case json
    /// A JSON document whose records must all be Google Takeout locations.
    case takeout
    /// A JSON document whose records must all be GeoJSON point Features (Overland, GPSLogger,
    /// trackintel).
    case geojson
    /// A KML document: `gx:Track`s and timed Placemarks (``KMLReader``).
    case kml
    /// NMEA 0183 sentences, RMC/GGA/ZDA merged per epoch (``NMEAReader``).
    case nmea
    /// GeoLife `.plt` trajectories (``GeoLifeReader``).
    case geolife

    /// Whether the format is an XML document, read whole (by ``InputReader/readXML(_:format:source:deviceId:)``)
    /// rather than line by line, so never followed by run.
    public var isXMLDocument: Bool {
        switch self {
        case .gpx, .kml: true
        case .auto, .ndjson, .owntracks, .rec, .csv, .json, .takeout, .geojson, .nmea, .geolife: false
        }
    }

    /// The shape records of a JSON document must have in this format, if it is one.
    var documentShape: JSONDocumentReader.Expected? {
        switch self {
        case .json: .any
        case .takeout: .takeout
        case .geojson: .geojson
        default: nil
        }
    }
}
