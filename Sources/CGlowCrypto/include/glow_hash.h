/*
 * glow_hash.h - small portable hash primitives:
 *   SHA-1, SHA-256, SHA-512 (FIPS 180-4), HMAC over them (RFC 2104),
 *   BLAKE2b (RFC 7693) and Argon2id version 0x13 (RFC 9106).
 *
 * Plain C99/C11, no platform assumptions beyond <stdint.h> exact-width types.
 * All multi-byte values are loaded and stored byte by byte, so the code is
 * independent of the host's endianness and alignment rules.
 */
#ifndef GLOW_HASH_H
#define GLOW_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Overwrites n bytes at p with zeros through volatile stores, so the
   compiler cannot remove the writes even if p is never read again. */
void glow_wipe(void *p, size_t n);

/* ---------------------------------------------------------------- SHA */

#define GLOW_SHA1_DIGEST_SIZE 20
#define GLOW_SHA256_DIGEST_SIZE 32
#define GLOW_SHA512_DIGEST_SIZE 64
#define GLOW_SHA1_BLOCK_SIZE 64
#define GLOW_SHA256_BLOCK_SIZE 64
#define GLOW_SHA512_BLOCK_SIZE 128

typedef struct {
    uint32_t state[5];
    uint64_t length;  /* total bytes absorbed */
    uint8_t block[64];
    size_t used;      /* bytes pending in block */
} glow_sha1_context;

typedef struct {
    uint32_t state[8];
    uint64_t length;
    uint8_t block[64];
    size_t used;
} glow_sha256_context;

typedef struct {
    uint64_t state[8];
    uint64_t length;  /* bytes; the 128-bit bit count is derived from it */
    uint8_t block[128];
    size_t used;
} glow_sha512_context;

/* *_final writes the digest and then wipes the context; call *_init again
   before reusing it. */
void glow_sha1_init(glow_sha1_context *c);
void glow_sha1_update(glow_sha1_context *c, const uint8_t *bytes, size_t count);
void glow_sha1_final(glow_sha1_context *c, uint8_t digest[20]);

void glow_sha256_init(glow_sha256_context *c);
void glow_sha256_update(glow_sha256_context *c, const uint8_t *bytes, size_t count);
void glow_sha256_final(glow_sha256_context *c, uint8_t digest[32]);

void glow_sha512_init(glow_sha512_context *c);
void glow_sha512_update(glow_sha512_context *c, const uint8_t *bytes, size_t count);
void glow_sha512_final(glow_sha512_context *c, uint8_t digest[64]);

/* --------------------------------------------------------------- HMAC */

typedef enum {
    GLOW_HASH_SHA1 = 1,
    GLOW_HASH_SHA256 = 2,
    GLOW_HASH_SHA512 = 3
} glow_hash_function;

/* Digest size in bytes, or 0 for an unknown function. */
size_t glow_hash_size(glow_hash_function f);

typedef union {
    glow_sha1_context sha1;
    glow_sha256_context sha256;
    glow_sha512_context sha512;
} glow_any_hash_context;

typedef struct {
    glow_hash_function function;
    glow_any_hash_context inner;
    glow_any_hash_context outer;
} glow_hmac_context;

/* Incremental HMAC. glow_hmac_init returns 0, or -1 for an unknown function.
   glow_hmac_final writes glow_hash_size(f) bytes and wipes the context. */
int glow_hmac_init(glow_hmac_context *c, glow_hash_function f, const uint8_t *key, size_t key_length);
void glow_hmac_update(glow_hmac_context *c, const uint8_t *bytes, size_t count);
void glow_hmac_final(glow_hmac_context *c, uint8_t *out);

/* One-shot HMAC; writes glow_hash_size(f) bytes to out (nothing for an
   unknown function). key may be NULL when key_length is 0, likewise message. */
void glow_hmac(glow_hash_function f, const uint8_t *key, size_t key_length,
               const uint8_t *message, size_t message_length, uint8_t *out);

/* ------------------------------------------------------------ BLAKE2b */

#define GLOW_BLAKE2B_BLOCK_SIZE 128
#define GLOW_BLAKE2B_MAX_OUT 64
#define GLOW_BLAKE2B_MAX_KEY 64

typedef struct {
    uint64_t h[8];
    uint64_t t[2];       /* 128-bit byte counter, low word first */
    uint8_t block[128];
    size_t used;
    size_t out_length;
} glow_blake2b_context;

/* out_length 1..64, key_length 0..64 (key may be NULL when 0).
   Returns 0, or -1 on bad lengths. glow_blake2b_final writes out_length
   bytes and wipes the context. */
int glow_blake2b_init(glow_blake2b_context *c, size_t out_length, const uint8_t *key, size_t key_length);
void glow_blake2b_update(glow_blake2b_context *c, const uint8_t *bytes, size_t count);
void glow_blake2b_final(glow_blake2b_context *c, uint8_t *out);

/* One-shot convenience; same return codes as glow_blake2b_init. */
int glow_blake2b(uint8_t *out, size_t out_length, const uint8_t *key, size_t key_length,
                 const uint8_t *bytes, size_t count);

/* ----------------------------------------------------------- Argon2id */

#define GLOW_ARGON2_OK 0
#define GLOW_ARGON2_BAD_PARAMETERS (-1)
#define GLOW_ARGON2_NO_MEMORY (-2)

/* Argon2id, version 0x13 (RFC 9106). Lanes are computed one after another
   in a single thread; the result equals the reference implementation's for
   any thread count.
     lanes       1 .. 0xFFFFFF
     passes      >= 1
     memory_kib  >= 8 * lanes (rounded down to a multiple of 4 * lanes blocks)
     salt_length >= 8, tag_length >= 4 (tags longer than 64 bytes use H')
     all input lengths must fit in 32 bits
   password, secret and associated may be NULL when their length is 0.
   Returns 0, GLOW_ARGON2_BAD_PARAMETERS or GLOW_ARGON2_NO_MEMORY. The work
   memory (and every intermediate secret) is wiped before returning. */
int glow_argon2id(const uint8_t *password, size_t password_length,
                  const uint8_t *salt, size_t salt_length,
                  const uint8_t *secret, size_t secret_length,
                  const uint8_t *associated, size_t associated_length,
                  uint32_t passes, uint32_t memory_kib, uint32_t lanes,
                  uint8_t *tag, size_t tag_length);

#ifdef __cplusplus
}
#endif

#endif /* GLOW_HASH_H */
