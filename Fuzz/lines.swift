import Foundation
import GeofenceInput

/// libFuzzer entry: the first byte picks a line format (auto, NDJSON, OwnTracks, Recorder .rec,
/// CSV), the rest is read through the one streaming reader's line decoder, line by line. It must
/// return, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let formats: [InputFormat] = [.auto, .ndjson, .owntracks, .rec, .csv]
    let format = formats[Int(data[0]) % formats.count]
    let body = Data(bytes: data + 1, count: size - 1)
    let batch = InputReader.readAll(data: body, source: "fuzz", format: format, timeZone: .gmt, deviceId: nil)
    _ = batch.records.count + batch.errors.count
    return 0
}
