// libmicrohttpd, the HTTP server behind `geofence run --http`, loaded when a server starts.
//
// Why not linked: libmicrohttpd needs GnuTLS and a dozen libraries under it, which the dynamic
// loader mapped and resolved at the start of every geofence command, most of which serve no
// HTTP. Only its types and constants come from its header here; its functions are reached
// through the pointers geofence_mhd_load finds.
#ifndef GEOFENCE_CMICROHTTPD_H
#define GEOFENCE_CMICROHTTPD_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Loads libmicrohttpd (once per process; later calls return the first call's answer). NULL when
/// it is ready, else why not. Call it before any other function here.
const char *geofence_mhd_load(void);

/// MHD_start_daemon with the options geofence uses (C variadic arguments, which Swift cannot
/// pass): it serves an already listening socket (so that Swift binds it and reports errors and
/// the chosen port), one thread per connection (the handler blocks until the store has committed
/// the body).
struct MHD_Daemon *geofence_mhd_start(
    int listen_socket, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int timeout_seconds);

void geofence_mhd_stop_daemon(struct MHD_Daemon *daemon);
int geofence_mhd_get_connection_values(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator,
    void *iterator_context);
const char *geofence_mhd_lookup_connection_value(
    struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key);
enum MHD_Result geofence_mhd_queue_response(
    struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response);
struct MHD_Response *geofence_mhd_create_response_from_buffer(
    size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
void geofence_mhd_destroy_response(struct MHD_Response *response);
enum MHD_Result geofence_mhd_add_response_header(
    struct MHD_Response *response, const char *header, const char *content);

#endif
