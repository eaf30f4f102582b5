/*
 * ghash_ct.c - constant-time GHASH (NIST SP 800-38D section 6.4).
 *
 * GHASH_H(X_1 .. X_m): Y_0 = 0, Y_i = (Y_{i-1} ^ X_i) * H in GF(2^128)
 * modulo x^128 + x^7 + x^2 + x + 1 (section 6.3).
 *
 * Bit order: SP 800-38D numbers the bits of a block from the left, and bit
 * 0 (the most significant bit of byte 0) is the coefficient of x^0. We load
 * a block as a big-endian 128-bit integer (hi:lo), so the coefficient of x^i
 * sits at integer bit 127 - i: the polynomial is stored bit-reflected.
 *
 * Multiplication uses only integer multiplies, XOR, AND and shifts on
 * values, with no secret-dependent branch or address. No tables.
 */
#include <string.h>

#include "glow_aes_internal.h"
#include "glow_hash.h"
#include "glow_private.h"

/*
 * Low 64 bits of the carry-less product of x and y, from four ordinary
 * multiplies per pair of "holey" operands.
 *
 * Split each operand into four parts keeping only bits whose index is
 * congruent to 0, 1, 2, 3 mod 4. In the integer product x_i * y_j all
 * partial-product bits land on positions congruent to i + j mod 4, so
 * between two such positions there are three empty bits. The count
 * accumulated at a position is at most 16 (one per set bit of the 16-bit
 * spaced operand), and reaches 16 only at positions >= 60, whose carries
 * leave the 64-bit word. So every count below 16 fits in its 4-bit field
 * without spilling into the next same-residue position, and bit k of the
 * product is the parity of the count, which is the carry-less product bit.
 * Products with the same residue are XORed and finally masked to their
 * residue positions. 64x64->64 multiplies are constant time on the
 * targeted CPUs (x86-64, arm64, arm64_32; armv7 uses UMULL/MLA).
 */
static inline uint64_t clmul_lo(uint64_t x, uint64_t y)
{
    const uint64_t m0 = 0x1111111111111111ull;
    const uint64_t m1 = 0x2222222222222222ull;
    const uint64_t m2 = 0x4444444444444444ull;
    const uint64_t m3 = 0x8888888888888888ull;
    uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
    uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
    uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

/* Reverses the order of the 64 bits of x. */
static inline uint64_t rev64(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    x = ((x >> 8) & 0x00FF00FF00FF00FFull) | ((x & 0x00FF00FF00FF00FFull) << 8);
    x = ((x >> 16) & 0x0000FFFF0000FFFFull) | ((x & 0x0000FFFF0000FFFFull) << 16);
    return (x >> 32) | (x << 32);
}

/*
 * Key layout: [0] = H hi, [1] = H lo, [2] = hi ^ lo (Karatsuba middle
 * operand), [3..5] = the same three bit-reversed.
 *
 * The high half of a 64x64 carry-less product comes from the low half of the
 * product of the bit-reversed operands: bit k of clmul(rev x, rev y) is bit
 * 126 - k of clmul(x, y), so rev64(clmul_lo(rev x, rev y)) >> 1 is bits
 * 64..127. Reversing H once here saves work per block.
 */
void glow_ghash_set_key(uint64_t ghash_key[6], const uint8_t h[16])
{
    uint64_t hi = glow_load64_be(h), lo = glow_load64_be(h + 8);
    ghash_key[0] = hi;
    ghash_key[1] = lo;
    ghash_key[2] = hi ^ lo;
    ghash_key[3] = rev64(hi);
    ghash_key[4] = rev64(lo);
    ghash_key[5] = rev64(hi ^ lo);
}

/* y <- y * H in GF(2^128), bit-reflected representation. */
static void gf128_mul(uint64_t y[2], const uint64_t k[6])
{
    uint64_t a1 = y[0], a0 = y[1], a2 = a0 ^ a1;
    uint64_t r1 = rev64(a1), r0 = rev64(a0), r2 = r0 ^ r1; /* rev64 is linear */
    uint64_t p0, p1, p2, p3;

    /* Karatsuba on 64-bit halves: three 64x64 -> 128 carry-less products,
       each as (high, low) from clmul_lo on reversed and plain operands. */
    uint64_t lo0 = clmul_lo(a0, k[1]), lo1 = clmul_lo(a1, k[0]), lo2 = clmul_lo(a2, k[2]);
    uint64_t hi0 = rev64(clmul_lo(r0, k[4])) >> 1;
    uint64_t hi1 = rev64(clmul_lo(r1, k[3])) >> 1;
    uint64_t hi2 = rev64(clmul_lo(r2, k[5])) >> 1;
    lo2 ^= lo0 ^ lo1; /* middle term a0*b1 ^ a1*b0 */
    hi2 ^= hi0 ^ hi1;

    /* 255-bit product p3:p2:p1:p0 */
    p0 = lo0;
    p1 = hi0 ^ lo2;
    p2 = lo1 ^ hi2;
    p3 = hi1;

    /* In reflected form the coefficient of x^k of the product sits at bit
       254 - k; shifting left by one puts it at 255 - k, so that the top 128
       bits are x^0..x^127 and the low 128 bits are x^128..x^255. */
    p3 = (p3 << 1) | (p2 >> 63);
    p2 = (p2 << 1) | (p1 >> 63);
    p1 = (p1 << 1) | (p0 >> 63);
    p0 <<= 1;

    /* Reduction: x^(128+m) = x^m * (1 + x + x^2 + x^7). A bit at position p
       of the low half (degree 255 - p) therefore adds bits p + 128, p + 127,
       p + 126 and p + 121. Fold word p0 (lands in p1/p2, all >= bit 121),
       then word p1 (lands in p2/p3, all >= bit 185). */
    p2 ^= p0 ^ (p0 >> 1) ^ (p0 >> 2) ^ (p0 >> 7);
    p1 ^= (p0 << 63) ^ (p0 << 62) ^ (p0 << 57);
    p3 ^= p1 ^ (p1 >> 1) ^ (p1 >> 2) ^ (p1 >> 7);
    p2 ^= (p1 << 63) ^ (p1 << 62) ^ (p1 << 57);

    y[0] = p3;
    y[1] = p2;
}

void glow_ghash_update(uint64_t y[2], const uint64_t ghash_key[6], const uint8_t *data,
                       size_t length)
{
    while (length >= 16) {
        y[0] ^= glow_load64_be(data);
        y[1] ^= glow_load64_be(data + 8);
        gf128_mul(y, ghash_key);
        data += 16;
        length -= 16;
    }
    if (length > 0) {
        /* zero padding to a whole block (SP 800-38D section 7.1, step 5) */
        uint8_t last[16];
        memset(last, 0, sizeof last);
        memcpy(last, data, length);
        y[0] ^= glow_load64_be(last);
        y[1] ^= glow_load64_be(last + 8);
        gf128_mul(y, ghash_key);
        glow_wipe(last, sizeof last);
    }
}
