#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// libcurl's ABI has been that of soname 4 since 2006.
static const char *const library_name = "libcurl.so.4";

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char problem[512];
static int ready;

// Finds a function, or says which is missing; 0 when missing.
static int find(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) snprintf(problem, sizeof problem, "%s has no %s", library_name, name);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(problem, sizeof problem, "cannot load %s (the libcurl4 package): %s", library_name,
            why ? why : "unknown error");
        return;
    }
    if (!find(library, "curl_global_init", (void **)&curl.global_init)
        || !find(library, "curl_easy_init", (void **)&curl.easy_init)
        || !find(library, "curl_easy_cleanup", (void **)&curl.easy_cleanup)
        || !find(library, "curl_easy_perform", (void **)&curl.easy_perform)
        || !find(library, "curl_easy_strerror", (void **)&curl.easy_strerror)
        || !find(library, "curl_slist_append", (void **)&curl.slist_append)
        || !find(library, "curl_slist_free_all", (void **)&curl.slist_free_all)
        || !find(library, "curl_easy_setopt", (void **)&curl.easy_setopt)
        || !find(library, "curl_easy_getinfo", (void **)&curl.easy_getinfo)) {
        // The library stays loaded: nothing here is worth the risk of unloading it.
        return;
    }
    // curl_global_init is not thread-safe: it runs here, once, under pthread_once.
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(problem, sizeof problem, "libcurl's global set-up failed: %s", curl.easy_strerror(code));
        return;
    }
    ready = 1;
}

const char *geofence_curl_load(void) {
    pthread_once(&once, load);
    return ready ? NULL : problem;
}

CURL *geofence_curl_easy_init(void) { return curl.easy_init(); }
void geofence_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLcode geofence_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *geofence_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

struct curl_slist *geofence_curl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}

void geofence_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode geofence_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode geofence_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode geofence_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode geofence_curl_set_write(
    CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *context) {
    CURLcode code = curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl.easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

CURLcode geofence_curl_response_code(CURL *handle, long *code) {
    return curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
