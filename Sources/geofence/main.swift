import CAllocator
import Foundation
import Geofence

// First: the memory of freed batches is kept for the next ones (see CAllocator.c).
_ = geofence_tune_allocator(
    getenv("GLIBC_TUNABLES"), getenv("MALLOC_TRIM_THRESHOLD_"), getenv("MALLOC_MMAP_THRESHOLD_"))
let status = CommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
