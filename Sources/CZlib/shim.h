// The one C shim of GlowWire: Debian's zlib (zlib1g-dev), for bundle compression and CRC-32.
#ifndef GLOW_CZLIB_SHIM_H
#define GLOW_CZLIB_SHIM_H
#include <zlib.h>
#endif
