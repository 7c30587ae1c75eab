// The C library's allocator, tuned once at the start of the `geofence` command.
#ifndef GEOFENCE_CALLOCATOR_H
#define GEOFENCE_CALLOCATOR_H

/// The size from which a block is mapped on its own (and unmapped when freed), in bytes.
#define GEOFENCE_ALLOCATOR_MAP_FROM (4 << 20)
/// How much free memory at the top of a heap is kept for the next allocations rather than handed
/// back to the kernel, in bytes.
#define GEOFENCE_ALLOCATOR_KEEP_FREE (8 << 20)

/// Has glibc's malloc keep up to `GEOFENCE_ALLOCATOR_KEEP_FREE` bytes of freed memory at the top
/// of each heap, and map on their own only blocks of `GEOFENCE_ALLOCATOR_MAP_FROM` bytes or more,
/// unless `tunables` (the value of GLIBC_TUNABLES, or NULL) already sets either, or
/// `trim_variable`/`mmap_variable` (MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_, or NULL)
/// are set: what the user chose is left alone. Returns 1 when it set them, 0 when it left them.
int geofence_tune_allocator(const char *tunables, const char *trim_variable, const char *mmap_variable);

#endif
