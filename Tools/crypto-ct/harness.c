/*
 * The constant-time check of CGlowCrypto's AES-256-GCM, HMAC-SHA-256 and keyed BLAKE2b, run under
 * valgrind's memcheck by Tests/GlowCryptoTests/ConstantTimeTests.swift.
 *
 * The secrets (keys, plaintext) are marked undefined. Memcheck then reports every branch and
 * every memory address that depends on them ("Conditional jump or move depends on uninitialised
 * value", "Use of uninitialised value"), which is exactly a timing leak. What becomes public by
 * design (a ciphertext, a tag, whether a tag matched) is marked defined before it is used.
 *
 * `harness` checks the library and must give no error. `harness table` and `harness branch` add
 * a lookup indexed by the key and a branch on it, which memcheck must report: the check can fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "glow_aes_gcm.h"
#include "glow_hash.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static volatile uint8_t table[256];

int main(int argc, char **argv) {
    uint8_t key[32], nonce[12], associated[40], plaintext[300], sealed[316], opened[300], mac[32], digest[64];
    glow_aes256gcm_context context;
    size_t lengths[] = {0, 1, 15, 16, 17, 64, 65, 300};
    size_t i, n;
    int failures = 0;

    for (i = 0; i < sizeof key; i++) key[i] = (uint8_t)(i * 7 + 1);
    for (i = 0; i < sizeof nonce; i++) nonce[i] = (uint8_t)i;
    for (i = 0; i < sizeof associated; i++) associated[i] = (uint8_t)(i * 3);
    for (i = 0; i < sizeof plaintext; i++) plaintext[i] = (uint8_t)(i * 11 + 5);
    SECRET(key, sizeof key);
    SECRET(plaintext, sizeof plaintext);

    glow_aes256gcm_init(&context, key);
    for (i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        int status;
        n = lengths[i];
        glow_aes256gcm_seal(&context, nonce, associated, sizeof associated, plaintext, n, sealed);
        PUBLIC(sealed, n + 16); /* a ciphertext and its tag are what the file holds */
        status = glow_aes256gcm_open(&context, nonce, associated, sizeof associated, sealed, n + 16, opened);
        PUBLIC(&status, sizeof status); /* whether the tag matched is the answer */
        if (status != 0) failures++;
        sealed[n] ^= 1; /* a changed tag */
        status = glow_aes256gcm_open(&context, nonce, associated, sizeof associated, sealed, n + 16, opened);
        PUBLIC(&status, sizeof status);
        if (status == 0) failures++;
    }
    glow_aes256gcm_wipe(&context);

    glow_hmac(GLOW_HASH_SHA256, key, sizeof key, plaintext, sizeof plaintext, mac);
    glow_hmac(GLOW_HASH_SHA512, key, sizeof key, plaintext, 100, digest);
    glow_blake2b(digest, 64, key, sizeof key, plaintext, sizeof plaintext);

    if (argc > 1 && strcmp(argv[1], "table") == 0) {
        mac[0] ^= table[key[3]]; /* a lookup indexed by the key: what bitsliced AES avoids */
    }
    if (argc > 1 && strcmp(argv[1], "branch") == 0) {
        if (key[5] & 1) mac[1] ^= 1; /* a branch on the key */
    }
    PUBLIC(mac, sizeof mac);
    PUBLIC(digest, sizeof digest);
    printf("%d failures, tag %02x%02x, digest %02x\n", failures, mac[0], mac[1], digest[0]);
    return failures == 0 ? 0 : 2;
}
