// libmicrohttpd, the HTTP server behind `geofence run --http`.
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon takes its options as C variadic arguments, which Swift cannot pass: this
// wrapper fixes the options geofence uses. The daemon serves an already listening socket (so
// that Swift binds it and reports errors and the chosen port), one thread per connection (the
// handler blocks until the store has committed the body).
static inline struct MHD_Daemon *geofence_mhd_start(
    int listen_socket, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int timeout_seconds) {
    return MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL | MHD_USE_ITC,
        0, NULL, NULL, handler, handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handler_context,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_END);
}
