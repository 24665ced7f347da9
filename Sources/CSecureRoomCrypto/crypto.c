// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * The primitives of CSecureRoomCrypto.h on OpenSSL 3's libcrypto: the EVP interfaces, so
 * the implementations (and any hardware acceleration) are the library's. Contexts are freed
 * on every path; OpenSSL cleanses the key material it copied when a context is freed.
 */
#include "CSecureRoomCrypto.h"

#include <limits.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

int sr_sha256(const void *data, size_t data_length, unsigned char *out)
{
    size_t written = 0;
    return EVP_Q_digest(NULL, "SHA256", NULL, data, data_length, out, &written) && written == 32;
}

int sr_hmac_sha256(const void *key, size_t key_length, const void *data, size_t data_length, unsigned char *out)
{
    size_t written = 0;
    return EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, key_length, data, data_length, out, 32, &written) != NULL
        && written == 32;
}

int sr_hkdf_sha256(const void *ikm, size_t ikm_length, const void *salt, size_t salt_length,
                   const void *info, size_t info_length, unsigned char *out, size_t out_length)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *context = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    EVP_KDF_free(kdf);
    if (!context)
        return 0;
    static const unsigned char nothing[1];
    OSSL_PARAM parameters[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_length),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)(salt_length ? salt : nothing), salt_length),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)(info_length ? info : nothing), info_length),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(context, out, out_length, parameters) == 1;
    EVP_KDF_CTX_free(context);
    return ok;
}

/* One ChaCha20-Poly1305 operation; `encrypt` 1 to seal, 0 to open. */
static int chacha20_poly1305(int encrypt, const unsigned char *key, const unsigned char *nonce, const void *aad,
                             size_t aad_length, const void *input, size_t length, unsigned char *output, unsigned char *tag)
{
    if (length > INT_MAX || aad_length > INT_MAX)
        return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (!context)
        return 0;
    int written = 0, ok =
        EVP_CipherInit_ex2(context, EVP_chacha20_poly1305(), key, nonce, encrypt, NULL) == 1
        && (encrypt || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1)
        && (aad_length == 0 || EVP_CipherUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (length == 0 || EVP_CipherUpdate(context, output, &written, input, (int)length) == 1)
        && EVP_CipherFinal_ex(context, output + (length ? written : 0), &written) == 1
        && (!encrypt || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1);
    EVP_CIPHER_CTX_free(context);
    return ok;
}

int sr_chacha20_poly1305_seal(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *plaintext, size_t length, unsigned char *ciphertext, unsigned char *tag)
{
    return chacha20_poly1305(1, key, nonce, aad, aad_length, plaintext, length, ciphertext, tag);
}

int sr_chacha20_poly1305_open(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *ciphertext, size_t length, const unsigned char *tag, unsigned char *plaintext)
{
    /* The tag is only read when opening; the cast lets one function serve both ways. */
    int ok = chacha20_poly1305(0, key, nonce, aad, aad_length, ciphertext, length, plaintext, (unsigned char *)tag);
    if (!ok && length)
        OPENSSL_cleanse(plaintext, length);
    return ok;
}
