// libcurl, the HTTP client behind the `post:` action.
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are C variadic functions, which Swift cannot call:
// one typed wrapper per kind of argument geofence passes.
static inline CURLcode geofence_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode geofence_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode geofence_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode geofence_curl_set_write(
    CURL *handle, size_t (*callback)(char *, size_t, size_t, void *), void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}
static inline CURLcode geofence_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
