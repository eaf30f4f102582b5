/*
 * glow_aes_internal.h - helpers shared by aes256_ct.c, ghash_ct.c and
 * aes256gcm.c. Not part of the public API.
 */
#ifndef GLOW_AES_INTERNAL_H
#define GLOW_AES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Number of uint64_t words in the bitsliced AES-256 key schedule:
   15 round keys (FIPS 197 section 5.2, Nr = 14) of 8 bit-planes each. */
#define GLOW_AES256_RK_WORDS 120

/* Expands a 256-bit key into bitsliced round keys (FIPS 197 section 5.2). */
void glow_aes256_expand_key(uint64_t round_keys[GLOW_AES256_RK_WORDS], const uint8_t key[32]);

/* Encrypts four independent 16-byte blocks, in[0..63] -> out[0..63].
   in and out may be equal. */
void glow_aes256_encrypt4(const uint64_t round_keys[GLOW_AES256_RK_WORDS], const uint8_t in[64],
                          uint8_t out[64]);

/* Prepares the GHASH multiplier from the 16-byte hash subkey H. */
void glow_ghash_set_key(uint64_t ghash_key[6], const uint8_t h[16]);

/* Absorbs data into the GHASH state y (y[0] = bytes 0..7, y[1] = bytes 8..15
   of the running block, big-endian). A final partial block is zero-padded,
   as SP 800-38D section 7.1 step 5 pads A and C; so only the last call for
   one string may have a length that is not a multiple of 16. */
void glow_ghash_update(uint64_t y[2], const uint64_t ghash_key[6], const uint8_t *data,
                       size_t length);

#endif /* GLOW_AES_INTERNAL_H */
