/*
 * aes256gcm.c - GCM mode (NIST SP 800-38D) over the bitsliced AES-256.
 *
 * Only 96-bit IVs, so J0 = IV || 0^31 || 1 (section 7.1, step 2), and only
 * 128-bit tags. The block counter is incremented with inc32 (section 6.2):
 * the low 32 bits, big-endian, modulo 2^32.
 *
 * Keystream is produced four blocks per AES call. The first call encrypts
 * J0, inc32(J0), ... so that E_K(J0) (needed for the tag, section 7.1 step
 * 6) shares work with the first three keystream blocks.
 */
#include <string.h>

#include "glow_aes_gcm.h"
#include "glow_aes_internal.h"
#include "glow_hash.h"
#include "glow_private.h"

/* Four counter blocks: nonce || [counter + k]_32 for k = 0..3 (inc32 wraps
   modulo 2^32 by unsigned arithmetic). */
static void counter_blocks(uint8_t blocks[64], const uint8_t nonce[12], uint32_t counter)
{
    unsigned k;
    for (k = 0; k < 4; k++) {
        memcpy(blocks + 16 * k, nonce, 12);
        glow_store32_be(blocks + 16 * k + 12, counter + k);
    }
}

/*
 * GCTR (section 6.5) starting at inc32(J0): out = (in ^ keystream) & mask.
 * first[16..63] holds the keystream for counters 2, 3, 4 (computed with
 * E_K(J0)); later keystream starts at counter 5. mask is 0xFF to encrypt or
 * decrypt, 0x00 to write zeros instead (failed authentication) - a mask
 * rather than a branch so the work does not depend on the tag check.
 * in == out is allowed: every byte is read before it is written.
 */
static void gctr(const glow_aes256gcm_context *context, const uint8_t nonce[12],
                 const uint8_t first[64], const uint8_t *in, uint8_t *out, size_t length,
                 uint8_t mask)
{
    uint8_t buf[64];
    const uint8_t *ks = first + 16;
    size_t avail = 48;
    uint32_t counter = 5;
    const uint64_t mask64 = (uint64_t)0 - (uint64_t)(mask & 1u); /* mask is 0x00 or 0xFF */

    while (length > 0) {
        size_t n, i;
        if (avail == 0) {
            counter_blocks(buf, nonce, counter);
            glow_aes256_encrypt4(context->round_keys, buf, buf);
            counter += 4;
            ks = buf;
            avail = 64;
        }
        n = length < avail ? length : avail;
        /* 8 bytes at a time through memcpy (no alignment assumption; the
           byte order does not matter for XOR/AND). Each word is read
           before it is written, so in == out works. */
        for (i = 0; i + 8 <= n; i += 8) {
            uint64_t a, b;
            memcpy(&a, in + i, 8);
            memcpy(&b, ks + i, 8);
            a = (a ^ b) & mask64;
            memcpy(out + i, &a, 8);
        }
        for (; i < n; i++) {
            out[i] = (uint8_t)((in[i] ^ ks[i]) & mask);
        }
        in += n;
        out += n;
        ks += n;
        length -= n;
        avail -= n;
    }
    glow_wipe(buf, sizeof buf);
}

/* Tag T = GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64)
   XOR E_K(J0) (section 7.1, steps 5-6). Lengths are in bits, computed in
   64-bit arithmetic because size_t may be 32 bits. */
static void compute_tag(const glow_aes256gcm_context *context, const uint8_t ek_j0[16],
                        const uint8_t *associated, size_t associated_length,
                        const uint8_t *ciphertext, size_t length, uint8_t tag[16])
{
    uint64_t y[2] = {0, 0};
    uint8_t lengths[16];
    unsigned i;

    glow_ghash_update(y, context->ghash_key, associated, associated_length);
    glow_ghash_update(y, context->ghash_key, ciphertext, length);
    glow_store64_be(lengths, (uint64_t)associated_length * 8u);
    glow_store64_be(lengths + 8, (uint64_t)length * 8u);
    glow_ghash_update(y, context->ghash_key, lengths, 16);
    glow_store64_be(tag, y[0]);
    glow_store64_be(tag + 8, y[1]);
    for (i = 0; i < 16; i++) {
        tag[i] ^= ek_j0[i];
    }
    glow_wipe(y, sizeof y);
}

void glow_aes256gcm_init(glow_aes256gcm_context *context, const uint8_t key[32])
{
    uint8_t h[16];
    glow_aes256_expand_key(context->round_keys, key);
    /* hash subkey H = CIPH_K(0^128) (section 6.4 / 7.1 step 1) */
    memset(h, 0, sizeof h);
    glow_aes256_encrypt_block(context, h, h);
    glow_ghash_set_key(context->ghash_key, h);
    glow_wipe(h, sizeof h);
}

void glow_aes256_encrypt_block(const glow_aes256gcm_context *context, const uint8_t in[16],
                               uint8_t out[16])
{
    /* Encrypt in lane 0; lanes 1..3 encrypt zero blocks and are dropped. */
    uint8_t buf[64];
    memset(buf, 0, sizeof buf);
    memcpy(buf, in, 16);
    glow_aes256_encrypt4(context->round_keys, buf, buf);
    memcpy(out, buf, 16);
    glow_wipe(buf, sizeof buf);
}

void glow_aes256gcm_seal(const glow_aes256gcm_context *context, const uint8_t nonce[12],
                         const uint8_t *associated, size_t associated_length,
                         const uint8_t *plaintext, size_t length, uint8_t *out)
{
    uint8_t first[64]; /* E_K(J0) || keystream blocks 2..4 */

    counter_blocks(first, nonce, 1);
    glow_aes256_encrypt4(context->round_keys, first, first);
    gctr(context, nonce, first, plaintext, out, length, 0xFF);
    compute_tag(context, first, associated, associated_length, out, length, out + length);
    glow_wipe(first, sizeof first);
}

int glow_aes256gcm_open(const glow_aes256gcm_context *context, const uint8_t nonce[12],
                        const uint8_t *associated, size_t associated_length,
                        const uint8_t *sealed, size_t sealed_length, uint8_t *out)
{
    uint8_t first[64];
    uint8_t tag[16];
    uint32_t diff = 0;
    uint8_t mask;
    size_t length;
    unsigned i;

    if (sealed_length < 16) {
        return -1; /* depends on the public length only */
    }
    length = sealed_length - 16;

    /* Authenticate the ciphertext before it is decrypted (section 7.2), so
       no unauthenticated plaintext is ever written, even in place. */
    counter_blocks(first, nonce, 1);
    glow_aes256_encrypt4(context->round_keys, first, first);
    compute_tag(context, first, associated, associated_length, sealed, length, tag);

    /* Constant-time comparison: OR the differences together, then turn
       "diff == 0" into an all-ones byte without a branch. */
    for (i = 0; i < 16; i++) {
        diff |= (uint32_t)(tag[i] ^ sealed[length + i]);
    }
    mask = (uint8_t)((diff - 1u) >> 8); /* 0xFF if diff == 0, else 0x00 */

    /* Decrypt, or write zeros when the tag did not match. */
    gctr(context, nonce, first, sealed, out, length, mask);

    glow_wipe(first, sizeof first);
    glow_wipe(tag, sizeof tag);
    return (int)(mask & 1u) - 1; /* 0 or -1 */
}

void glow_aes256gcm_wipe(glow_aes256gcm_context *context)
{
    glow_wipe(context, sizeof *context);
}
