// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * The primitives of CSecureRoomTransferCrypto.h on OpenSSL 3's libcrypto, opened with
 * dlopen(3) at the first use (as CSDBus opens sd-bus): BIGNUM for the exchange
 * (constant-time exponentiation; the exponent and the shared secret cleared when freed),
 * EVP for the cipher.
 */
#include "CSecureRoomTransferCrypto.h"
#include "CSecureRoomSystem.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>

/* Every libcrypto function this file calls. */
#define SR_LIBCRYPTO_FUNCTIONS(X)                                                                                      \
    X(BN_CTX_free)                                                                                                     \
    X(BN_CTX_secure_new)                                                                                               \
    X(BN_add_word)                                                                                                     \
    X(BN_bin2bn)                                                                                                       \
    X(BN_bn2binpad)                                                                                                    \
    X(BN_clear_free)                                                                                                   \
    X(BN_cmp)                                                                                                          \
    X(BN_copy)                                                                                                         \
    X(BN_free)                                                                                                         \
    X(BN_get_rfc2409_prime_1024)                                                                                       \
    X(BN_mod_exp_mont_consttime)                                                                                       \
    X(BN_new)                                                                                                          \
    X(BN_priv_rand_range)                                                                                              \
    X(BN_secure_new)                                                                                                   \
    X(BN_set_word)                                                                                                     \
    X(BN_sub_word)                                                                                                     \
    X(BN_value_one)                                                                                                    \
    X(EVP_CIPHER_CTX_free)                                                                                             \
    X(EVP_CIPHER_CTX_new)                                                                                              \
    X(EVP_CipherFinal_ex)                                                                                              \
    X(EVP_CipherInit_ex2)                                                                                              \
    X(EVP_CipherUpdate)                                                                                                \
    X(EVP_aes_128_cbc)

/* The functions (fn), load(), lazy and loaded(): libcrypto opened on first use. */
SR_LAZY_FUNCTIONS(SR_LIBCRYPTO_FUNCTIONS, "libcrypto.so.3", RTLD_LOCAL, "libcrypto is not loaded")

int sr_transfer_crypto_load(void) { return loaded() ? 0 : -1; }

const char *sr_transfer_crypto_load_error(void) { return sr_lazy_error(&lazy); }

int sr_dh_ietf1024(const unsigned char *peer, size_t peer_length, unsigned char *public_key, unsigned char *shared)
{
    if (peer_length == 0 || peer_length > SR_DH_IETF1024_LENGTH || !loaded())
        return 0;
    BN_CTX *context = fn.BN_CTX_secure_new();
    BIGNUM *prime = fn.BN_get_rfc2409_prime_1024(NULL), *limit = fn.BN_new(), *generator = fn.BN_new();
    BIGNUM *exponent = fn.BN_secure_new(), *ours = fn.BN_new(), *theirs = fn.BN_bin2bn(peer, (int)peer_length, NULL);
    BIGNUM *secret = fn.BN_secure_new();
    int ok = context && prime && limit && generator && exponent && ours && theirs && secret &&
             fn.BN_copy(limit, prime) && fn.BN_sub_word(limit, 1) && fn.BN_cmp(theirs, fn.BN_value_one()) > 0 &&
             fn.BN_cmp(theirs, limit) < 0 && fn.BN_set_word(generator, 2) && fn.BN_priv_rand_range(exponent, limit) &&
             fn.BN_add_word(exponent, 1) &&
             fn.BN_mod_exp_mont_consttime(ours, generator, exponent, prime, context, NULL) &&
             fn.BN_mod_exp_mont_consttime(secret, theirs, exponent, prime, context, NULL) &&
             fn.BN_bn2binpad(ours, public_key, SR_DH_IETF1024_LENGTH) == SR_DH_IETF1024_LENGTH &&
             fn.BN_bn2binpad(secret, shared, SR_DH_IETF1024_LENGTH) == SR_DH_IETF1024_LENGTH;
    fn.BN_clear_free(exponent);
    fn.BN_clear_free(secret);
    fn.BN_free(ours);
    fn.BN_free(theirs);
    fn.BN_free(generator);
    fn.BN_free(limit);
    fn.BN_free(prime);
    fn.BN_CTX_free(context);
    return ok;
}

int sr_aes128_cbc(int encrypt, const unsigned char *key, const unsigned char *iv, const void *input, size_t length,
                  unsigned char *output, size_t *output_length)
{
    *output_length = 0;
    if (length > INT_MAX - 16 || !loaded())
        return 0;
    EVP_CIPHER_CTX *context = fn.EVP_CIPHER_CTX_new();
    if (!context)
        return 0;
    int written = 0, last = 0,
        ok = fn.EVP_CipherInit_ex2(context, fn.EVP_aes_128_cbc(), key, iv, encrypt, NULL) == 1 &&
             fn.EVP_CipherUpdate(context, output, &written, input, (int)length) == 1 &&
             fn.EVP_CipherFinal_ex(context, output + written, &last) == 1;
    fn.EVP_CIPHER_CTX_free(context);
    *output_length = ok ? (size_t)written + (size_t)last : 0;
    return ok;
}
