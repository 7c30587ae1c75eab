import CLibraryLoader
import Foundation
import Testing

/// The loader behind the libraries geofence opens when first used (libcurl, libmicrohttpd,
/// libgps): what it finds, and what it says when it cannot.
@Suite struct LibraryLoaderTests {
    /// Loads `functions` from the first of `names`: the message (`nil` when all were found) and
    /// what was found for each function.
    private func load(_ names: [String], _ functions: [String]) -> (
        problem: String?, found: [UnsafeMutableRawPointer?]
    ) {
        var problem = [CChar](repeating: 0, count: 512)
        let nameStrings = names.map { strdup($0) }
        let functionStrings = functions.map { strdup($0) }
        let found = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: functions.count)
        found.initialize(repeating: nil, count: functions.count)
        defer {
            nameStrings.forEach { free($0) }
            functionStrings.forEach { free($0) }
            found.deallocate()
        }
        let slots = (0..<functions.count).map { Optional(found + $0) }
        let loaded = geofence_load_library(
            nameStrings.map { UnsafePointer($0) }, names.count, "a test",
            functionStrings.map { UnsafePointer($0) },
            slots, functions.count, &problem, problem.count)
        return (
            loaded == 1 ? nil : String(cString: problem),
            Array(UnsafeBufferPointer(start: found, count: functions.count))
        )
    }

    @Test func theFirstLibraryFoundGivesItsFunctions() {
        let (problem, found) = load(["libgeofence-no-such-library.so.1", "libm.so.6"], ["cos", "sin"])
        #expect(problem == nil)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0 != nil })
    }

    @Test func aLibraryNotFoundIsNamedWithItsPackage() {
        let (problem, found) = load(["libgeofence-no-such-library.so.1"], ["cos"])
        #expect(
            problem?.hasPrefix("cannot load libgeofence-no-such-library.so.1 (the a test package): ") == true)
        #expect(found == [nil])
    }

    @Test func aMissingFunctionIsNamed() {
        let (problem, found) = load(["libm.so.6"], ["cos", "geofence_no_such_function"])
        #expect(problem == "libm.so.6 has no geofence_no_such_function")
        #expect(found[0] != nil)
        #expect(found[1] == nil)
    }
}
