import CAllocator
import Foundation
import Geofence

// First: the memory of freed batches is kept for the next ones (see CAllocator.c).
let environment = ProcessInfo.processInfo.environment
_ = geofence_tune_allocator(
    environment["GLIBC_TUNABLES"], environment["MALLOC_TRIM_THRESHOLD_"],
    environment["MALLOC_MMAP_THRESHOLD_"])
let status = CommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
