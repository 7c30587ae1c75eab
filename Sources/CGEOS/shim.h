// Only the re-entrant (_r) GEOS API: every call names the context it runs in.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
