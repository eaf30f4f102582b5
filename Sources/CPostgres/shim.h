// The C shim of glow-server's PostgreSQL store: Debian's libpq (libpq-dev), PostgreSQL's own
// client library.
#ifndef GLOW_CPOSTGRES_SHIM_H
#define GLOW_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
