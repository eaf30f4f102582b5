/* Private helpers shared by the CGlowCrypto sources: explicit big- and little-endian loads and
   stores (no unaligned casts), rotations, and the Merkle-Damgard buffering. Not part of the API. */
#ifndef GLOW_PRIVATE_H
#define GLOW_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t glow_load32_be(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void glow_store32_be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint64_t glow_load64_be(const uint8_t *p) {
    return ((uint64_t)glow_load32_be(p) << 32) | (uint64_t)glow_load32_be(p + 4);
}

static inline void glow_store64_be(uint8_t *p, uint64_t v) {
    glow_store32_be(p, (uint32_t)(v >> 32));
    glow_store32_be(p + 4, (uint32_t)v);
}

static inline uint32_t glow_load32_le(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline void glow_store32_le(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t glow_load64_le(const uint8_t *p) {
    return (uint64_t)glow_load32_le(p) | ((uint64_t)glow_load32_le(p + 4) << 32);
}

static inline void glow_store64_le(uint8_t *p, uint64_t v) {
    glow_store32_le(p, (uint32_t)v);
    glow_store32_le(p + 4, (uint32_t)(v >> 32));
}

/* A hash's compression of one block into its state (SHA-1, SHA-256, SHA-512). */
typedef void (*glow_compress_function)(void *state, const uint8_t *block);

/* Feeds count bytes through a Merkle-Damgard hash whose partial block is block[0 ..< *used]. */
void glow_md_absorb(void *state, glow_compress_function compress, uint8_t *block, size_t block_size, size_t *used,
                    const uint8_t *bytes, size_t count);

/* Pads the partial block (0x80, zeros, the length in bits of a message of length bytes) and
   compresses what remains (FIPS 180-4 section 5.1). */
void glow_md_finish(void *state, glow_compress_function compress, uint8_t *block, size_t block_size, size_t used,
                    uint64_t length);

#define GLOW_ROTL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define GLOW_ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define GLOW_ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

#endif
