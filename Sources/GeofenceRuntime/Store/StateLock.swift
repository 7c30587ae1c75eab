import Foundation

/// An exclusive lock on a state directory, held while a ``Store`` is open.
///
/// Two runs sharing one outbox would both see the same pending actions and both run them, so a
/// second store on the same directory is refused. The lock is `flock` on `<state>/lock`: the
/// kernel drops it when the holder exits, even by SIGKILL, so a crash never leaves it stale.
final class StateLock: Sendable {
    private let descriptor: Locked<Int32>

    /// Takes the lock on `directory`, or throws ``StoreError/locked(_:)`` if another store holds it.
    init(directory: String) throws {
        let path = directory + "/lock"
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else {
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(errno)))
        }
        // A hook being spawned at this very moment holds a copy of every descriptor until its
        // exec closes them (close-on-exec), and a run that is just exiting holds the lock until the
        // kernel reaps it; so a busy lock is tried again for a second before it counts as taken.
        var attempts = 0
        while flock(file, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            attempts += 1
            if reason == EWOULDBLOCK, attempts < 40 {
                usleep(25_000)
                continue
            }
            close(file)
            if reason == EWOULDBLOCK { throw StoreError.locked(directory) }
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(reason)))
        }
        try StateDirectory.restrict(path, mode: 0o600)
        descriptor = Locked(file)
    }

    deinit { release() }

    /// Releases the lock; later calls do nothing (the descriptor is never closed twice).
    func release() {
        descriptor.withLock { file in
            if file >= 0 { close(file) }
            file = -1
        }
    }
}
