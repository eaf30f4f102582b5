#include "glow_hash.h"

void glow_wipe(void *p, size_t n) {
    volatile uint8_t *bytes = (volatile uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++) {
        bytes[i] = 0;
    }
}
