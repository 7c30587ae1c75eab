#include "CAllocator.h"

#include <malloc.h>
#include <string.h>

// Why: by default glibc hands the free top of a heap back to the kernel once it passes about twice
// the largest block it has mapped on its own, and the batches of lines and records that `run`'s
// threads hand to each other (hundreds of KiB each, freed on another thread than the one that
// made them) kept crossing that line: every batch's memory was given back and faulted in again,
// page by page (20,000 page faults in `run --history` of a million fixes, 1,900 in `replay` of the
// same file). Setting either threshold also stops glibc from moving them by itself.
int geofence_tune_allocator(const char *tunables, const char *trim_variable, const char *mmap_variable) {
#if defined(__GLIBC__)
    if (trim_variable != NULL || mmap_variable != NULL) return 0;
    if (tunables != NULL
        && (strstr(tunables, "glibc.malloc.trim_threshold") != NULL
            || strstr(tunables, "glibc.malloc.mmap_threshold") != NULL))
        return 0;
    // mallopt's answers are not needed: glibc takes both values, and a sanitizer's allocator,
    // which replaces it in the test builds, refuses every option and keeps its own ways.
    mallopt(M_MMAP_THRESHOLD, GEOFENCE_ALLOCATOR_MAP_FROM);
    mallopt(M_TRIM_THRESHOLD, GEOFENCE_ALLOCATOR_KEEP_FREE);
    return 1;
#else
    (void)tunables;
    (void)trim_variable;
    (void)mmap_variable;
    return 0;
#endif
}
