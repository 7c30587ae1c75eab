import Foundation
import GeofenceRules

/// libFuzzer entry: any bytes as a rules file. The loader must answer with rules or diagnostics,
/// never trap, overflow the stack or run away.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRules(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = RulesLoader.parse(text, file: "fuzz.yaml", baseDirectory: URL(fileURLWithPath: "/nonexistent"))
    return 0
}
