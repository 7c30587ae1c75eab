import Foundation
import GeofenceInput

/// libFuzzer entry: the first byte picks a format added after the first readers (a JSON document
/// told by its shape: Google Takeout, the phone's Timeline, Overland, GeoJSON, the Recorder's
/// `ocat` and API output, Home Assistant history; Takeout and GeoJSON by name; KML; NMEA 0183;
/// GeoLife `.plt`; CSV; or told from the bytes), the rest is read by ``InputReader``, as `replay`
/// and `run` read a file. It must return, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocuments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let formats: [InputFormat] = [.json, .takeout, .geojson, .kml, .nmea, .geolife, .csv, .auto]
    let format = formats[Int(data[0]) % formats.count]
    let body = Data(bytes: data + 1, count: size - 1)
    let batch = InputReader.readAll(data: body, source: "fuzz", format: format, timeZone: .gmt, deviceId: nil)
    _ = batch.records.count + batch.errors.count
    return 0
}
