/*
 * aes256_ct.c - bitsliced, constant-time AES-256 (FIPS 197), four blocks
 * per call.
 *
 * State representation
 * --------------------
 * Four 16-byte blocks (64 bytes) are held in eight 64-bit words q[0..7].
 * Word q[b] holds bit b (b = 0 is the least significant bit) of all 64
 * bytes. Inside a word, the byte at row r, column c (FIPS 197 section 3.4:
 * input byte k goes to row k % 4, column k / 4) of block n sits at
 *
 *     bit 16*r + 4*c + n.
 *
 * So each row is a 16-bit lane, each column a 4-bit nibble inside it, and
 * the four blocks are the four bits of a nibble. With this layout
 *   - SubBytes is a Boolean circuit applied to the eight words at once;
 *   - ShiftRows is a rotation of nibbles inside each 16-bit lane (and is
 *     mostly skipped, see "Skipping ShiftRows");
 *   - MixColumns needs "the byte one row below", which is a 64-bit
 *     rotation by 16 (plus a nibble rotation when ShiftRows was skipped).
 * Nothing is ever indexed by data and no branch depends on data, so timing
 * cannot depend on it. Plain 64-bit arithmetic only (on 32-bit targets the
 * compiler splits it into pairs of 32-bit operations, still branch-free).
 */
#include <string.h>

#include "glow_aes_internal.h"
#include "glow_hash.h"
#include "glow_private.h"

/* ---- conversion between bytes and the bitsliced layout ---- */

/* Moves byte i of x to byte 2*i of the result (odd bytes become zero). */
static uint64_t spread_bytes(uint32_t x)
{
    uint64_t v = x;
    v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
    v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
    return v;
}

/* Inverse of spread_bytes: collects the even bytes of v. */
static uint32_t gather_bytes(uint64_t v)
{
    v &= 0x00FF00FF00FF00FFull;
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
    v = (v | (v >> 16)) & 0x00000000FFFFFFFFull;
    return (uint32_t)v;
}

/* Exchanges the bits of *a at positions p + n with the bits of *b at the
   positions p selected by mask. */
static void swap_bits(uint64_t *a, uint64_t *b, uint64_t mask, unsigned n)
{
    uint64_t t = ((*a >> n) ^ *b) & mask;
    *b ^= t;
    *a ^= t << n;
}

/* Treats every byte column j of w[0..7] as an 8x8 bit matrix and transposes
   it: afterwards bit 8*j + i of w[b] is what bit 8*j + b of w[i] was.
   A transpose is its own inverse, so this converts in both directions. */
static void transpose8(uint64_t w[8])
{
    swap_bits(&w[0], &w[1], 0x5555555555555555ull, 1);
    swap_bits(&w[2], &w[3], 0x5555555555555555ull, 1);
    swap_bits(&w[4], &w[5], 0x5555555555555555ull, 1);
    swap_bits(&w[6], &w[7], 0x5555555555555555ull, 1);
    swap_bits(&w[0], &w[2], 0x3333333333333333ull, 2);
    swap_bits(&w[1], &w[3], 0x3333333333333333ull, 2);
    swap_bits(&w[4], &w[6], 0x3333333333333333ull, 2);
    swap_bits(&w[5], &w[7], 0x3333333333333333ull, 2);
    swap_bits(&w[0], &w[4], 0x0F0F0F0F0F0F0F0Full, 4);
    swap_bits(&w[1], &w[5], 0x0F0F0F0F0F0F0F0Full, 4);
    swap_bits(&w[2], &w[6], 0x0F0F0F0F0F0F0F0Full, 4);
    swap_bits(&w[3], &w[7], 0x0F0F0F0F0F0F0F0Full, 4);
}

/*
 * Bytes -> bitsliced. Target position 16r + 4c + n = 8*j + i with
 * i = 4*(c & 1) + n and j = 2*r + (c >> 1). So before the transpose, word
 * i = n (even columns of block n) must hold, in byte j, the state byte at
 * row j/2 of column 2*(j&1): block bytes 0,8,1,9,2,10,3,11 - i.e. the bytes
 * of words 0 and 2 of the block interleaved. Word 4 + n holds the odd
 * columns (block bytes 4,12,5,13,...).
 */
static void bitslice_load(uint64_t q[8], const uint8_t in[64])
{
    unsigned n;
    for (n = 0; n < 4; n++) {
        const uint8_t *blk = in + 16 * n;
        q[n] = spread_bytes(glow_load32_le(blk)) | (spread_bytes(glow_load32_le(blk + 8)) << 8);
        q[n + 4] = spread_bytes(glow_load32_le(blk + 4)) | (spread_bytes(glow_load32_le(blk + 12)) << 8);
    }
    transpose8(q);
}

/* Bitsliced -> bytes (destroys q). */
static void bitslice_store(uint8_t out[64], uint64_t q[8])
{
    unsigned n;
    transpose8(q);
    for (n = 0; n < 4; n++) {
        uint8_t *blk = out + 16 * n;
        glow_store32_le(blk, gather_bytes(q[n]));
        glow_store32_le(blk + 8, gather_bytes(q[n] >> 8));
        glow_store32_le(blk + 4, gather_bytes(q[n + 4]));
        glow_store32_le(blk + 12, gather_bytes(q[n + 4] >> 8));
    }
}

/* ---- the round transformations (FIPS 197 section 5.1) ---- */

/*
 * SubBytes (section 5.1.1) as a Boolean circuit: the 113-gate, depth-16
 * circuit of J. Boyar and R. Peralta, "A depth-16 circuit for the AES S-box"
 * (2011), with its published names: a top linear layer T1..T27, a shared
 * non-linear middle M1..M63 (GF(2^4)-tower inversion) and a bottom linear
 * layer L0..L29 that also folds in the affine map. U0 is the most
 * significant input bit, S0 the most significant output bit; the XNOR
 * outputs carry the 0x63 constant. Checked against the S-box definition by
 * tools/sbox_circuit_check.py.
 */
static void sub_bytes(uint64_t q[8])
{
    uint64_t U0 = q[7], U1 = q[6], U2 = q[5], U3 = q[4];
    uint64_t U4 = q[3], U5 = q[2], U6 = q[1], U7 = q[0];
    uint64_t T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14;
    uint64_t T15, T16, T17, T18, T19, T20, T21, T22, T23, T24, T25, T26, T27;
    uint64_t M1, M2, M3, M4, M5, M6, M7, M8, M9, M10, M11, M12, M13, M14, M15, M16;
    uint64_t M17, M18, M19, M20, M21, M22, M23, M24, M25, M26, M27, M28, M29, M30;
    uint64_t M31, M32, M33, M34, M35, M36, M37, M38, M39, M40, M41, M42, M43, M44;
    uint64_t M45, M46, M47, M48, M49, M50, M51, M52, M53, M54, M55, M56, M57, M58;
    uint64_t M59, M60, M61, M62, M63;
    uint64_t L0, L1, L2, L3, L4, L5, L6, L7, L8, L9, L10, L11, L12, L13, L14;
    uint64_t L15, L16, L17, L18, L19, L20, L21, L22, L23, L24, L25, L26, L27;
    uint64_t L28, L29;

    /* top linear layer */
    T1 = U0 ^ U3;
    T2 = U0 ^ U5;
    T3 = U0 ^ U6;
    T4 = U3 ^ U5;
    T5 = U4 ^ U6;
    T6 = T1 ^ T5;
    T7 = U1 ^ U2;
    T8 = U7 ^ T6;
    T9 = U7 ^ T7;
    T10 = T6 ^ T7;
    T11 = U1 ^ U5;
    T12 = U2 ^ U5;
    T13 = T3 ^ T4;
    T14 = T6 ^ T11;
    T15 = T5 ^ T11;
    T16 = T5 ^ T12;
    T17 = T9 ^ T16;
    T18 = U3 ^ U7;
    T19 = T7 ^ T18;
    T20 = T1 ^ T19;
    T21 = U6 ^ U7;
    T22 = T7 ^ T21;
    T23 = T2 ^ T22;
    T24 = T2 ^ T10;
    T25 = T20 ^ T17;
    T26 = T3 ^ T16;
    T27 = T1 ^ T12;

    /* non-linear middle */
    M1 = T13 & T6;
    M2 = T23 & T8;
    M3 = T14 ^ M1;
    M4 = T19 & U7;
    M5 = M4 ^ M1;
    M6 = T3 & T16;
    M7 = T22 & T9;
    M8 = T26 ^ M6;
    M9 = T20 & T17;
    M10 = M9 ^ M6;
    M11 = T1 & T15;
    M12 = T4 & T27;
    M13 = M12 ^ M11;
    M14 = T2 & T10;
    M15 = M14 ^ M11;
    M16 = M3 ^ M2;
    M17 = M5 ^ T24;
    M18 = M8 ^ M7;
    M19 = M10 ^ M15;
    M20 = M16 ^ M13;
    M21 = M17 ^ M15;
    M22 = M18 ^ M13;
    M23 = M19 ^ T25;
    M24 = M22 ^ M23;
    M25 = M22 & M20;
    M26 = M21 ^ M25;
    M27 = M20 ^ M21;
    M28 = M23 ^ M25;
    M29 = M28 & M27;
    M30 = M26 & M24;
    M31 = M20 & M23;
    M32 = M27 & M31;
    M33 = M27 ^ M25;
    M34 = M21 & M22;
    M35 = M24 & M34;
    M36 = M24 ^ M25;
    M37 = M21 ^ M29;
    M38 = M32 ^ M33;
    M39 = M23 ^ M30;
    M40 = M35 ^ M36;
    M41 = M38 ^ M40;
    M42 = M37 ^ M39;
    M43 = M37 ^ M38;
    M44 = M39 ^ M40;
    M45 = M42 ^ M41;
    M46 = M44 & T6;
    M47 = M40 & T8;
    M48 = M39 & U7;
    M49 = M43 & T16;
    M50 = M38 & T9;
    M51 = M37 & T17;
    M52 = M42 & T15;
    M53 = M45 & T27;
    M54 = M41 & T10;
    M55 = M44 & T13;
    M56 = M40 & T23;
    M57 = M39 & T19;
    M58 = M43 & T3;
    M59 = M38 & T22;
    M60 = M37 & T20;
    M61 = M42 & T1;
    M62 = M45 & T4;
    M63 = M41 & T2;

    /* bottom linear layer (includes the affine transformation) */
    L0 = M61 ^ M62;
    L1 = M50 ^ M56;
    L2 = M46 ^ M48;
    L3 = M47 ^ M55;
    L4 = M54 ^ M58;
    L5 = M49 ^ M61;
    L6 = M62 ^ L5;
    L7 = M46 ^ L3;
    L8 = M51 ^ M59;
    L9 = M52 ^ M53;
    L10 = M53 ^ L4;
    L11 = M60 ^ L2;
    L12 = M48 ^ M51;
    L13 = M50 ^ L0;
    L14 = M52 ^ M61;
    L15 = M55 ^ L1;
    L16 = M56 ^ L0;
    L17 = M57 ^ L1;
    L18 = M58 ^ L8;
    L19 = M63 ^ L4;
    L20 = L0 ^ L1;
    L21 = L1 ^ L7;
    L22 = L3 ^ L12;
    L23 = L18 ^ L2;
    L24 = L15 ^ L9;
    L25 = L6 ^ L10;
    L26 = L7 ^ L9;
    L27 = L8 ^ L10;
    L28 = L11 ^ L14;
    L29 = L11 ^ L17;

    q[7] = L6 ^ L24;        /* S0 */
    q[6] = ~(L16 ^ L26);    /* S1 */
    q[5] = ~(L19 ^ L28);    /* S2 */
    q[4] = L6 ^ L21;        /* S3 */
    q[3] = L20 ^ L22;       /* S4 */
    q[2] = L25 ^ L29;       /* S5 */
    q[1] = ~(L13 ^ L27);    /* S6 */
    q[0] = ~(L6 ^ L23);     /* S7 */
}

/* ShiftRows (section 5.1.2): row r moves left by r columns, i.e. the new
   column c of row r is the old column (c + r) mod 4. In a 16-bit row lane
   that is a right rotation by 4*r bits. Only used outside the round loop
   (key schedule and the final fix-up); see "Skipping ShiftRows" below. */
static void shift_rows(uint64_t q[8])
{
    unsigned b;
    for (b = 0; b < 8; b++) {
        uint64_t x = q[b];
        q[b] = (x & 0x000000000000FFFFull)
             | ((x >> 4) & 0x000000000FFF0000ull) | ((x << 12) & 0x00000000F0000000ull)
             | ((x >> 8) & 0x000000FF00000000ull) | ((x << 8) & 0x0000FF0000000000ull)
             | ((x >> 12) & 0x000F000000000000ull) | ((x << 4) & 0xFFF0000000000000ull);
    }
}

/* SR^2: rows 1 and 3 move by two columns (swap the bytes of their 16-bit
   lane), rows 0 and 2 stay. Used once per call to undo the drift. */
static void shift_rows_twice(uint64_t q[8])
{
    unsigned b;
    for (b = 0; b < 8; b++) {
        uint64_t t = ((q[b] >> 8) ^ q[b]) & 0x00FF000000FF0000ull;
        q[b] ^= t ^ (t << 8);
    }
}

/*
 * Skipping ShiftRows
 * ------------------
 * ShiftRows costs more than the S-box circuit in this layout, so the round
 * loop leaves it out and lets the state drift instead (the "fixslicing"
 * idea of Adomnicai and Peyrin, TCHES 2021). Write SR for ShiftRows, with
 * SR^j(X)[r][c] = X[r][(c + j*r) mod 4], and SR^4 = identity.
 *
 * We keep a stored state T with true state S = SR^(j-1)(T) before round j.
 * SubBytes is bytewise, so it commutes with SR. Round j then needs
 *     MixColumns(SR^j(T)) ^ K_j = SR^j( MC_j(T) ^ SR^-j(K_j) ),
 * where MC_j = SR^-j . MixColumns . SR^j. So the key schedule stores
 * SR^-j(K_j), and MC_j is MixColumns in which "the byte one row below" is
 * taken i = j mod 4 columns further right:
 *     T'[r][d] = 2 T[r][d] ^ 3 T[r+1][d+i] ^ T[r+2][d+2i] ^ T[r+3][d+3i].
 * After round 14 the true output is SR^14(T) = SR^2(T): one fix-up.
 *
 * Moving row r+1, column d+i onto row r, column d is a 64-bit rotation
 * right by 16 + 4i, except for the columns that wrap around inside the
 * 16-bit row lane, which need a rotation by 4i instead; two rotations and
 * two masks. Moving two rows (offset 2i) is a rotation by 32 when i is even.
 */
static uint64_t rotr(uint64_t x, unsigned n) /* 0 < n < 64 */
{
    return (x >> n) | (x << (64 - n));
}

/* T[r+1][d+i] onto [r][d], for i = 0, 1, 2, 3 */
static uint64_t next_row_0(uint64_t x)
{
    return rotr(x, 16);
}
static uint64_t next_row_1(uint64_t x)
{
    return (rotr(x, 20) & 0x0FFF0FFF0FFF0FFFull) | (rotr(x, 4) & 0xF000F000F000F000ull);
}
static uint64_t next_row_2(uint64_t x)
{
    return (rotr(x, 24) & 0x00FF00FF00FF00FFull) | (rotr(x, 8) & 0xFF00FF00FF00FF00ull);
}
static uint64_t next_row_3(uint64_t x)
{
    return (rotr(x, 28) & 0x000F000F000F000Full) | (rotr(x, 12) & 0xFFF0FFF0FFF0FFF0ull);
}

/* T[r+2][d+2i] onto [r][d]: 2i mod 4 is 0 for even i, 2 for odd i */
static uint64_t two_rows_even(uint64_t x)
{
    return rotr(x, 32);
}
static uint64_t two_rows_odd(uint64_t x)
{
    return (rotr(x, 40) & 0x00FF00FF00FF00FFull) | (rotr(x, 24) & 0xFF00FF00FF00FF00ull);
}

/*
 * MixColumns (section 5.1.3). For each column,
 *     s'_r = 2*s_r ^ 3*s_{r+1} ^ s_{r+2} ^ s_{r+3}
 *          = 2*(s_r ^ s_{r+1}) ^ s_{r+1} ^ (s_{r+2} ^ s_{r+3}).
 * With n = NEXT(q) ("row below") and t = q ^ n, that is
 *     s' = xtime(t) ^ n ^ TWO(t).
 * xtime (multiplication by x modulo x^8 + x^4 + x^3 + x + 1, section 4.2.1)
 * on bit-planes is a shift of the plane index with the top plane fed back
 * into planes 0, 1, 3 and 4. NEXT/TWO select the drift variant (above).
 * Written with scalar temporaries rather than loops over arrays: gcc would
 * otherwise vectorise the loops with SSE2 and lose time moving between
 * register files.
 */
#define MIX_COLUMNS_BODY(q, NEXT, TWO)                                          \
    do {                                                                        \
        uint64_t q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];                    \
        uint64_t q4 = q[4], q5 = q[5], q6 = q[6], q7 = q[7];                    \
        uint64_t n0 = NEXT(q0), n1 = NEXT(q1), n2 = NEXT(q2), n3 = NEXT(q3);    \
        uint64_t n4 = NEXT(q4), n5 = NEXT(q5), n6 = NEXT(q6), n7 = NEXT(q7);    \
        uint64_t t0 = q0 ^ n0, t1 = q1 ^ n1, t2 = q2 ^ n2, t3 = q3 ^ n3;        \
        uint64_t t4 = q4 ^ n4, t5 = q5 ^ n5, t6 = q6 ^ n6, t7 = q7 ^ n7;        \
        q[0] = n0 ^ TWO(t0) ^ t7;                                               \
        q[1] = n1 ^ TWO(t1) ^ t0 ^ t7;                                          \
        q[2] = n2 ^ TWO(t2) ^ t1;                                               \
        q[3] = n3 ^ TWO(t3) ^ t2 ^ t7;                                          \
        q[4] = n4 ^ TWO(t4) ^ t3 ^ t7;                                          \
        q[5] = n5 ^ TWO(t5) ^ t4;                                               \
        q[6] = n6 ^ TWO(t6) ^ t5;                                               \
        q[7] = n7 ^ TWO(t7) ^ t6;                                               \
    } while (0)

static void mix_columns_0(uint64_t q[8])
{
    MIX_COLUMNS_BODY(q, next_row_0, two_rows_even);
}
static void mix_columns_1(uint64_t q[8])
{
    MIX_COLUMNS_BODY(q, next_row_1, two_rows_odd);
}
static void mix_columns_2(uint64_t q[8])
{
    MIX_COLUMNS_BODY(q, next_row_2, two_rows_even);
}
static void mix_columns_3(uint64_t q[8])
{
    MIX_COLUMNS_BODY(q, next_row_3, two_rows_odd);
}

/* AddRoundKey (section 5.1.4). */
static void add_round_key(uint64_t q[8], const uint64_t *rk)
{
    unsigned b;
    for (b = 0; b < 8; b++) {
        q[b] ^= rk[b];
    }
}

/* ---- key expansion (FIPS 197 section 5.2) ---- */

/* SubWord: the S-box on the four bytes of w, computed with the same
   bitsliced circuit (bytes placed in lanes 0..3 of the bit-planes), so the
   key schedule does not use a table either. Loops run over public indices. */
static uint32_t sub_word(uint32_t w)
{
    uint64_t q[8];
    uint32_t r = 0;
    unsigned b, k;
    for (b = 0; b < 8; b++) {
        uint64_t v = 0;
        for (k = 0; k < 4; k++) {
            v |= (uint64_t)((w >> (8 * k + b)) & 1u) << k;
        }
        q[b] = v;
    }
    sub_bytes(q);
    for (b = 0; b < 8; b++) {
        for (k = 0; k < 4; k++) {
            r |= (uint32_t)((q[b] >> k) & 1u) << (8 * k + b);
        }
    }
    glow_wipe(q, sizeof q);
    return r;
}

void glow_aes256_expand_key(uint64_t round_keys[GLOW_AES256_RK_WORDS], const uint8_t key[32])
{
    /* Words are packed little-endian: byte 0 of a FIPS 197 word is the low
       byte, so RotWord is a right rotation by 8 and Rcon[i] (x^(i-1) in the
       first byte) is XORed into the low byte. */
    uint32_t w[60];
    uint8_t blocks[64];
    uint32_t rcon = 1;
    unsigned i, n;

    for (i = 0; i < 8; i++) {
        w[i] = glow_load32_le(key + 4 * i);
    }
    for (i = 8; i < 60; i++) {
        uint32_t t = w[i - 1];
        if (i % 8 == 0) {          /* public index, not secret data */
            t = sub_word((t >> 8) | (t << 24)) ^ rcon;
            rcon <<= 1;            /* only reaches 0x40 for Nk = 8 */
        } else if (i % 8 == 4) {   /* the extra SubWord for Nk > 6 */
            t = sub_word(t);
        }
        w[i] = w[i - 8] ^ t;
    }

    /* Round key r is w[4r..4r+3]; store it in all four block lanes,
       pre-rotated for the skipped ShiftRows (see above). */
    for (i = 0; i < 15; i++) {
        for (n = 0; n < 4; n++) {
            glow_store32_le(blocks + 16 * n, w[4 * i]);
            glow_store32_le(blocks + 16 * n + 4, w[4 * i + 1]);
            glow_store32_le(blocks + 16 * n + 8, w[4 * i + 2]);
            glow_store32_le(blocks + 16 * n + 12, w[4 * i + 3]);
        }
        bitslice_load(round_keys + 8 * i, blocks);
        /* store SR^-i(K_i) = SR^(3i mod 4)(K_i) for the drifting state */
        for (n = 0; n < (3 * i) % 4; n++) {
            shift_rows(round_keys + 8 * i);
        }
    }
    glow_wipe(w, sizeof w);
    glow_wipe(blocks, sizeof blocks);
}

/* ---- the cipher (FIPS 197 section 5.1, Nr = 14) ---- */

/* One full round j without ShiftRows; which MixColumns variant to use
   depends on the public round number only. */
#define ROUND(q, rk, j, MIX)              \
    do {                                  \
        sub_bytes(q);                     \
        MIX(q);                           \
        add_round_key(q, (rk) + 8 * (j)); \
    } while (0)

void glow_aes256_encrypt4(const uint64_t round_keys[GLOW_AES256_RK_WORDS], const uint8_t in[64],
                          uint8_t out[64])
{
    uint64_t q[8];
    unsigned j;

    bitslice_load(q, in);
    add_round_key(q, round_keys);
    /* rounds 1..12: drift i = j mod 4 cycles 1, 2, 3, 0 */
    for (j = 1; j < 13; j += 4) {
        ROUND(q, round_keys, j, mix_columns_1);
        ROUND(q, round_keys, j + 1, mix_columns_2);
        ROUND(q, round_keys, j + 2, mix_columns_3);
        ROUND(q, round_keys, j + 3, mix_columns_0);
    }
    ROUND(q, round_keys, 13, mix_columns_1);
    /* round 14: no MixColumns (and no ShiftRows, as in the others) */
    sub_bytes(q);
    add_round_key(q, round_keys + 8 * 14);
    /* the true state is SR^14(T) = SR^2(T) */
    shift_rows_twice(q);
    bitslice_store(out, q);
    /* q now holds only the transposed output, which the caller has anyway */
}
