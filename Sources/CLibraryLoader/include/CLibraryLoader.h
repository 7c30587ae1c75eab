// Loading a C library when it is first needed (dlopen) rather than at every start: what the
// wrappers of libcurl, libmicrohttpd and libgps share.
#ifndef GEOFENCE_CLIBRARYLOADER_H
#define GEOFENCE_CLIBRARYLOADER_H

#include <stddef.h>

/// Opens the first of `names` the dynamic loader finds, resolving all its symbols now, and finds
/// the functions `functions` names, each into the pointer `slots` gives at the same index.
/// Returns 1 when every one was found; else 0, with why in `problem` (which names `package`, the
/// Debian package that provides the library, when none could be opened).
int geofence_load_library(
    const char *const *names, size_t name_count, const char *package, const char *const *functions,
    void **const *slots, size_t function_count, char *problem, size_t problem_size);

#endif
