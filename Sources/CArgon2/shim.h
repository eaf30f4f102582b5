// The Argon2 shim of GlowAuth: Debian's reference implementation of Argon2 (libargon2-dev),
// for password hashing with Argon2id (RFC 9106).
#ifndef GLOW_CARGON2_SHIM_H
#define GLOW_CARGON2_SHIM_H
#include <argon2.h>
#endif
