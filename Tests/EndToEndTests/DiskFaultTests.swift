import Foundation
import GeofenceRuntime
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The store's disk failing under a run: full, read-only, corrupt. The full and read-only disks
/// are real filesystems (a small tmpfs), mounted by `unshare -rm` in a mount namespace of the
/// test's own: nothing outside the test sees them, and they vanish with the script that made them.
private enum DiskFault {
    /// Runs `script` with `sh` inside a new user and mount namespace, in `scratch`, with
    /// `$GEOFENCE` naming the built executable; returns its status (a hang guard, not a timing check).
    static func inNamespace(_ script: String, in scratch: TemporaryDirectory) throws -> Int32 {
        try scratch.write("fault.sh", script)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        child.arguments = ["-rm", "/bin/sh", scratch.file("fault.sh")]
        child.currentDirectoryURL = URL(fileURLWithPath: scratch.path)
        child.environment = ProcessInfo.processInfo.environment.merging([
            "GEOFENCE": try GeofenceCommand.executable().path
        ]) { $1 }
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        defer { end(child) }
        try waitUntil("the fault script to finish", seconds: 600) { !child.isRunning }
        child.waitUntilExit()
        return child.terminationStatus
    }

    /// The status a step of the script wrote to `name.status`.
    static func status(_ name: String, in scratch: TemporaryDirectory) -> Int32? {
        Int32(
            TemporaryDirectory.read(scratch.file(name + ".status")).trimmingCharacters(
                in: .whitespacesAndNewlines))
    }

    /// The ids of the events stored in the state directory `state`.
    static func storedEvents(_ state: String) throws -> [String] {
        let store = try Store(directory: state)
        defer { store.close() }
        return try store.events().map(\.id)
    }
}

extension EndToEnd {
    /// A disk that fills up under a run (a 160 KiB tmpfs holding the state directory): the
    /// commit that cannot be written stops the run with status 1 and "cannot write to the store"
    /// (no crash, no event claimed that is not stored); a restart on the same state with room
    /// again reads on from the last committed position and ends with exactly the events replay gives.
    @Test func aFullDiskStopsTheRunCleanlyAndTheRestartLosesNothing() throws {
        let scratch = try TemporaryDirectory("fulldisk")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        try scratch.write("fixes.ndjson", try DayFixtures.day(in: scratch).joined(separator: "\n") + "\n")
        let expected = DayFixtures.eventIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("fixes.ndjson"), in: scratch))
        try #require(expected.count >= 8)
        try FileManager.default.createDirectory(
            atPath: scratch.file("disk"), withIntermediateDirectories: true)
        let script = """
            mount -t tmpfs -o size=160k tmpfs disk || exit 90
            "$GEOFENCE" run rules.yaml --input fixes.ndjson --history --state disk/state > full.stdout 2> full.stderr
            echo $? > full.status
            cp -a disk/state state || exit 91
            """
        #expect(
            try DiskFault.inNamespace(script, in: scratch) == 0,
            "\(TemporaryDirectory.read(scratch.file("full.stderr")))")
        let stderr = TemporaryDirectory.read(scratch.file("full.stderr"))
        #expect(DiskFault.status("full", in: scratch) == 1, "stderr:\n\(stderr)")
        #expect(stderr.contains("cannot write to the store"), "stderr:\n\(stderr)")
        let before = try DiskFault.storedEvents(scratch.file("state"))
        #expect(before.count < expected.count, "the disk filled before the day ended")
        #expect(Array(expected.prefix(before.count)) == before)

        let restart = try GeofenceProcess(
            ["run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", scratch.file("state")],
            in: scratch.path, name: "restart")
        let ended = try restart.waitForExit(seconds: 300)
        #expect(!ended.signaled && ended.status == 0, "stderr:\n\(restart.stderr)")
        #expect(try DiskFault.storedEvents(scratch.file("state")) == expected)
    }

    /// A state directory on a filesystem that is read-only when the run starts (a tmpfs
    /// remounted read-only after a first run): the run refuses to start with status 1 and a
    /// message naming the store, without a crash and without reading input; once writable again,
    /// the next run reads on and ends with exactly the events replay gives for the whole day.
    @Test func aReadOnlyStateDirectoryIsRefusedAndTheLaterRunLosesNothing() throws {
        let scratch = try TemporaryDirectory("readonly")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("day.ndjson", day.joined(separator: "\n") + "\n")
        let expected = DayFixtures.eventIDs(
            try DayFixtures.replay(
                rules: scratch.file("rules.yaml"), input: scratch.file("day.ndjson"), in: scratch))
        try #require(expected.count >= 8)
        try scratch.write("fixes.ndjson", day.prefix(day.count / 2).joined(separator: "\n") + "\n")
        try scratch.write("rest.ndjson", day.dropFirst(day.count / 2).joined(separator: "\n") + "\n")
        try FileManager.default.createDirectory(
            atPath: scratch.file("disk"), withIntermediateDirectories: true)
        let run = "\"$GEOFENCE\" run rules.yaml --input fixes.ndjson --history --state disk/state"
        let script = """
            mount -t tmpfs -o size=64m tmpfs disk || exit 90
            \(run) > first.stdout 2> first.stderr; echo $? > first.status
            cat rest.ndjson >> fixes.ndjson
            mount -o remount,ro disk || exit 91
            \(run) > readonly.stdout 2> readonly.stderr; echo $? > readonly.status
            mount -o remount,rw disk || exit 92
            \(run) > again.stdout 2> again.stderr; echo $? > again.status
            cp -a disk/state state || exit 93
            """
        #expect(try DiskFault.inNamespace(script, in: scratch) == 0)
        #expect(
            DiskFault.status("first", in: scratch) == 0,
            "\(TemporaryDirectory.read(scratch.file("first.stderr")))")
        let readOnly = TemporaryDirectory.read(scratch.file("readonly.stderr"))
        #expect(DiskFault.status("readonly", in: scratch) == 1, "stderr:\n\(readOnly)")
        #expect(readOnly.contains("disk/state"), "the message names the store:\n\(readOnly)")
        #expect(readOnly.lowercased().contains("read-only"), "stderr:\n\(readOnly)")
        #expect(
            DiskFault.status("again", in: scratch) == 0,
            "\(TemporaryDirectory.read(scratch.file("again.stderr")))")
        #expect(try DiskFault.storedEvents(scratch.file("state")) == expected)
    }

    /// A database file damaged on disk (its header overwritten, or the whole file garbage):
    /// `run` stops at once with status 1 and a message naming the file, without a crash, and
    /// reads no input.
    @Test func aCorruptDatabaseIsReportedWithoutACrash() throws {
        let scratch = try TemporaryDirectory("corruptdb")
        try scratch.write("rules.yaml", DayFixtures.hookRules(hook: "/bin/true"))
        let day = try DayFixtures.day(in: scratch)
        try scratch.write("fixes.ndjson", day.prefix(200).joined(separator: "\n") + "\n")
        let arguments = [
            "run", "rules.yaml", "--input", "fixes.ndjson", "--history", "--state", scratch.file("state"),
        ]
        let first = try GeofenceProcess(arguments, in: scratch.path, name: "first")
        #expect(try first.waitForExit(seconds: 120).status == 0, "stderr:\n\(first.stderr)")
        let database = scratch.file("state/" + Store.fileName)
        for (name, damage) in [
            ("header", Data(repeating: 0x5A, count: 100)),
            ("garbage", Data(repeating: 0xA5, count: 64 * 1024)),
        ] {
            let handle = try #require(FileHandle(forWritingAtPath: database))
            if name == "garbage" { try handle.truncate(atOffset: 0) }
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: damage)
            try handle.close()
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            let run = try GeofenceProcess(arguments, in: scratch.path, name: name)
            let ended = try run.waitForExit(seconds: 120)
            #expect(!ended.signaled && ended.status == 1, "\(name): stderr:\n\(run.stderr)")
            #expect(
                run.stderr.contains(Store.fileName), "\(name): the message names the file:\n\(run.stderr)")
            #expect(
                run.stdout.isEmpty || !run.stdout.contains("inside"), "\(name): no input read:\n\(run.stdout)"
            )
        }
    }
}
