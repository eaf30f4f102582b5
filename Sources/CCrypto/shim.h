// The libcrypto shim of GlowAuth: Debian's OpenSSL 3 (libssl-dev), for SHA-256, HMAC, RSA and
// ECDSA signature verification and the system's CSPRNG. Only the EVP interfaces are used, so the
// same calls work with any OpenSSL 3.
#ifndef GLOW_CCRYPTO_SHIM_H
#define GLOW_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/bn.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>
#include <openssl/err.h>

// EVP_PKEY_PUBLIC_KEY is a macro of several others, which Swift does not import.
static const int glow_evp_pkey_public_key = EVP_PKEY_PUBLIC_KEY;

// OSSL_PARAM_BLD keeps the key names it is given until it builds, so they must outlive the call:
// these C strings live as long as the program, where a Swift string's bridged copy would not.
static const char *const glow_param_rsa_n = OSSL_PKEY_PARAM_RSA_N;
static const char *const glow_param_rsa_e = OSSL_PKEY_PARAM_RSA_E;
static const char *const glow_param_group_name = OSSL_PKEY_PARAM_GROUP_NAME;
static const char *const glow_param_public_key = OSSL_PKEY_PARAM_PUB_KEY;
static const char *const glow_curve_p256 = "prime256v1";
#endif
