/* HMAC, RFC 2104, over SHA-1, SHA-256 and SHA-512. */
#include <string.h>

#include "glow_hash.h"

size_t glow_hash_size(glow_hash_function f) {
    switch (f) {
    case GLOW_HASH_SHA1:
        return GLOW_SHA1_DIGEST_SIZE;
    case GLOW_HASH_SHA256:
        return GLOW_SHA256_DIGEST_SIZE;
    case GLOW_HASH_SHA512:
        return GLOW_SHA512_DIGEST_SIZE;
    }
    return 0;
}

static size_t hash_block_size(glow_hash_function f) {
    switch (f) {
    case GLOW_HASH_SHA1:
        return GLOW_SHA1_BLOCK_SIZE;
    case GLOW_HASH_SHA256:
        return GLOW_SHA256_BLOCK_SIZE;
    case GLOW_HASH_SHA512:
        return GLOW_SHA512_BLOCK_SIZE;
    }
    return 0;
}

static void any_init(glow_hash_function f, glow_any_hash_context *c) {
    switch (f) {
    case GLOW_HASH_SHA1:
        glow_sha1_init(&c->sha1);
        break;
    case GLOW_HASH_SHA256:
        glow_sha256_init(&c->sha256);
        break;
    case GLOW_HASH_SHA512:
        glow_sha512_init(&c->sha512);
        break;
    }
}

static void any_update(glow_hash_function f, glow_any_hash_context *c, const uint8_t *bytes, size_t count) {
    switch (f) {
    case GLOW_HASH_SHA1:
        glow_sha1_update(&c->sha1, bytes, count);
        break;
    case GLOW_HASH_SHA256:
        glow_sha256_update(&c->sha256, bytes, count);
        break;
    case GLOW_HASH_SHA512:
        glow_sha512_update(&c->sha512, bytes, count);
        break;
    }
}

static void any_final(glow_hash_function f, glow_any_hash_context *c, uint8_t *digest) {
    switch (f) {
    case GLOW_HASH_SHA1:
        glow_sha1_final(&c->sha1, digest);
        break;
    case GLOW_HASH_SHA256:
        glow_sha256_final(&c->sha256, digest);
        break;
    case GLOW_HASH_SHA512:
        glow_sha512_final(&c->sha512, digest);
        break;
    }
}

int glow_hmac_init(glow_hmac_context *c, glow_hash_function f, const uint8_t *key, size_t key_length) {
    uint8_t pad[GLOW_SHA512_BLOCK_SIZE];
    size_t block_size = hash_block_size(f);
    size_t i;

    if (block_size == 0) {
        return -1;
    }
    c->function = f;
    memset(pad, 0, sizeof pad);
    if (key_length > block_size) {
        /* Long keys are replaced by their digest (placed at the front of the zero pad). */
        any_init(f, &c->inner);
        any_update(f, &c->inner, key, key_length);
        any_final(f, &c->inner, pad);
    } else if (key_length > 0) {
        memcpy(pad, key, key_length);
    }

    for (i = 0; i < block_size; i++) {
        pad[i] ^= 0x36;
    }
    any_init(f, &c->inner);
    any_update(f, &c->inner, pad, block_size);

    for (i = 0; i < block_size; i++) {
        pad[i] ^= 0x36 ^ 0x5c;
    }
    any_init(f, &c->outer);
    any_update(f, &c->outer, pad, block_size);

    glow_wipe(pad, sizeof pad);
    return 0;
}

void glow_hmac_update(glow_hmac_context *c, const uint8_t *bytes, size_t count) {
    any_update(c->function, &c->inner, bytes, count);
}

void glow_hmac_final(glow_hmac_context *c, uint8_t *out) {
    uint8_t inner_digest[GLOW_SHA512_DIGEST_SIZE];
    glow_hash_function f = c->function;

    if (glow_hash_size(f) == 0) {
        return;
    }
    memset(inner_digest, 0, sizeof inner_digest);
    any_final(f, &c->inner, inner_digest);
    any_update(f, &c->outer, inner_digest, glow_hash_size(f));
    any_final(f, &c->outer, out);
    glow_wipe(inner_digest, sizeof inner_digest);
    glow_wipe(c, sizeof *c);
}

void glow_hmac(glow_hash_function f, const uint8_t *key, size_t key_length,
               const uint8_t *message, size_t message_length, uint8_t *out) {
    glow_hmac_context c;
    if (glow_hmac_init(&c, f, key, key_length) != 0) {
        return;
    }
    glow_hmac_update(&c, message, message_length);
    glow_hmac_final(&c, out);
}
