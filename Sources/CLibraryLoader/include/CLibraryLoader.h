// Loading a C library when it is first needed (dlopen) rather than at every start: what the
// wrappers of libcurl, libmicrohttpd and libgps share.
#ifndef GEOFENCE_CLIBRARYLOADER_H
#define GEOFENCE_CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

/// Opens the first of `names` the dynamic loader finds, resolving all its symbols now, and finds
/// the functions `functions` names, each into the pointer `slots` gives at the same index.
/// Returns 1 when every one was found; else 0, with why in `problem` (which names `package`, the
/// Debian package that provides the library, when none could be opened).
int geofence_load_library(
    const char *const *names, size_t name_count, const char *package, const char *const *functions,
    void **const *slots, size_t function_count, char *problem, size_t problem_size);

/// A library opened on first use: whether its loading ran, whether it succeeded, and why not.
/// Define one per library as `static struct geofence_lazy_library library =
/// GEOFENCE_LAZY_LIBRARY_INIT;`.
struct geofence_lazy_library {
    pthread_once_t once;
    int ready;
    char problem[512];
};
#define GEOFENCE_LAZY_LIBRARY_INIT {PTHREAD_ONCE_INIT, 0, {0}}

/// Runs `load` for `library` once per process (later calls, from any thread, wait for the first
/// and get its answer): NULL when `load` set `ready`, else `problem`, which it filled.
const char *geofence_lazy_library_problem(struct geofence_lazy_library *library, void (*load)(void));

#endif
