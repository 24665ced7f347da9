// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * The primitives of CSecureRoomTransferCrypto.h on OpenSSL 3's libcrypto: BIGNUM for the
 * exchange (constant-time exponentiation; the exponent and the shared secret cleared when
 * freed), EVP for the cipher.
 */
#include "CSecureRoomTransferCrypto.h"

#include <limits.h>
#include <openssl/bn.h>
#include <openssl/evp.h>

int sr_dh_ietf1024(const unsigned char *peer, size_t peer_length, unsigned char *public_key, unsigned char *shared)
{
    if (peer_length == 0 || peer_length > SR_DH_IETF1024_LENGTH)
        return 0;
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *prime = BN_get_rfc2409_prime_1024(NULL), *limit = BN_new(), *generator = BN_new();
    BIGNUM *exponent = BN_secure_new(), *ours = BN_new(), *theirs = BN_bin2bn(peer, (int)peer_length, NULL);
    BIGNUM *secret = BN_secure_new();
    int ok = context && prime && limit && generator && exponent && ours && theirs && secret
        && BN_copy(limit, prime) && BN_sub_word(limit, 1)
        && BN_cmp(theirs, BN_value_one()) > 0 && BN_cmp(theirs, limit) < 0
        && BN_set_word(generator, 2)
        && BN_priv_rand_range(exponent, limit) && BN_add_word(exponent, 1)
        && BN_mod_exp_mont_consttime(ours, generator, exponent, prime, context, NULL)
        && BN_mod_exp_mont_consttime(secret, theirs, exponent, prime, context, NULL)
        && BN_bn2binpad(ours, public_key, SR_DH_IETF1024_LENGTH) == SR_DH_IETF1024_LENGTH
        && BN_bn2binpad(secret, shared, SR_DH_IETF1024_LENGTH) == SR_DH_IETF1024_LENGTH;
    BN_clear_free(exponent);
    BN_clear_free(secret);
    BN_free(ours);
    BN_free(theirs);
    BN_free(generator);
    BN_free(limit);
    BN_free(prime);
    BN_CTX_free(context);
    return ok;
}

int sr_aes128_cbc(int encrypt, const unsigned char *key, const unsigned char *iv, const void *input, size_t length,
                  unsigned char *output, size_t *output_length)
{
    if (length > INT_MAX - 16)
        return 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (!context)
        return 0;
    int written = 0, last = 0, ok =
        EVP_CipherInit_ex2(context, EVP_aes_128_cbc(), key, iv, encrypt, NULL) == 1
        && EVP_CipherUpdate(context, output, &written, input, (int)length) == 1
        && EVP_CipherFinal_ex(context, output + written, &last) == 1;
    EVP_CIPHER_CTX_free(context);
    *output_length = ok ? (size_t)written + (size_t)last : 0;
    return ok;
}
