/* Argon2id, version 0x13, RFC 9106. Single-threaded: lanes are filled one
   after another within each slice, which yields the same tag as any parallel
   schedule because a slice only reads blocks finished before it began. */
#include <stdlib.h>
#include <string.h>

#include "glow_hash.h"
#include "glow_private.h"

#define ARGON2_VERSION 0x13u
#define ARGON2_TYPE_ID 2u /* Argon2id */
#define ARGON2_WORDS 128u /* 64-bit words per 1 KiB block */
#define ARGON2_BLOCK_BYTES 1024u
#define ARGON2_SLICES 4u
#define ARGON2_MAX_LANES 0xFFFFFFu

typedef struct {
    uint64_t v[ARGON2_WORDS];
} argon2_block;

typedef struct {
    argon2_block *blocks;
    uint32_t lanes;
    uint32_t lane_length;    /* q: columns per lane */
    uint32_t segment_length; /* q / 4 */
    uint32_t block_count;    /* m' */
    uint32_t passes;
} argon2_instance;

/* ------------------------------------------------------------------ H' */

/* Variable-length hash H' of RFC 9106 section 3.3, hashing LE32(out_length) || in. */
static void argon2_hash_long(uint8_t *out, uint32_t out_length, const uint8_t *in, size_t in_length) {
    glow_blake2b_context c;
    uint8_t prefix[4];

    glow_store32_le(prefix, out_length);
    if (out_length <= 64) {
        glow_blake2b_init(&c, out_length, NULL, 0);
        glow_blake2b_update(&c, prefix, sizeof prefix);
        glow_blake2b_update(&c, in, in_length);
        glow_blake2b_final(&c, out);
    } else {
        uint8_t v[64];
        uint8_t next[64];
        uint32_t remaining = out_length;

        glow_blake2b_init(&c, 64, NULL, 0);
        glow_blake2b_update(&c, prefix, sizeof prefix);
        glow_blake2b_update(&c, in, in_length);
        glow_blake2b_final(&c, v);
        /* Each intermediate digest contributes its first 32 bytes. */
        memcpy(out, v, 32);
        out += 32;
        remaining -= 32;
        while (remaining > 64) {
            glow_blake2b(next, 64, NULL, 0, v, 64);
            memcpy(v, next, 64);
            memcpy(out, v, 32);
            out += 32;
            remaining -= 32;
        }
        /* The last digest has exactly the remaining length (33..64 bytes). */
        glow_blake2b(next, remaining, NULL, 0, v, 64);
        memcpy(out, next, remaining);
        glow_wipe(v, sizeof v);
        glow_wipe(next, sizeof next);
    }
}

/* -------------------------------------------------------- compression G */

#define ARGON2_LOW32 UINT64_C(0xFFFFFFFF)

/* BlaMka: x + y + 2 * lo32(x) * lo32(y), all mod 2^64. */
#define ARGON2_BLAMKA(x, y) ((x) + (y) + 2 * (((x) & ARGON2_LOW32) * ((y) & ARGON2_LOW32)))

#define ARGON2_GB(a, b, c, d)                 \
    do {                                      \
        (a) = ARGON2_BLAMKA(a, b);            \
        (d) = GLOW_ROTR64((d) ^ (a), 32);     \
        (c) = ARGON2_BLAMKA(c, d);            \
        (b) = GLOW_ROTR64((b) ^ (c), 24);     \
        (a) = ARGON2_BLAMKA(a, b);            \
        (d) = GLOW_ROTR64((d) ^ (a), 16);     \
        (c) = ARGON2_BLAMKA(c, d);            \
        (b) = GLOW_ROTR64((b) ^ (c), 63);     \
    } while (0)

/* Permutation P on sixteen 64-bit words (eight 16-byte registers). */
#define ARGON2_P(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) \
    do {                                                                              \
        ARGON2_GB(v0, v4, v8, v12);                                                   \
        ARGON2_GB(v1, v5, v9, v13);                                                   \
        ARGON2_GB(v2, v6, v10, v14);                                                  \
        ARGON2_GB(v3, v7, v11, v15);                                                  \
        ARGON2_GB(v0, v5, v10, v15);                                                  \
        ARGON2_GB(v1, v6, v11, v12);                                                  \
        ARGON2_GB(v2, v7, v8, v13);                                                   \
        ARGON2_GB(v3, v4, v9, v14);                                                   \
    } while (0)

/* Applies P to sixteen words of r: pairs of adjacent words starting at base,
   base + stride, ..., base + 7 * stride. Rows use stride 2, columns stride 16.
   The words are copied into locals so that even unoptimised builds work on
   plain variables. */
static void argon2_round(uint64_t *r, unsigned base, unsigned stride) {
    uint64_t *w0 = r + base;
    uint64_t *w1 = w0 + stride, *w2 = w1 + stride, *w3 = w2 + stride, *w4 = w3 + stride;
    uint64_t *w5 = w4 + stride, *w6 = w5 + stride, *w7 = w6 + stride;
    uint64_t v0 = w0[0], v1 = w0[1], v2 = w1[0], v3 = w1[1], v4 = w2[0], v5 = w2[1], v6 = w3[0], v7 = w3[1];
    uint64_t v8 = w4[0], v9 = w4[1], v10 = w5[0], v11 = w5[1], v12 = w6[0], v13 = w6[1], v14 = w7[0], v15 = w7[1];

    ARGON2_P(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15);

    w0[0] = v0; w0[1] = v1; w1[0] = v2; w1[1] = v3; w2[0] = v4; w2[1] = v5; w3[0] = v6; w3[1] = v7;
    w4[0] = v8; w4[1] = v9; w5[0] = v10; w5[1] = v11; w6[0] = v12; w6[1] = v13; w7[0] = v14; w7[1] = v15;
}

/* Applies P to the eight rows and then the eight columns of the 8x8 matrix
   of 16-byte registers held in r. */
static void argon2_permute(uint64_t r[ARGON2_WORDS]) {
    unsigned i;
    for (i = 0; i < 8; i++) {
        argon2_round(r, 16 * i, 2);
    }
    for (i = 0; i < 8; i++) {
        argon2_round(r, 2 * i, 16);
    }
}

/* next = G(prev, ref), or next ^= G(prev, ref) when xor_into_next (v1.3 rule
   for passes after the first). G(X, Y) = P(X ^ Y) ^ X ^ Y. */
static void argon2_fill_block(const argon2_block *prev, const argon2_block *ref, argon2_block *next,
                              int xor_into_next) {
    uint64_t r[ARGON2_WORDS];
    uint64_t keep[ARGON2_WORDS];
    unsigned i;

    for (i = 0; i < ARGON2_WORDS; i++) {
        r[i] = prev->v[i] ^ ref->v[i];
    }
    if (xor_into_next) {
        for (i = 0; i < ARGON2_WORDS; i++) {
            keep[i] = r[i] ^ next->v[i];
        }
    } else {
        for (i = 0; i < ARGON2_WORDS; i++) {
            keep[i] = r[i];
        }
    }
    argon2_permute(r);
    for (i = 0; i < ARGON2_WORDS; i++) {
        next->v[i] = keep[i] ^ r[i];
    }
}

/* out = G(0, G(0, in)): the address block for data-independent indexing. */
static void argon2_address_block(const argon2_block *in, argon2_block *out) {
    uint64_t r[ARGON2_WORDS];
    unsigned i;

    for (i = 0; i < ARGON2_WORDS; i++) {
        r[i] = in->v[i];
    }
    argon2_permute(r);
    for (i = 0; i < ARGON2_WORDS; i++) {
        r[i] ^= in->v[i];
        out->v[i] = r[i];
    }
    argon2_permute(r);
    for (i = 0; i < ARGON2_WORDS; i++) {
        out->v[i] ^= r[i];
    }
}

/* --------------------------------------------------------------- filling */

/* Column of the reference block inside lane ref_lane (RFC 9106 section 3.4.1.2). */
static uint32_t argon2_reference_column(const argon2_instance *a, uint32_t pass, uint32_t slice,
                                        uint32_t index, uint32_t j1, int same_lane) {
    uint32_t area;
    uint64_t x, y, relative, start;

    if (pass == 0) {
        if (slice == 0) {
            area = index - 1;
        } else if (same_lane) {
            area = slice * a->segment_length + index - 1;
        } else {
            area = slice * a->segment_length - (index == 0 ? 1u : 0u);
        }
        start = 0;
    } else {
        if (same_lane) {
            area = a->lane_length - a->segment_length + index - 1;
        } else {
            area = a->lane_length - a->segment_length - (index == 0 ? 1u : 0u);
        }
        start = (slice == ARGON2_SLICES - 1) ? 0 : (uint64_t)(slice + 1) * a->segment_length;
    }
    x = ((uint64_t)j1 * j1) >> 32;
    y = ((uint64_t)area * x) >> 32;
    relative = (uint64_t)area - 1 - y;
    return (uint32_t)((start + relative) % a->lane_length);
}

static void argon2_fill_segment(const argon2_instance *a, uint32_t pass, uint32_t slice, uint32_t lane) {
    argon2_block input;
    argon2_block addresses;
    int independent = (pass == 0 && slice < 2);
    uint32_t first = (pass == 0 && slice == 0) ? 2u : 0u;
    uint32_t lane_base = lane * a->lane_length;
    uint32_t index;

    if (independent) {
        memset(&input, 0, sizeof input);
        input.v[0] = pass;
        input.v[1] = lane;
        input.v[2] = slice;
        input.v[3] = a->block_count;
        input.v[4] = a->passes;
        input.v[5] = ARGON2_TYPE_ID;
        input.v[6] = 0; /* counter, incremented before each address block */
    }

    for (index = first; index < a->segment_length; index++) {
        uint32_t column = slice * a->segment_length + index;
        uint32_t current = lane_base + column;
        uint32_t previous = (column == 0) ? lane_base + a->lane_length - 1 : current - 1;
        uint64_t pseudo_random;
        uint32_t ref_lane, ref_column;

        if (independent) {
            if (index == first || index % ARGON2_WORDS == 0) {
                input.v[6]++;
                argon2_address_block(&input, &addresses);
            }
            pseudo_random = addresses.v[index % ARGON2_WORDS];
        } else {
            pseudo_random = a->blocks[previous].v[0];
        }

        if (pass == 0 && slice == 0) {
            ref_lane = lane;
        } else {
            ref_lane = (uint32_t)(pseudo_random >> 32) % a->lanes;
        }
        ref_column = argon2_reference_column(a, pass, slice, index, (uint32_t)pseudo_random, ref_lane == lane);

        argon2_fill_block(&a->blocks[previous], &a->blocks[ref_lane * a->lane_length + ref_column],
                          &a->blocks[current], pass != 0);
    }
}

/* Zeroes the work memory with volatile 64-bit stores the compiler must keep. */
static void argon2_wipe_blocks(argon2_block *blocks, uint32_t count) {
    volatile uint64_t *words = (volatile uint64_t *)blocks->v;
    size_t total = (size_t)count * ARGON2_WORDS;
    size_t i;
    for (i = 0; i < total; i++) {
        words[i] = 0;
    }
}

static void argon2_block_from_bytes(argon2_block *b, const uint8_t *bytes) {
    unsigned i;
    for (i = 0; i < ARGON2_WORDS; i++) {
        b->v[i] = glow_load64_le(bytes + 8 * i);
    }
}

static void argon2_block_to_bytes(uint8_t *bytes, const argon2_block *b) {
    unsigned i;
    for (i = 0; i < ARGON2_WORDS; i++) {
        glow_store64_le(bytes + 8 * i, b->v[i]);
    }
}

static void argon2_absorb_le32(glow_blake2b_context *c, uint32_t value) {
    uint8_t le[4];
    glow_store32_le(le, value);
    glow_blake2b_update(c, le, sizeof le);
}

int glow_argon2id(const uint8_t *password, size_t password_length,
                  const uint8_t *salt, size_t salt_length,
                  const uint8_t *secret, size_t secret_length,
                  const uint8_t *associated, size_t associated_length,
                  uint32_t passes, uint32_t memory_kib, uint32_t lanes,
                  uint8_t *tag, size_t tag_length) {
    argon2_instance a;
    glow_blake2b_context c;
    uint8_t seed[64 + 8]; /* H0 || LE32(column) || LE32(lane) */
    uint8_t block_bytes[ARGON2_BLOCK_BYTES];
    argon2_block final_block;
    uint64_t byte_count;
    size_t allocation;
    uint32_t pass, slice, lane;
    unsigned i;

    /* ---- parameter checks */
    if (lanes < 1 || lanes > ARGON2_MAX_LANES || passes < 1) {
        return GLOW_ARGON2_BAD_PARAMETERS;
    }
    if (memory_kib < 8 * lanes) {
        return GLOW_ARGON2_BAD_PARAMETERS;
    }
    if (salt == NULL || salt_length < 8 || tag == NULL || tag_length < 4) {
        return GLOW_ARGON2_BAD_PARAMETERS;
    }
    if ((uint64_t)password_length > 0xFFFFFFFFu || (uint64_t)salt_length > 0xFFFFFFFFu ||
        (uint64_t)secret_length > 0xFFFFFFFFu || (uint64_t)associated_length > 0xFFFFFFFFu ||
        (uint64_t)tag_length > 0xFFFFFFFFu) {
        return GLOW_ARGON2_BAD_PARAMETERS;
    }
    if ((password == NULL && password_length != 0) || (secret == NULL && secret_length != 0) ||
        (associated == NULL && associated_length != 0)) {
        return GLOW_ARGON2_BAD_PARAMETERS;
    }

    /* ---- geometry: m' = 4 * lanes * floor(m / (4 * lanes)) */
    a.lanes = lanes;
    a.passes = passes;
    a.segment_length = memory_kib / (ARGON2_SLICES * lanes);
    a.lane_length = a.segment_length * ARGON2_SLICES;
    a.block_count = a.lane_length * lanes;

    byte_count = (uint64_t)a.block_count * sizeof(argon2_block);
    allocation = (size_t)byte_count;
    if ((uint64_t)allocation != byte_count) {
        return GLOW_ARGON2_NO_MEMORY;
    }
    a.blocks = (argon2_block *)malloc(allocation);
    if (a.blocks == NULL) {
        return GLOW_ARGON2_NO_MEMORY;
    }

    /* ---- H0 */
    glow_blake2b_init(&c, 64, NULL, 0);
    argon2_absorb_le32(&c, lanes);
    argon2_absorb_le32(&c, (uint32_t)tag_length);
    argon2_absorb_le32(&c, memory_kib);
    argon2_absorb_le32(&c, passes);
    argon2_absorb_le32(&c, ARGON2_VERSION);
    argon2_absorb_le32(&c, ARGON2_TYPE_ID);
    argon2_absorb_le32(&c, (uint32_t)password_length);
    glow_blake2b_update(&c, password, password_length);
    argon2_absorb_le32(&c, (uint32_t)salt_length);
    glow_blake2b_update(&c, salt, salt_length);
    argon2_absorb_le32(&c, (uint32_t)secret_length);
    glow_blake2b_update(&c, secret, secret_length);
    argon2_absorb_le32(&c, (uint32_t)associated_length);
    glow_blake2b_update(&c, associated, associated_length);
    glow_blake2b_final(&c, seed);

    /* ---- first two columns of every lane */
    for (lane = 0; lane < lanes; lane++) {
        uint32_t column;
        for (column = 0; column < 2; column++) {
            glow_store32_le(seed + 64, column);
            glow_store32_le(seed + 68, lane);
            argon2_hash_long(block_bytes, ARGON2_BLOCK_BYTES, seed, sizeof seed);
            argon2_block_from_bytes(&a.blocks[lane * a.lane_length + column], block_bytes);
        }
    }

    /* ---- passes; within a slice the lanes are independent */
    for (pass = 0; pass < passes; pass++) {
        for (slice = 0; slice < ARGON2_SLICES; slice++) {
            for (lane = 0; lane < lanes; lane++) {
                argon2_fill_segment(&a, pass, slice, lane);
            }
        }
    }

    /* ---- C = XOR of the last column, tag = H'^T(C) */
    final_block = a.blocks[a.lane_length - 1];
    for (lane = 1; lane < lanes; lane++) {
        const argon2_block *last = &a.blocks[lane * a.lane_length + a.lane_length - 1];
        for (i = 0; i < ARGON2_WORDS; i++) {
            final_block.v[i] ^= last->v[i];
        }
    }
    argon2_block_to_bytes(block_bytes, &final_block);
    argon2_hash_long(tag, (uint32_t)tag_length, block_bytes, sizeof block_bytes);

    argon2_wipe_blocks(a.blocks, a.block_count);
    free(a.blocks);
    glow_wipe(&final_block, sizeof final_block);
    glow_wipe(block_bytes, sizeof block_bytes);
    glow_wipe(seed, sizeof seed);
    return GLOW_ARGON2_OK;
}
