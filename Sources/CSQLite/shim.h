#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import as a constant;
// binding with it makes SQLite copy the bytes before the Swift buffer goes away.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
