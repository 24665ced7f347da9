// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSecureRoomTransferCrypto — the Secret Service transfer algorithm
 * "dh-ietf1024-sha256-aes128-cbc-pkcs7" (docs/DESIGN.md §14), from the system's OpenSSL 3
 * libcrypto: the Diffie-Hellman exchange in the RFC 2409 1024-bit MODP group (generator 2)
 * and AES-128-CBC with PKCS#7 padding. The session key is HKDF-SHA256 of the shared
 * secret (CSecureRoomCrypto's sr_hkdf_sha256, empty salt and info, 16 bytes).
 * libcrypto.so.3 is opened with dlopen(3) at the first call, so that only a client's
 * encrypted session pays for loading it, not every start of secureroom-vault.
 *
 * Each function returns 1 on success, 0 on failure (also while libcrypto cannot be
 * loaded). Names are prefixed sr_.
 */
#ifndef CSECUREROOM_TRANSFER_CRYPTO_H
#define CSECUREROOM_TRANSFER_CRYPTO_H

#include <stddef.h>

/* Loads libcrypto.so.3 if not yet loaded (thread-safe; a failure is tried again at the next
 * call); 0 when it is loaded. */
int sr_transfer_crypto_load(void);

/* Why it could not be loaded (dlerror(3)'s text, or the symbol it lacks); "" once loaded. */
const char *sr_transfer_crypto_load_error(void);

/* Length of the group's prime, of our public key and of the shared secret, in bytes. */
#define SR_DH_IETF1024_LENGTH 128

/* A fresh private exponent; our public key g^x mod p into public_key[128] and the shared
 * secret peer^x mod p into shared[128], both big-endian and left-padded with zeros. Fails
 * unless 1 < peer < p - 1 (peer_length 1..128 bytes, big-endian). The exponent is erased. */
int sr_dh_ietf1024(const unsigned char *peer, size_t peer_length, unsigned char *public_key, unsigned char *shared);

/* AES-128-CBC with PKCS#7 padding: `encrypt` 1 to encrypt, 0 to decrypt (which fails on bad
 * padding). key[16], iv[16]; output must hold length + 16 bytes; *output_length is set. */
int sr_aes128_cbc(int encrypt, const unsigned char *key, const unsigned char *iv, const void *input, size_t length,
                  unsigned char *output, size_t *output_length);

#endif
