import Foundation

/// Headless Chromium (Debian's `chromium`, installed by `make setup`), run on a local file with no
/// network: a screenshot, or the DOM after layout.
struct Chromium {
    let executable: String

    /// Finds `chromium` on PATH or in /usr/bin; a missing browser is a failure that says how to get
    /// it, never a silent skip.
    static func find() throws -> Chromium {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(
            String.init)
        for directory in directories + ["/usr/bin", "/usr/local/bin"] {
            for name in ["chromium", "chromium-browser"] {
                let path = directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: path) { return Chromium(executable: path) }
            }
        }
        throw HarnessError(
            "chromium not found on PATH or in /usr/bin: run `make setup` (it installs Debian's chromium package)"
        )
    }

    /// Renders `page` at `width` × `height` to a PNG and returns its bytes.
    func screenshot(of page: String, width: Int, height: Int, in scratch: ScratchDirectory) throws -> Data {
        let output = scratch.file("shot-\(UUID().uuidString).png")
        _ = try run(
            [
                "--screenshot=\(output)", "--window-size=\(width),\(height)", "--hide-scrollbars",
                fileURL(page),
            ],
            in: scratch)
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// The DOM after the page has been parsed and laid out.
    func dumpDOM(of page: String, in scratch: ScratchDirectory) throws -> String {
        try run(["--dump-dom", fileURL(page)], in: scratch)
    }

    private func fileURL(_ path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    /// Runs Chromium with its standard output in a file (no pipe to fill) and polls with a generous
    /// limit: a loaded two-core machine under a sanitizer can take long to start a browser.
    private func run(_ arguments: [String], in scratch: ScratchDirectory) throws -> String {
        let outputPath = scratch.file("chromium-\(UUID().uuidString).out")
        let errorPath = outputPath + ".err"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        FileManager.default.createFile(atPath: errorPath, contents: nil)
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--user-data-dir=\(scratch.file("profile"))",
            ] + arguments
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(180)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw HarnessError("chromium did not finish within 180 s")
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw HarnessError("chromium exited with \(process.terminationStatus): \(errors.suffix(2000))")
        }
        return output
    }
}
