#include "CGPS.h"

#include <CLibraryLoader.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <gps.h>

// libgps is loaded on the first connection rather than linked: it and the libraries under it
// (D-Bus, systemd, libgcrypt, three compressors) were loaded by every geofence command, most of
// which never talk to gpsd. The development symlink is tried first: where it is, it is the
// library of the header this file was compiled against (gps_data_t's layout is its ABI); then
// Debian 12's soname, for a box with the library alone.
static const char *const library_names[] = {"libgps.so", "libgps.so.28"};

// Each pointer has the type of the function it stands for, as gps.h declares it.
static struct {
    __typeof__(gps_open) *open;
    __typeof__(gps_stream) *stream;
    __typeof__(gps_close) *close;
    __typeof__(gps_waiting) *waiting;
    __typeof__(gps_read) *read;
    __typeof__(gps_errstr) *errstr;
} gps;

static struct geofence_lazy_library library = GEOFENCE_LAZY_LIBRARY_INIT;

static void load(void) {
    static const char *const functions[] = {
        "gps_open", "gps_stream", "gps_close", "gps_waiting", "gps_read", "gps_errstr"};
    void **const slots[] = {
        (void **)&gps.open, (void **)&gps.stream, (void **)&gps.close, (void **)&gps.waiting, (void **)&gps.read,
        (void **)&gps.errstr};
    library.ready = geofence_load_library(
        library_names, sizeof library_names / sizeof library_names[0], "libgps28", functions, slots,
        sizeof slots / sizeof slots[0], library.problem, sizeof library.problem);
}

const char *geofence_gps_load(void) { return geofence_lazy_library_problem(&library, load); }

struct geofence_gps_connection {
    struct gps_data_t data;
};

geofence_gps_connection *geofence_gps_open(const char *host, const char *port, int *error) {
    geofence_gps_connection *connection = calloc(1, sizeof *connection);
    if (connection == NULL) { *error = ENOMEM; return NULL; }
    if (gps.open(host, port, &connection->data) != 0) { *error = errno; free(connection); return NULL; }
    if (gps.stream(&connection->data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        *error = errno;
        gps.close(&connection->data);
        free(connection);
        return NULL;
    }
    return connection;
}

void geofence_gps_close(geofence_gps_connection *connection) {
    gps.close(&connection->data);
    free(connection);
}

int geofence_gps_next(geofence_gps_connection *connection, int timeout_us, geofence_gps_report *report) {
    struct gps_data_t *data = &connection->data;
    if (!gps.waiting(data, timeout_us)) return 0;
    if (gps.read(data, NULL, 0) < 0) return -1;
    const gps_mask_t needed = LATLON_SET | TIME_SET | MODE_SET;
    if ((data->set & needed) != needed || data->fix.mode < MODE_2D) return 0;
    if (!isfinite(data->fix.latitude) || !isfinite(data->fix.longitude)) return 0;
    report->seconds = (double)data->fix.time.tv_sec + (double)data->fix.time.tv_nsec / 1e9;
    report->latitude = data->fix.latitude;
    report->longitude = data->fix.longitude;
    report->altitude = (data->fix.mode >= MODE_3D) ? data->fix.altMSL : NAN;
    double accuracy = data->fix.eph;
    if (!isfinite(accuracy) && isfinite(data->fix.epx) && isfinite(data->fix.epy))
        accuracy = fmax(data->fix.epx, data->fix.epy);
    report->accuracy = accuracy;
    report->speed = (data->set & SPEED_SET) ? data->fix.speed : NAN;
    report->course = (data->set & TRACK_SET) ? data->fix.track : NAN;
    report->mode = data->fix.mode;
    return 1;
}

const char *geofence_gps_error_text(int error) { return gps.errstr(error); }
