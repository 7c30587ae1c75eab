import Foundation
import TestSupport
import Testing

import struct GeofenceInput.InputLine

@testable import GeofenceRuntime

/// What a follower said, in order: lines by their text, events by name.
struct Transcript {
    var updates: [FileFollower.Update] = []

    var lines: [InputLine] {
        updates.flatMap { update -> [InputLine] in
            if case .lines(let lines, _) = update { return lines }
            return []
        }
    }

    var texts: [String] { lines.map(\.text) }

    var events: [FileFollower.Event] {
        updates.compactMap { update in
            if case .event(let event) = update { return event }
            return nil
        }
    }

    /// Lines as their text and the named events as `<name>`, in the order they came.
    func log(
        keeping names: Set<String> = [
            "opened", "resumed", "finishing", "notFound", "rotated", "truncated", "missing",
        ]
    )
        -> [String]
    {
        updates.flatMap { update -> [String] in
            switch update {
            case .lines(let lines, _): return lines.map(\.text)
            case .event(let event):
                let name = Self.name(event)
                return names.contains(name) ? ["<\(name)>"] : []
            }
        }
    }

    static func name(_ event: FileFollower.Event) -> String {
        switch event {
        case .opened: "opened"
        case .resumed: "resumed"
        case .finishingPreviousFile: "finishing"
        case .previousFileNotFound: "notFound"
        case .rotated: "rotated"
        case .truncated: "truncated"
        case .missing: "missing"
        }
    }

    /// The position after the last batch of lines.
    var lastPosition: FilePosition? {
        for update in updates.reversed() {
            if case .lines(_, let position) = update { return position }
        }
        return nil
    }
}

/// Makes a follower that a hang guard cancels after 30 s, so a broken follower fails the test
/// (with missing lines) instead of hanging it. The guard never decides a pass.
private func follower(
    _ path: String, at position: FilePosition? = nil, follow: Bool = true, maxLineBytes: Int = 1 << 20,
    chunkBytes: Int = 1 << 16
) -> FileFollower {
    let cancellation = InputCancellation()
    DispatchQueue.global().asyncAfter(deadline: .now() + 30) { cancellation.cancel() }
    return FileFollower(
        path: path, startingAt: position, follow: follow, pollInterval: 0.02, maxLineBytes: maxLineBytes,
        chunkBytes: chunkBytes, cancellation: cancellation)
}

/// Reads until `done` holds or the follower ends.
private func collect(
    _ follower: FileFollower, into transcript: inout Transcript, until done: (Transcript) -> Bool
) throws {
    while !done(transcript) {
        guard let update = try follower.next() else { return }
        transcript.updates.append(update)
    }
}

/// Reads until `count` lines in all have come.
private func collect(_ follower: FileFollower, into transcript: inout Transcript, lines count: Int) throws {
    try collect(follower, into: &transcript) { $0.lines.count >= count }
}

/// Appends `text` to `path` in one write, creating the file if needed.
private func append(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw InputFileError(path: path, operation: "open", code: errno) }
    defer { close(descriptor) }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw InputFileError(path: path, operation: "write", code: errno) }
}

private func numbered(_ range: ClosedRange<Int>) -> String {
    range.map { "\($0)\n" }.joined()
}

private func texts(_ range: ClosedRange<Int>) -> [String] { range.map(String.init) }

/// Runs a shell script to its end.
private func shell(_ script: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    try process.run()
    return process
}

private func identity(_ path: String) throws -> String {
    try FileStatus.of(path: path).get().identity
}

@Suite struct FileFollowerTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    private var path: String { directory.file("fixes.ndjson") }

    @Test func aFileNotFollowedIsReadToItsEndWithItsUnterminatedLastLine() throws {
        try append("one\r\ntwo\n\nthree", to: path)
        let reader = follower(path, follow: false)
        var transcript = Transcript()
        try collect(reader, into: &transcript) { _ in false }
        #expect(transcript.log() == ["<opened>", "one", "two", "", "three"])
        #expect(transcript.lines.map(\.number) == [1, 2, 3, 4])
        #expect(transcript.lines.map(\.endOffset) == [5, 9, 10, 15])
        #expect(transcript.lastPosition == FilePosition(identity: try identity(path), offset: 15, line: 4))
        #expect(try reader.next() == nil)
    }

    @Test func bytesThatAreNotUTF8AreDeliveredAsReplacementCharacters() throws {
        _ = FileManager.default.createFile(
            atPath: path, contents: Data([0x61, 0xFF, 0x62, 0x0A, 0x63, 0x0A]))
        var transcript = Transcript()
        try collect(follower(path, follow: false), into: &transcript) { _ in false }
        #expect(transcript.texts == ["a\u{FFFD}b", "c"])
        #expect(transcript.lines.map(\.byteCount) == [3, 1])
    }

    @Test func aLineOverTheLimitIsMarkedTooLongAndTheNextLineIsIntact() throws {
        // Chunks of 4 bytes make the long line arrive in pieces, as a large one would.
        try append(
            "short\n" + String(repeating: "x", count: 25) + "\nafter\n" + String(repeating: "y", count: 12),
            to: path)
        var transcript = Transcript()
        try collect(follower(path, follow: false, maxLineBytes: 10, chunkBytes: 4), into: &transcript) { _ in
            false
        }
        #expect(transcript.texts == ["short", "", "after", ""])
        #expect(transcript.lines.map(\.isTooLong) == [false, true, false, true])
        #expect(transcript.lines.map(\.byteCount) == [5, 25, 5, 12])
        #expect(transcript.lines.map(\.endOffset) == [6, 32, 38, 50])
        #expect(transcript.lines.map(\.number) == [1, 2, 3, 4])
    }

    @Test func aMissingFileThatIsNotFollowedIsAnError() throws {
        #expect(throws: InputFileError(path: path, operation: "open", code: ENOENT)) {
            _ = try follower(path, follow: false).next()
        }
    }

    @Test func linesAppendedByAnotherProcessArriveInOrder() throws {
        try append("", to: path)
        let reader = follower(path)
        var transcript = Transcript()
        try collect(reader, into: &transcript) { !$0.events.isEmpty }
        let writer = try shell("i=1; while [ $i -le 300 ]; do echo $i >> '\(path)'; i=$((i+1)); done")
        try collect(reader, into: &transcript, lines: 300)
        writer.waitUntilExit()
        #expect(transcript.log() == ["<opened>"] + texts(1...300))
        #expect(transcript.lines.map(\.number) == (1...300).map(Int64.init))
    }

    @Test func aPartialLineIsHeldBackUntilItsNewlineArrives() throws {
        try append("first\npar", to: path)
        let reader = follower(path)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 1)
        #expect(transcript.texts == ["first"])
        #expect(transcript.lastPosition?.offset == 6)
        #expect(reader.position?.offset == 6)
        try append("tial\nlast\n", to: path)
        try collect(reader, into: &transcript, lines: 3)
        #expect(transcript.texts == ["first", "partial", "last"])
        #expect(transcript.lastPosition?.offset == 19)
    }

    @Test func rotationInTheMiddleLosesNothingAndRepeatsNothing() throws {
        try append(numbered(1...50), to: path)
        let reader = follower(path)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 50)
        let old = try identity(path)
        // As logrotate with `create`: rename and create an empty file; the writer goes on appending
        // to the renamed file until it is told to reopen, then writes to the new one. The pauses
        // only make the follower likely to look in between; the expectation holds either way.
        let quoted = "'\(path)'"
        let writer = try shell(
            """
            i=51; while [ $i -le 100 ]; do echo $i >> \(quoted); i=$((i+1)); done
            mv \(quoted) \(quoted).1
            sleep 0.2
            : > \(quoted)
            sleep 0.2
            i=101; while [ $i -le 120 ]; do echo $i >> \(quoted).1; i=$((i+1)); done
            sleep 0.2
            i=121; while [ $i -le 200 ]; do echo $i >> \(quoted); i=$((i+1)); done
            """)
        try collect(reader, into: &transcript, lines: 200)
        writer.waitUntilExit()
        #expect(transcript.log(keeping: ["rotated"]) == texts(1...120) + ["<rotated>"] + texts(121...200))
        #expect(transcript.events.contains(.rotated(from: old, to: try identity(path))))
        let afterRotation = transcript.lines.suffix(80)
        #expect(afterRotation.map(\.number) == (1...80).map(Int64.init))
        #expect(transcript.lastPosition?.identity == (try identity(path)))
    }

    @Test func copytruncateRestartsFromTheStartAndSaysSo() throws {
        try append(numbered(1...3), to: path)
        let reader = follower(path)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 3)
        #expect(truncate(path, 0) == 0)
        try collect(reader, into: &transcript) {
            !$0.events.filter { Transcript.name($0) == "truncated" }.isEmpty
        }
        #expect(transcript.events.last == .truncated(identity: try identity(path), atOffset: 6))
        try append("4\n5\n", to: path)
        try collect(reader, into: &transcript, lines: 5)
        #expect(transcript.log() == ["<opened>", "1", "2", "3", "<truncated>", "4", "5"])
        #expect(transcript.lines.suffix(2).map(\.number) == [1, 2])
        #expect(transcript.lines.suffix(2).map(\.endOffset) == [2, 4])
    }

    @Test func aMissingFileIsWaitedForAndReadWhenItAppearsAndAgainWhenReplaced() throws {
        let reader = follower(path)
        var transcript = Transcript()
        try collect(reader, into: &transcript) { !$0.events.isEmpty }
        #expect(transcript.events == [.missing])
        try append("a\nb\n", to: path)
        try collect(reader, into: &transcript, lines: 2)
        let first = try identity(path)
        try FileManager.default.removeItem(atPath: path)
        try collect(reader, into: &transcript) { $0.events.count >= 3 }
        // The old file is still open, so the new one cannot get its inode.
        try append("c\n", to: path)
        try collect(reader, into: &transcript, lines: 3)
        #expect(transcript.log() == ["<missing>", "<opened>", "a", "b", "<missing>", "<rotated>", "c"])
        #expect(transcript.events.contains(.rotated(from: first, to: try identity(path))))
    }

    @Test func aRestartResumesAfterTheStoredPositionRepeatingAndSkippingNothing() throws {
        try append(numbered(1...5), to: path)
        var first = Transcript()
        try collect(follower(path, follow: false), into: &first) { _ in false }
        // The run committed the first three lines, then stopped.
        let third = try #require(first.lines.first { $0.number == 3 })
        let committed = FilePosition(
            identity: try identity(path), offset: third.endOffset, line: third.number)
        let state = directory.file("state")
        let store = try Store(directory: state)
        try store.commit(Step(inputPositions: [committed.inputPosition(input: path)]))
        store.close()
        let reopened = try Store(directory: state)
        let stored = try #require(try reopened.inputPosition(path).flatMap(FilePosition.init))
        #expect(stored == committed)

        let reader = follower(path, at: stored)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 2)
        try append("6\n", to: path)
        try collect(reader, into: &transcript, lines: 3)
        #expect(transcript.log() == ["<resumed>", "4", "5", "6"])
        #expect(transcript.events.first == .resumed(committed))
        #expect(transcript.lines.map(\.number) == [4, 5, 6])
        #expect(transcript.lastPosition == FilePosition(identity: committed.identity, offset: 12, line: 6))
    }

    @Test func aFileRotatedWhileStoppedIsFinishedUnderItsNewNameFirst() throws {
        try append(numbered(1...5), to: path)
        let committed = FilePosition(identity: try identity(path), offset: 6, line: 3)
        // While geofence was down: rotated, one more line to the old file, then the new file.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try append("6\n", to: path + ".1")
        try append("7\n8\n", to: path)
        let reader = follower(path, at: committed)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 5)
        #expect(transcript.log() == ["<finishing>", "4", "5", "6", "<rotated>", "7", "8"])
        #expect(transcript.events.first == .finishingPreviousFile(path: path + ".1", from: committed))
        #expect(transcript.events.last == .rotated(from: committed.identity, to: try identity(path)))
        #expect(transcript.lines.map(\.number) == [4, 5, 6, 1, 2])
    }

    @Test func aReplayFinishesARotatedFileBeforeTheNewOneToo() throws {
        try append(numbered(1...5), to: path)
        let committed = FilePosition(identity: try identity(path), offset: 6, line: 3)
        try FileManager.default.moveItem(atPath: path, toPath: directory.file("fixes-20260301.ndjson"))
        try append("7\n8", to: path)
        var transcript = Transcript()
        try collect(follower(path, at: committed, follow: false), into: &transcript) { _ in false }
        #expect(transcript.log() == ["<finishing>", "4", "5", "<rotated>", "7", "8"])
    }

    @Test func aFileRotatedAndDeletedWhileStoppedIsReportedAndTheNewOneReadFromItsStart() throws {
        try append(numbered(1...5), to: path)
        let committed = FilePosition(identity: try identity(path), offset: 6, line: 3)
        // The new file is made before the old one is deleted, so it cannot reuse the old inode.
        try FileManager.default.moveItem(atPath: path, toPath: path + ".1")
        try append("7\n8\n", to: path)
        try FileManager.default.removeItem(atPath: path + ".1")
        let reader = follower(path, at: committed)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 2)
        #expect(transcript.log() == ["<notFound>", "<rotated>", "7", "8"])
        #expect(
            transcript.events == [
                .previousFileNotFound(committed), .rotated(from: committed.identity, to: try identity(path)),
            ])
    }

    @Test func aFileTruncatedWhileStoppedIsReadFromItsStart() throws {
        try append("a\nb\n", to: path)
        let stale = FilePosition(identity: try identity(path), offset: 100, line: 40)
        let reader = follower(path, at: stale)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 2)
        #expect(transcript.log() == ["<truncated>", "a", "b"])
        #expect(transcript.events == [.truncated(identity: stale.identity, atOffset: 100)])
    }

    @Test func aSymbolicLinkPointedAtNextMonthsFileIsFollowedAsARotation() throws {
        // OwnTracks Recorder writes YYYY-MM.rec; a link that a timer re-points each month is followed.
        let march = directory.file("2026-03.rec"), april = directory.file("2026-04.rec")
        let link = directory.file("current.rec")
        try append("m1\nm2\n", to: march)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "2026-03.rec")
        let reader = follower(link)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 2)
        try append("m3\n", to: march)
        try append("a1\n", to: april)
        // Re-pointed atomically, as `ln -sfn` followed by `mv -T` does.
        try FileManager.default.createSymbolicLink(atPath: link + ".new", withDestinationPath: "2026-04.rec")
        #expect(rename(link + ".new", link) == 0)
        try collect(reader, into: &transcript, lines: 4)
        try append("a2\n", to: april)
        try collect(reader, into: &transcript, lines: 5)
        #expect(transcript.log() == ["<opened>", "m1", "m2", "m3", "<rotated>", "a1", "a2"])
        #expect(transcript.events.last == .rotated(from: try identity(march), to: try identity(april)))
    }

    @Test func aLinkRePointedWhileStoppedFinishesLastMonthsFileInTheLinksTargetDirectory() throws {
        // The documented Recorder setup: the link sits in the state directory, the files elsewhere.
        let recorder = directory.file("rec")
        try FileManager.default.createDirectory(atPath: recorder, withIntermediateDirectories: true)
        let march = recorder + "/2026-03.rec", april = recorder + "/2026-04.rec"
        let link = directory.file("current.rec")
        try append("m1\nm2\n", to: march)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: march)
        let committed = FilePosition(identity: try identity(march), offset: 3, line: 1)
        // While stopped: one more fix in March, then April began and the timer re-pointed the link.
        try append("m3\n", to: march)
        try append("a1\n", to: april)
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: april)
        let reader = follower(link, at: committed)
        var transcript = Transcript()
        try collect(reader, into: &transcript, lines: 3)
        #expect(transcript.log() == ["<finishing>", "m2", "m3", "<rotated>", "a1"])
        #expect(transcript.events.first == .finishingPreviousFile(path: march, from: committed))
    }

    @Test func theAsyncSequenceDeliversLinesAnotherProcessAppends() async throws {
        try append("", to: path)
        let writer = try shell("i=1; while [ $i -le 100 ]; do echo $i >> '\(path)'; i=$((i+1)); done")
        let path = self.path
        let reading = Task {
            var texts: [String] = []
            var events: [FileFollower.Event] = []
            for try await update in FileFollower.updates(path: path, pollInterval: 0.02) {
                switch update {
                case .lines(let lines, _): texts += lines.map(\.text)
                case .event(let event): events.append(event)
                }
                if texts.count >= 100 { break }
            }
            return (texts, events)
        }
        // A hang guard: a stuck reader is cancelled and fails on its missing lines.
        let hangGuard = Task {
            try await Task.sleep(for: .seconds(30))
            reading.cancel()
        }
        let (texts, events) = try await reading.value
        hangGuard.cancel()
        writer.waitUntilExit()
        #expect(texts == (1...100).map(String.init))
        #expect(events == [.opened(identity: try identity(path))])
    }

    @Test func cancellingTheTaskEndsTheAsyncSequence() async throws {
        try append("only\n", to: path)
        let path = self.path
        let task = Task {
            var texts: [String] = []
            for try await update in FileFollower.updates(path: path, pollInterval: 0.02) {
                if case .lines(let lines, _) = update { texts += lines.map(\.text) }
            }
            return texts
        }
        // Cancelling at any moment must end the loop; what was read by then is a prefix.
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let texts = try await task.value
        #expect(texts == [] || texts == ["only"])
    }
}

@Suite struct StandardInputReaderTests {
    @Test func linesArriveAsWrittenAndTheLastOneWithoutANewlineAtTheEnd() throws {
        let pipe = Pipe()
        let reader = StandardInputReader(
            descriptor: pipe.fileHandleForReading.fileDescriptor, pollInterval: 0.02)
        let writer = pipe.fileHandleForWriting
        writer.write(Data("one\ntw".utf8))
        var texts: [String] = []
        var numbers: [Int64] = []
        func take() throws {
            let lines = try #require(try reader.next())
            texts += lines.map(\.text)
            numbers += lines.map(\.number)
        }
        try take()
        #expect(texts == ["one"])
        writer.write(Data("o\r\nthree".utf8))
        try take()
        try writer.close()
        try take()
        #expect(texts == ["one", "two", "three"])
        #expect(numbers == [1, 2, 3])
        #expect(try reader.next() == nil)
    }

    @Test func theAsyncLinesEndWithTheInput() async throws {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        writer.write(Data(numbered(1...50).utf8))
        try writer.close()
        var texts: [String] = []
        for try await lines in StandardInputReader.lines(descriptor: pipe.fileHandleForReading.fileDescriptor)
        {
            texts += lines.map(\.text)
        }
        #expect(texts == (1...50).map(String.init))
    }
}
