/* SHA-256, FIPS 180-4 section 6.2. */
#include <string.h>

#include "glow_hash.h"
#include "glow_private.h"

static const uint32_t sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

static void sha256_compress(uint32_t state[8], const uint8_t *block) {
    uint32_t w[64];
    uint32_t a, b, c, d, e, f, g, h;
    int i;

    for (i = 0; i < 16; i++) {
        w[i] = glow_load32_be(block + 4 * i);
    }
    for (i = 16; i < 64; i++) {
        uint32_t x = w[i - 15], y = w[i - 2];
        uint32_t s0 = GLOW_ROTR32(x, 7) ^ GLOW_ROTR32(x, 18) ^ (x >> 3);
        uint32_t s1 = GLOW_ROTR32(y, 17) ^ GLOW_ROTR32(y, 19) ^ (y >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }

    a = state[0];
    b = state[1];
    c = state[2];
    d = state[3];
    e = state[4];
    f = state[5];
    g = state[6];
    h = state[7];

    for (i = 0; i < 64; i++) {
        uint32_t sum1 = GLOW_ROTR32(e, 6) ^ GLOW_ROTR32(e, 11) ^ GLOW_ROTR32(e, 25);
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t t1 = h + sum1 + choose + sha256_k[i] + w[i];
        uint32_t sum0 = GLOW_ROTR32(a, 2) ^ GLOW_ROTR32(a, 13) ^ GLOW_ROTR32(a, 22);
        uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = sum0 + majority;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }

    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void glow_sha256_init(glow_sha256_context *c) {
    c->state[0] = 0x6a09e667u;
    c->state[1] = 0xbb67ae85u;
    c->state[2] = 0x3c6ef372u;
    c->state[3] = 0xa54ff53au;
    c->state[4] = 0x510e527fu;
    c->state[5] = 0x9b05688cu;
    c->state[6] = 0x1f83d9abu;
    c->state[7] = 0x5be0cd19u;
    c->length = 0;
    c->used = 0;
    memset(c->block, 0, sizeof c->block);
}

/* The compression function behind the shared buffering's function pointer. */
static void sha256_compress_block(void *state, const uint8_t *block) {
    sha256_compress((uint32_t *)state, block);
}

void glow_sha256_update(glow_sha256_context *c, const uint8_t *bytes, size_t count) {
    c->length += (uint64_t)count;
    glow_md_absorb(c->state, sha256_compress_block, c->block, sizeof c->block, &c->used, bytes, count);
}

void glow_sha256_final(glow_sha256_context *c, uint8_t digest[32]) {
    int i;

    glow_md_finish(c->state, sha256_compress_block, c->block, sizeof c->block, c->used, c->length);
    for (i = 0; i < 8; i++) {
        glow_store32_be(digest + 4 * i, c->state[i]);
    }
    glow_wipe(c, sizeof *c);
}
