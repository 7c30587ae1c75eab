// libgps, the client library of gpsd, behind `geofence run --gpsd`.
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <gps.h>

// struct gps_data_t is large and full of unions, and its mask bits are 64-bit macros: these
// wrappers keep it on the C side and hand Swift one plain struct per position report.

/// One TPV report with a position.
typedef struct {
    double seconds;    // Unix time of the fix
    double latitude;
    double longitude;
    double altitude;   // metres above mean sea level, NAN if unknown
    double accuracy;   // estimated horizontal error, metres, NAN if unknown
    double speed;      // metres a second, NAN if unknown
    double course;     // degrees from true north, NAN if unknown
    int mode;          // 2: 2D fix, 3: 3D fix
} geofence_gps_report;

/// Connects and asks for JSON reports; NULL with *error set (an errno or a libgps code).
static inline struct gps_data_t *geofence_gps_open(const char *host, const char *port, int *error) {
    struct gps_data_t *data = calloc(1, sizeof *data);
    if (data == NULL) { *error = ENOMEM; return NULL; }
    if (gps_open(host, port, data) != 0) { *error = errno; free(data); return NULL; }
    if (gps_stream(data, WATCH_ENABLE | WATCH_JSON, NULL) != 0) {
        *error = errno; gps_close(data); free(data); return NULL;
    }
    return data;
}

static inline void geofence_gps_close(struct gps_data_t *data) {
    gps_close(data);
    free(data);
}

/// 1: a position report was read into *report; 0: nothing within the timeout, or a report
/// without a position; -1: the connection is gone.
static inline int geofence_gps_next(struct gps_data_t *data, int timeout_us, geofence_gps_report *report) {
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
