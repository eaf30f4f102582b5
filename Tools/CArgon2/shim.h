// The reference Argon2 (Debian's libargon2-dev): a test oracle for the package's own Argon2id, never
// linked by a module.
#ifndef GLOW_CARGON2_SHIM_H
#define GLOW_CARGON2_SHIM_H
#include <argon2.h>
#endif
