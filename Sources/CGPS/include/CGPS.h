// libgps, the client library of gpsd, behind `geofence run --gpsd`.
//
// gps.h is included only by CGPS.c: its struct gps_data_t is large and full of unions, its mask
// bits are 64-bit macros, and the libc types it pulls in would be claimed by this module if
// Swift saw them here. Swift sees one opaque connection and one plain struct per report.
#ifndef GEOFENCE_CGPS_H
#define GEOFENCE_CGPS_H

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

/// Loads libgps (once per process; later calls return the first call's answer). NULL when it is
/// ready, else why not. Call it before any other function here.
const char *geofence_gps_load(void);

/// A connection to gpsd.
typedef struct geofence_gps_connection geofence_gps_connection;

/// Connects and asks for JSON reports; NULL with *error set (an errno or a libgps code).
geofence_gps_connection *geofence_gps_open(const char *host, const char *port, int *error);

/// Closes the connection and frees it.
void geofence_gps_close(geofence_gps_connection *connection);

/// 1: a position report was read into *report; 0: nothing within the timeout, or a report
/// without a position; -1: the connection is gone.
int geofence_gps_next(geofence_gps_connection *connection, int timeout_us, geofence_gps_report *report);

/// libgps's text for an error code from geofence_gps_open.
const char *geofence_gps_error_text(int error);

#endif
