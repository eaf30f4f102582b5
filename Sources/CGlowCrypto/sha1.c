/* SHA-1, FIPS 180-4 section 6.1. */
#include <string.h>

#include "glow_hash.h"
#include "glow_private.h"

static void sha1_compress(uint32_t state[5], const uint8_t *block) {
    uint32_t w[80];
    uint32_t a, b, c, d, e, f, k, temp;
    int i;

    for (i = 0; i < 16; i++) {
        w[i] = glow_load32_be(block + 4 * i);
    }
    for (i = 16; i < 80; i++) {
        uint32_t x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
        w[i] = GLOW_ROTL32(x, 1);
    }

    a = state[0];
    b = state[1];
    c = state[2];
    d = state[3];
    e = state[4];

    for (i = 0; i < 80; i++) {
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdcu;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6u;
        }
        temp = GLOW_ROTL32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = GLOW_ROTL32(b, 30);
        b = a;
        a = temp;
    }

    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}

void glow_sha1_init(glow_sha1_context *c) {
    c->state[0] = 0x67452301u;
    c->state[1] = 0xefcdab89u;
    c->state[2] = 0x98badcfeu;
    c->state[3] = 0x10325476u;
    c->state[4] = 0xc3d2e1f0u;
    c->length = 0;
    c->used = 0;
    memset(c->block, 0, sizeof c->block);
}

/* The compression function behind the shared buffering's function pointer. */
static void sha1_compress_block(void *state, const uint8_t *block) {
    sha1_compress((uint32_t *)state, block);
}

void glow_sha1_update(glow_sha1_context *c, const uint8_t *bytes, size_t count) {
    c->length += (uint64_t)count;
    glow_md_absorb(c->state, sha1_compress_block, c->block, sizeof c->block, &c->used, bytes, count);
}

void glow_sha1_final(glow_sha1_context *c, uint8_t digest[20]) {
    int i;

    glow_md_finish(c->state, sha1_compress_block, c->block, sizeof c->block, c->used, c->length);
    for (i = 0; i < 5; i++) {
        glow_store32_be(digest + 4 * i, c->state[i]);
    }
    glow_wipe(c, sizeof *c);
}
