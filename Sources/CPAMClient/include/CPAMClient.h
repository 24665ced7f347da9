// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CPAMClient — libpam as an application, for the two programs that run a PAM service of
 * their own: `secureroom-vault unlock` (the service secureroom-vault) and the helper's
 * password check for `enrol` (secureroom-enrol). libpam.so.0 (and what it pulls in:
 * libaudit, libcap-ng) is opened with dlopen(3) at the first call of a function below, as
 * CSDBus opens sd-bus, so that `get` and the helper's other requests do not load it at
 * every start (docs/DESIGN.md §2).
 *
 * sr_X has the signature of libpam's X and calls it. While libpam cannot be loaded,
 * sr_pam_start returns PAM_SYSTEM_ERR (the others are never reached without a handle),
 * and sr_pam_strerror returns why it could not be loaded. Types and constants are the real
 * header's.
 */
#ifndef CPAM_CLIENT_H
#define CPAM_CLIENT_H

#include <security/pam_appl.h>

int sr_pam_start(const char *service, const char *user, const struct pam_conv *conversation, pam_handle_t **handle);
int sr_pam_authenticate(pam_handle_t *handle, int flags);
int sr_pam_acct_mgmt(pam_handle_t *handle, int flags);
int sr_pam_setcred(pam_handle_t *handle, int flags);
int sr_pam_end(pam_handle_t *handle, int status);
const char *sr_pam_strerror(pam_handle_t *handle, int code);

#endif
