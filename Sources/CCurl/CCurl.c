#include "CCurl.h"

#include <CLibraryLoader.h>
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

static struct geofence_lazy_library library = GEOFENCE_LAZY_LIBRARY_INIT;

static void load(void) {
    static const char *const names[] = {library_name};
    static const char *const functions[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_cleanup", "curl_easy_perform", "curl_easy_strerror",
        "curl_slist_append", "curl_slist_free_all", "curl_easy_setopt", "curl_easy_getinfo"};
    void **const slots[] = {
        (void **)&curl.global_init, (void **)&curl.easy_init, (void **)&curl.easy_cleanup,
        (void **)&curl.easy_perform, (void **)&curl.easy_strerror, (void **)&curl.slist_append,
        (void **)&curl.slist_free_all, (void **)&curl.easy_setopt, (void **)&curl.easy_getinfo};
    if (!geofence_load_library(names, 1, "libcurl4", functions, slots, sizeof slots / sizeof slots[0],
            library.problem, sizeof library.problem)) {
        return;
    }
    // curl_global_init is not thread-safe: it runs here, once, under pthread_once.
    CURLcode code = curl.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(library.problem, sizeof library.problem, "libcurl's global set-up failed: %s",
            curl.easy_strerror(code));
        return;
    }
    library.ready = 1;
}

const char *geofence_curl_load(void) { return geofence_lazy_library_problem(&library, load); }

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
