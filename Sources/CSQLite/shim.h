// The C shim of GlowRitual's durable storage: Debian's SQLite (libsqlite3-dev); Apple platforms
// ship the same library.
#ifndef GLOW_CSQLITE_SHIM_H
#define GLOW_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import: bound
// bytes are copied by SQLite before the call returns.
static inline sqlite3_destructor_type glow_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
