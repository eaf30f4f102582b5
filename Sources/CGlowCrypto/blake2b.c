/* BLAKE2b, RFC 7693. */
#include <string.h>

#include "glow_hash.h"
#include "glow_private.h"

static const uint64_t blake2b_iv[8] = {
    UINT64_C(0x6a09e667f3bcc908), UINT64_C(0xbb67ae8584caa73b),
    UINT64_C(0x3c6ef372fe94f82b), UINT64_C(0xa54ff53a5f1d36f1),
    UINT64_C(0x510e527fade682d1), UINT64_C(0x9b05688c2b3e6c1f),
    UINT64_C(0x1f83d9abfb41bd6b), UINT64_C(0x5be0cd19137e2179)
};

/* Message schedule; rounds 10 and 11 reuse the permutations of rounds 0 and 1. */
static const uint8_t blake2b_sigma[12][16] = {
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
    { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
    { 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
    { 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
    { 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
    { 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
    { 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
    { 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
    { 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
    { 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
    { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
    { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 }
};

/* The mixing function G of RFC 7693 section 3.1. */
#define B2B_G(a, b, c, d, x, y)              \
    do {                                     \
        v[a] = v[a] + v[b] + (x);            \
        v[d] = GLOW_ROTR64(v[d] ^ v[a], 32); \
        v[c] = v[c] + v[d];                  \
        v[b] = GLOW_ROTR64(v[b] ^ v[c], 24); \
        v[a] = v[a] + v[b] + (y);            \
        v[d] = GLOW_ROTR64(v[d] ^ v[a], 16); \
        v[c] = v[c] + v[d];                  \
        v[b] = GLOW_ROTR64(v[b] ^ v[c], 63); \
    } while (0)

static void blake2b_compress(glow_blake2b_context *c, const uint8_t *block, int last) {
    uint64_t v[16];
    uint64_t m[16];
    int i;

    for (i = 0; i < 16; i++) {
        m[i] = glow_load64_le(block + 8 * i);
    }
    for (i = 0; i < 8; i++) {
        v[i] = c->h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= c->t[0];
    v[13] ^= c->t[1];
    if (last) {
        v[14] = ~v[14];
    }

    for (i = 0; i < 12; i++) {
        const uint8_t *s = blake2b_sigma[i];
        B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }

    for (i = 0; i < 8; i++) {
        c->h[i] ^= v[i] ^ v[i + 8];
    }
}

static void blake2b_count(glow_blake2b_context *c, uint64_t n) {
    c->t[0] += n;
    if (c->t[0] < n) {
        c->t[1]++;
    }
}

int glow_blake2b_init(glow_blake2b_context *c, size_t out_length, const uint8_t *key, size_t key_length) {
    int i;

    if (out_length < 1 || out_length > GLOW_BLAKE2B_MAX_OUT || key_length > GLOW_BLAKE2B_MAX_KEY) {
        return -1;
    }
    for (i = 0; i < 8; i++) {
        c->h[i] = blake2b_iv[i];
    }
    /* Parameter block word 0: digest length, key length, fanout 1, depth 1. */
    c->h[0] ^= UINT64_C(0x01010000) ^ ((uint64_t)key_length << 8) ^ (uint64_t)out_length;
    c->t[0] = 0;
    c->t[1] = 0;
    c->out_length = out_length;
    memset(c->block, 0, sizeof c->block);
    c->used = 0;
    if (key_length > 0) {
        /* The key, zero-padded to a full block, is the first message block. */
        memcpy(c->block, key, key_length);
        c->used = GLOW_BLAKE2B_BLOCK_SIZE;
    }
    return 0;
}

void glow_blake2b_update(glow_blake2b_context *c, const uint8_t *bytes, size_t count) {
    /* A full buffered block is compressed only once more input arrives,
       because the final block must be compressed with the last-block flag. */
    while (count > 0) {
        size_t take;
        if (c->used == GLOW_BLAKE2B_BLOCK_SIZE) {
            blake2b_count(c, GLOW_BLAKE2B_BLOCK_SIZE);
            blake2b_compress(c, c->block, 0);
            c->used = 0;
        }
        if (c->used == 0) {
            while (count > GLOW_BLAKE2B_BLOCK_SIZE) {
                blake2b_count(c, GLOW_BLAKE2B_BLOCK_SIZE);
                blake2b_compress(c, bytes, 0);
                bytes += GLOW_BLAKE2B_BLOCK_SIZE;
                count -= GLOW_BLAKE2B_BLOCK_SIZE;
            }
        }
        take = GLOW_BLAKE2B_BLOCK_SIZE - c->used;
        if (take > count) {
            take = count;
        }
        memcpy(c->block + c->used, bytes, take);
        c->used += take;
        bytes += take;
        count -= take;
    }
}

void glow_blake2b_final(glow_blake2b_context *c, uint8_t *out) {
    uint8_t full[64];
    int i;

    blake2b_count(c, (uint64_t)c->used);
    memset(c->block + c->used, 0, GLOW_BLAKE2B_BLOCK_SIZE - c->used);
    blake2b_compress(c, c->block, 1);
    for (i = 0; i < 8; i++) {
        glow_store64_le(full + 8 * i, c->h[i]);
    }
    memcpy(out, full, c->out_length);
    glow_wipe(full, sizeof full);
    glow_wipe(c, sizeof *c);
}

int glow_blake2b(uint8_t *out, size_t out_length, const uint8_t *key, size_t key_length,
                 const uint8_t *bytes, size_t count) {
    glow_blake2b_context c;
    if (glow_blake2b_init(&c, out_length, key, key_length) != 0) {
        return -1;
    }
    glow_blake2b_update(&c, bytes, count);
    glow_blake2b_final(&c, out);
    return 0;
}
