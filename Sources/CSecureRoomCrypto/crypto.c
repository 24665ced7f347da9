// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * The primitives of CSecureRoomCrypto.h on Nettle (libnettle.so.8). Nettle's contexts are
 * plain structures on the stack, so each is wiped with explicit_bzero(3) before returning,
 * as are HKDF's pseudorandom key, the tag computed when opening, and a plaintext that did
 * not authenticate.
 */
#include "CSecureRoomCrypto.h"

#include <string.h>
#include <nettle/chacha-poly1305.h>
#include <nettle/hkdf.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <nettle/version.h>

/* Nettle 4 (libnettle.so.9) dropped the length argument of every *_digest function. */
#if NETTLE_VERSION_MAJOR >= 4
#error "CSecureRoomCrypto is written for Nettle 3 (libnettle.so.8)"
#endif

int sr_sha256(const void *data, size_t data_length, unsigned char *out)
{
    struct sha256_ctx context;
    sha256_init(&context);
    sha256_update(&context, data_length, data);
    sha256_digest(&context, SHA256_DIGEST_SIZE, out);
    explicit_bzero(&context, sizeof context);
    return 1;
}

int sr_hmac_sha256(const void *key, size_t key_length, const void *data, size_t data_length, unsigned char *out)
{
    struct hmac_sha256_ctx context;
    hmac_sha256_set_key(&context, key_length, key);
    hmac_sha256_update(&context, data_length, data);
    hmac_sha256_digest(&context, SHA256_DIGEST_SIZE, out);
    explicit_bzero(&context, sizeof context);
    return 1;
}

int sr_hkdf_sha256(const void *ikm, size_t ikm_length, const void *salt, size_t salt_length, const void *info,
                   size_t info_length, unsigned char *out, size_t out_length)
{
    /* RFC 5869 §2.3: at most 255 blocks. An empty salt is HMAC's empty key, which RFC 5869
     * §2.2's HashLen zeros equal (HMAC pads every key with zeros to the block). */
    if (out_length > 255 * SHA256_DIGEST_SIZE)
        return 0;
    struct hmac_sha256_ctx context;
    uint8_t pseudorandom_key[SHA256_DIGEST_SIZE];
    hmac_sha256_set_key(&context, salt_length, salt);
    hkdf_extract(&context, (nettle_hash_update_func *)hmac_sha256_update, (nettle_hash_digest_func *)hmac_sha256_digest,
                 SHA256_DIGEST_SIZE, ikm_length, ikm, pseudorandom_key);
    hmac_sha256_set_key(&context, SHA256_DIGEST_SIZE, pseudorandom_key);
    hkdf_expand(&context, (nettle_hash_update_func *)hmac_sha256_update, (nettle_hash_digest_func *)hmac_sha256_digest,
                SHA256_DIGEST_SIZE, info_length, info, out_length, out);
    explicit_bzero(pseudorandom_key, sizeof pseudorandom_key);
    explicit_bzero(&context, sizeof context);
    return 1;
}

/* A context keyed with `key` and `nonce` that has absorbed `aad`. */
static void chacha20_poly1305_begin(struct chacha_poly1305_ctx *context, const unsigned char *key,
                                    const unsigned char *nonce, const void *aad, size_t aad_length)
{
    chacha_poly1305_set_key(context, key);
    chacha_poly1305_set_nonce(context, nonce);
    chacha_poly1305_update(context, aad_length, aad);
}

int sr_chacha20_poly1305_seal(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *plaintext, size_t length, unsigned char *ciphertext, unsigned char *tag)
{
    struct chacha_poly1305_ctx context;
    chacha20_poly1305_begin(&context, key, nonce, aad, aad_length);
    chacha_poly1305_encrypt(&context, length, ciphertext, plaintext);
    chacha_poly1305_digest(&context, CHACHA_POLY1305_DIGEST_SIZE, tag);
    explicit_bzero(&context, sizeof context);
    return 1;
}

int sr_chacha20_poly1305_open(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *ciphertext, size_t length, const unsigned char *tag, unsigned char *plaintext)
{
    struct chacha_poly1305_ctx context;
    uint8_t expected[CHACHA_POLY1305_DIGEST_SIZE];
    chacha20_poly1305_begin(&context, key, nonce, aad, aad_length);
    chacha_poly1305_decrypt(&context, length, plaintext, ciphertext);
    chacha_poly1305_digest(&context, sizeof expected, expected);
    explicit_bzero(&context, sizeof context);
    int ok = memeql_sec(expected, tag, sizeof expected);
    explicit_bzero(expected, sizeof expected);
    if (!ok && length)
        explicit_bzero(plaintext, length);
    return ok;
}
