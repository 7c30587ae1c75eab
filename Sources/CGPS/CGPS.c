#include "CGPS.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <gps.h>

struct geofence_gps_connection {
    struct gps_data_t data;
};

geofence_gps_connection *geofence_gps_open(const char *host, const char *port, int *error) {
    geofence_gps_connection *connection = calloc(1, sizeof *connection);
    if (connection == NULL) { *error = ENOMEM; return NULL; }
    if (gps_open(host, port, &connection->data) != 0) { *error = errno; free(connection); return NULL; }
    if (gps_stream(&connection->data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        *error = errno;
        gps_close(&connection->data);
        free(connection);
        return NULL;
    }
    return connection;
}

void geofence_gps_close(geofence_gps_connection *connection) {
    gps_close(&connection->data);
    free(connection);
}

int geofence_gps_next(geofence_gps_connection *connection, int timeout_us, geofence_gps_report *report) {
    struct gps_data_t *data = &connection->data;
    if (!gps_waiting(data, timeout_us)) return 0;
    if (gps_read(data, NULL, 0) < 0) return -1;
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

const char *geofence_gps_error_text(int error) { return gps_errstr(error); }
