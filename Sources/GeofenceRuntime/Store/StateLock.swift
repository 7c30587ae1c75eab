import Foundation
import Synchronization

/// An exclusive lock on a state directory, held while a ``Store`` is open.
///
/// Two runs sharing one outbox would both see the same pending actions and both run them, so a
/// second store on the same directory is refused. The lock is `flock` on `<state>/lock`: the
/// kernel drops it when the holder exits, even by SIGKILL, so a crash never leaves it stale.
final class StateLock: Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes the lock on `directory`, or throws ``StoreError/locked(_:)`` if another store holds it.
    init(directory: String) throws {
        let path = directory + "/lock"
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard file >= 0 else {
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(file)
            if reason == EWOULDBLOCK { throw StoreError.locked(directory) }
            throw StoreError.stateDirectory(path: path, reason: String(cString: strerror(reason)))
        }
        try StateDirectory.restrict(path, mode: 0o600)
        descriptor = Mutex(file)
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
