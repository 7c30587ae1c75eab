#include "CMicroHTTPD.h"

#include <CLibraryLoader.h>

// The soname of libmicrohttpd's ABI since 2014.
static const char *const library_name = "libmicrohttpd.so.12";

// Each pointer has the type of the function it stands for, as the header declares it.
static struct {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_add_response_header) *add_response_header;
} mhd;

static struct geofence_lazy_library library = GEOFENCE_LAZY_LIBRARY_INIT;

static void load(void) {
    static const char *const names[] = {library_name};
    static const char *const functions[] = {
        "MHD_start_daemon", "MHD_stop_daemon", "MHD_get_connection_values", "MHD_lookup_connection_value",
        "MHD_queue_response", "MHD_create_response_from_buffer", "MHD_destroy_response",
        "MHD_add_response_header"};
    void **const slots[] = {
        (void **)&mhd.start_daemon, (void **)&mhd.stop_daemon, (void **)&mhd.get_connection_values,
        (void **)&mhd.lookup_connection_value, (void **)&mhd.queue_response,
        (void **)&mhd.create_response_from_buffer, (void **)&mhd.destroy_response,
        (void **)&mhd.add_response_header};
    library.ready = geofence_load_library(
        names, 1, "libmicrohttpd12", functions, slots, sizeof slots / sizeof slots[0], library.problem,
        sizeof library.problem);
}

const char *geofence_mhd_load(void) { return geofence_lazy_library_problem(&library, load); }

struct MHD_Daemon *geofence_mhd_start(
    int listen_socket, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int timeout_seconds) {
    return mhd.start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL | MHD_USE_ITC,
        0, NULL, NULL, handler, handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handler_context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
}

void geofence_mhd_stop_daemon(struct MHD_Daemon *daemon) { mhd.stop_daemon(daemon); }

int geofence_mhd_get_connection_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator,
    void *iterator_context) {
    return mhd.get_connection_values(connection, kind, iterator, iterator_context);
}

const char *geofence_mhd_lookup_connection_value(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key) {
    return mhd.lookup_connection_value(connection, kind, key);
}

enum MHD_Result geofence_mhd_queue_response(
    struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response) {
    return mhd.queue_response(connection, status_code, response);
}

struct MHD_Response *geofence_mhd_create_response_from_buffer(
    size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return mhd.create_response_from_buffer(size, buffer, mode);
}

void geofence_mhd_destroy_response(struct MHD_Response *response) { mhd.destroy_response(response); }

enum MHD_Result geofence_mhd_add_response_header(
    struct MHD_Response *response, const char *header, const char *content) {
    return mhd.add_response_header(response, header, content);
}
