/*
 * glow_aes_gcm.h - portable, constant-time AES-256-GCM.
 *
 * AES-256 as specified in FIPS 197, GCM as specified in NIST SP 800-38D,
 * restricted to 256-bit keys, 96-bit nonces and 128-bit tags.
 *
 * Constant time: no branch and no memory address depends on the key, the
 * hash subkey, the nonce-derived keystream, the plaintext or the tag
 * comparison. AES is bitsliced (four blocks per call in eight 64-bit
 * words); GHASH uses a carry-less multiply built from integer multiplies.
 *
 * The context holds no pointers and is safe to copy. After
 * glow_aes256gcm_init it is read-only, so one context may be shared by
 * threads that seal/open concurrently.
 *
 * Limits (SP 800-38D section 5.2.1.1): a single message must not exceed
 * 2^36 - 32 bytes; larger messages would wrap the 32-bit block counter.
 * This is not checked. Never reuse a (key, nonce) pair.
 */
#ifndef GLOW_AES_GCM_H
#define GLOW_AES_GCM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Treat the fields as private. Size 1008 bytes, alignment of uint64_t. */
typedef struct {
    /* 15 AES-256 round keys in bitsliced form, each replicated across the
       four block lanes: 15 * 8 words. */
    uint64_t round_keys[120];
    /* GHASH subkey H = AES_K(0^128), pre-split for the multiplier. */
    uint64_t ghash_key[6];
} glow_aes256gcm_context;

void glow_aes256gcm_init(glow_aes256gcm_context *context, const uint8_t key[32]);

/* out receives length bytes of ciphertext followed by the 16-byte tag
   (length + 16 bytes in total). plaintext and out may be equal but must not
   otherwise overlap. */
void glow_aes256gcm_seal(const glow_aes256gcm_context *context, const uint8_t nonce[12],
                         const uint8_t *associated, size_t associated_length,
                         const uint8_t *plaintext, size_t length, uint8_t *out);

/* sealed is ciphertext || tag, sealed_length >= 16. out receives
   sealed_length - 16 bytes. Returns 0 when the tag authenticates; returns -1
   when it does not (out is then zero-filled) or when sealed_length < 16
   (out is then untouched). The tag check is constant time. sealed and out may
   be equal but must not otherwise overlap. */
int glow_aes256gcm_open(const glow_aes256gcm_context *context, const uint8_t nonce[12],
                        const uint8_t *associated, size_t associated_length,
                        const uint8_t *sealed, size_t sealed_length, uint8_t *out);

/* Zeroes the context through a volatile pointer, so the store is kept. */
void glow_aes256gcm_wipe(glow_aes256gcm_context *context);

/* Single-block AES-256 encryption with the context's key (for tests). */
void glow_aes256_encrypt_block(const glow_aes256gcm_context *context, const uint8_t in[16],
                               uint8_t out[16]);

#ifdef __cplusplus
}
#endif

#endif /* GLOW_AES_GCM_H */
