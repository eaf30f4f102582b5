/* The block buffering and padding that SHA-1, SHA-256 and SHA-512 share (FIPS 180-4 section 5.1):
   whole blocks go to the compression function straight from the input, the rest waits in the
   context's block; the final block carries 0x80, zeros and the message length in bits. */
#include <string.h>

#include "glow_private.h"

void glow_md_absorb(void *state, glow_compress_function compress, uint8_t *block, size_t block_size, size_t *used,
                    const uint8_t *bytes, size_t count) {
    if (count == 0) {
        return;
    }
    if (*used > 0) {
        size_t take = block_size - *used;
        if (take > count) {
            take = count;
        }
        memcpy(block + *used, bytes, take);
        *used += take;
        bytes += take;
        count -= take;
        if (*used < block_size) {
            return;
        }
        compress(state, block);
        *used = 0;
    }
    while (count >= block_size) {
        compress(state, bytes);
        bytes += block_size;
        count -= block_size;
    }
    if (count > 0) {
        memcpy(block, bytes, count);
        *used = count;
    }
}

void glow_md_finish(void *state, glow_compress_function compress, uint8_t *block, size_t block_size, size_t used,
                    uint64_t length) {
    /* The length field is the last 8 bytes of SHA-1's and SHA-256's 64-byte block, and the last
       16 of SHA-512's 128-byte block (a 128-bit count whose high half is length's top bits). */
    size_t field = block_size == 128 ? 16 : 8;

    block[used++] = 0x80;
    if (used > block_size - field) {
        memset(block + used, 0, block_size - used);
        compress(state, block);
        used = 0;
    }
    memset(block + used, 0, block_size - field - used);
    if (field == 16) {
        glow_store64_be(block + block_size - 16, length >> 61);
    }
    glow_store64_be(block + block_size - 8, length << 3);
    compress(state, block);
}
