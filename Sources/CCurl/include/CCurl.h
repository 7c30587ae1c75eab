// libcurl, the HTTP client behind the `post:` action, loaded when the first POST is made.
//
// Why not linked: libcurl and what it needs are some thirty shared libraries (TLS, Kerberos,
// LDAP, SSH, IDN, compression...), and the dynamic loader mapped and resolved all of them at the
// start of every geofence command, most of which never post: about a third of `geofence
// --version`'s run. Only libcurl's types and constants come from its header here; its functions
// are reached through the pointers geofence_curl_load finds.
#ifndef GEOFENCE_CCURL_H
#define GEOFENCE_CCURL_H

#include <curl/curl.h>

/// Loads libcurl (once per process; later calls return the first call's answer) and runs its
/// global set-up. NULL when it is ready, else why not (no libcurl, a function missing, the set-up
/// failed). Call it before any other function here.
const char *geofence_curl_load(void);

CURL *geofence_curl_easy_init(void);
void geofence_curl_easy_cleanup(CURL *handle);
CURLcode geofence_curl_easy_perform(CURL *handle);
const char *geofence_curl_easy_strerror(CURLcode code);
struct curl_slist *geofence_curl_slist_append(struct curl_slist *list, const char *text);
void geofence_curl_slist_free_all(struct curl_slist *list);

// curl_easy_setopt and curl_easy_getinfo are C variadic functions, which Swift cannot call: one
// typed wrapper per kind of argument geofence passes.
CURLcode geofence_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode geofence_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode geofence_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode geofence_curl_set_write(
    CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *context);
CURLcode geofence_curl_response_code(CURL *handle, long *code);

#endif
