// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSecureRoomCrypto — the primitives SecureRoom's records use, from the system's Nettle
 * (Debian: nettle-dev; libnettle8, GnuTLS's crypto library), which receives the
 * distribution's security updates (docs/DESIGN.md §2, "Crypto").
 *
 * Each function returns 1 on success, 0 on failure (for open: the data did not
 * authenticate, and nothing was written that the caller may use; for HKDF: more than 255
 * blocks asked). Names are prefixed sr_.
 */
#ifndef CSECUREROOM_CRYPTO_H
#define CSECUREROOM_CRYPTO_H

#include <stddef.h>

/* SHA-256(data) into out[32]. */
int sr_sha256(const void *data, size_t data_length, unsigned char *out);

/* HMAC-SHA256(key, data) into out[32]. */
int sr_hmac_sha256(const void *key, size_t key_length, const void *data, size_t data_length, unsigned char *out);

/* HKDF-SHA256 (RFC 5869, extract and expand) of ikm with salt and info, out_length bytes. */
int sr_hkdf_sha256(const void *ikm, size_t ikm_length, const void *salt, size_t salt_length, const void *info,
                   size_t info_length, unsigned char *out, size_t out_length);

/* ChaCha20-Poly1305 (RFC 8439) with a 32-byte key and a 12-byte nonce: length bytes of
 * plaintext into ciphertext (same length), and the 16-byte tag. */
int sr_chacha20_poly1305_seal(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *plaintext, size_t length, unsigned char *ciphertext, unsigned char *tag);

/* The opposite: 1 and the plaintext if the ciphertext and aad authenticate under tag, else 0
 * (and the plaintext buffer wiped). */
int sr_chacha20_poly1305_open(const unsigned char *key, const unsigned char *nonce, const void *aad, size_t aad_length,
                              const void *ciphertext, size_t length, const unsigned char *tag,
                              unsigned char *plaintext);

#endif
