public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh, empty, private directory for one test, removed with everything in it when released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's path, without a trailing slash.
    public let path: String

    /// Makes a new unique directory; `label` appears in its name, to tell leftovers apart.
    public init(_ label: String = "test") throws {
        path =
            NSTemporaryDirectory().replacingOccurrences(of: "/$", with: "", options: .regularExpression)
            + "/geofence-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The full path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` (replacing it), executable if asked.
    public func write(_ name: String, _ text: String, executable: Bool = false) throws {
        let full = file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        if executable { chmod(full, 0o755) }
    }

    /// Writes an executable shell script and returns its path.
    public func script(_ name: String, _ body: String) throws -> String {
        try write(name, "#!/bin/sh\n" + body + "\n", executable: true)
        return file(name)
    }

    /// Appends `text` to the file at `path`, creating it if needed, as a writing process would.
    public static func append(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw HarnessError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw HarnessError("short write to \(path)") }
    }

    /// The text of the file at `path`, or "" if it does not exist.
    public static func read(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The non-empty lines of the file at `path`.
    public static func lines(_ path: String) -> [String] {
        read(path).split(separator: "\n").map(String.init)
    }

    /// The permission bits of the file at `path`, or `nil` if it does not exist.
    public static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o777
    }
}
