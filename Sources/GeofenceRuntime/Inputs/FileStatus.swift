import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the follower needs to know of a file: which one it is and how long.
struct FileStatus: Equatable {
    /// `device:inode`, the same for every name of one file and different for a new file.
    var identity: String
    /// The size in bytes.
    var size: Int64

    /// The file at `path`, following symbolic links (a link re-pointed to a new file is a
    /// rotation), or the `errno` of the failure.
    static func of(path: String) -> Result<FileStatus, InputFileError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(InputFileError(path: path, operation: "stat", code: errno))
        }
        return .success(FileStatus(info))
    }

    /// The file open on `descriptor`.
    static func of(descriptor: Int32, path: String) -> Result<FileStatus, InputFileError> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return .failure(InputFileError(path: path, operation: "stat", code: errno))
        }
        return .success(FileStatus(info))
    }

    private init(_ info: stat) {
        identity = "\(UInt64(info.st_dev)):\(UInt64(info.st_ino))"
        size = Int64(info.st_size)
    }

    init(identity: String, size: Int64) {
        self.identity = identity
        self.size = size
    }
}

/// The C library's file calls, under names that the follower's own methods do not hide.
enum FileCalls {
    /// Opens `path` for reading, close-on-exec so hooks never inherit it.
    static func openForReading(_ path: String) -> Result<Int32, InputFileError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(InputFileError(path: path, operation: "open", code: errno))
        }
        return .success(descriptor)
    }

    /// Reads up to `count` bytes at `offset` (retrying an interrupted call); 0 at the end.
    static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String
    ) throws(InputFileError) -> Int {
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw InputFileError(path: path, operation: "read", code: errno)
        }
    }

    /// Closes a descriptor the follower opened.
    static func closeFile(_ descriptor: Int32) {
        _ = close(descriptor)
    }
}
