import Foundation

/// Creates the state directory and its files readable by their owner only.
///
/// A location history is personal data. Directories are made with mode 0700 and files with 0600
/// explicitly (chmod after creating), rather than by changing the umask, which is per process and
/// would race with other threads.
enum StateDirectory {
    /// Makes `path` and any missing parents, each new one with mode 0700. An existing directory's
    /// mode is left alone (it may be one the user chose, such as their home); the files in it are
    /// private either way.
    static func create(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError.stateDirectory(path: path, reason: "not a directory")
            }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try create(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(errno)))
        }
        // mkdir's mode is filtered by the umask, which could only remove bits; chmod makes it exact.
        try restrict(path, mode: 0o700)
    }

    /// Creates `path` as an empty file with mode 0600 if it does not exist, and gives it mode 0600
    /// if it does (SQLite then creates its -wal and -shm files with the same mode).
    static func createPrivateFile(_ path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(errno)))
        }
        close(descriptor)
        try restrict(path, mode: 0o600)
    }

    /// Sets the mode of `path` if it exists.
    static func restrict(_ path: String, mode: mode_t) throws {
        if chmod(path, mode) != 0 && errno != ENOENT {
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
