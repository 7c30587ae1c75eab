import Foundation
import GeofenceInput

/// libFuzzer entry: any bytes as a GPX document. It must return, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let batch = GPXReader.read(data: Data(bytes: data, count: size), source: "fuzz.gpx")
    _ = batch.records.count + batch.errors.count
    return 0
}
