#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>

int geofence_load_library(
    const char *const *names, size_t name_count, const char *package, const char *const *functions,
    void **const *slots, size_t function_count, char *problem, size_t problem_size) {
    void *library = NULL;
    const char *name = name_count > 0 ? names[0] : "";
    for (size_t i = 0; i < name_count && library == NULL; i++) {
        name = names[i];
        library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(problem, problem_size, "cannot load %s (the %s package): %s", name, package,
            why ? why : "unknown error");
        return 0;
    }
    for (size_t i = 0; i < function_count; i++) {
        *slots[i] = dlsym(library, functions[i]);
        if (*slots[i] == NULL) {
            // The library stays loaded: unloading one that may have started threads is not safe.
            snprintf(problem, problem_size, "%s has no %s", name, functions[i]);
            return 0;
        }
    }
    return 1;
}

const char *geofence_lazy_library_problem(struct geofence_lazy_library *library, void (*load)(void)) {
    pthread_once(&library->once, load);
    return library->ready ? NULL : library->problem;
}
