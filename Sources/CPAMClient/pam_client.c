// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#include "CPAMClient.h"
#include "CSecureRoomSystem.h"

#include <dlfcn.h>
#include <stdio.h>

/* Every libpam function SecureRoom's programs call as an application. */
#define SR_PAM_FUNCTIONS(X)                                                                                            \
    X(pam_acct_mgmt)                                                                                                   \
    X(pam_authenticate)                                                                                                \
    X(pam_end)                                                                                                         \
    X(pam_setcred)                                                                                                     \
    X(pam_start)                                                                                                       \
    X(pam_strerror)

/* The functions (fn), load(), lazy and loaded(): libpam opened on first use. Global, as if
 * the program were linked with it: modules that do not link libpam themselves find its
 * pam_get_item and the rest there. */
SR_LAZY_FUNCTIONS(SR_PAM_FUNCTIONS, "libpam.so.0", RTLD_GLOBAL, "libpam is not loaded")

int sr_pam_start(const char *service, const char *user, const struct pam_conv *conversation, pam_handle_t **handle)
{
    if (!loaded())
        return PAM_SYSTEM_ERR;
    return fn.pam_start(service, user, conversation, handle);
}
int sr_pam_authenticate(pam_handle_t *handle, int flags)
{
    if (!loaded())
        return PAM_SYSTEM_ERR;
    return fn.pam_authenticate(handle, flags);
}
int sr_pam_acct_mgmt(pam_handle_t *handle, int flags)
{
    if (!loaded())
        return PAM_SYSTEM_ERR;
    return fn.pam_acct_mgmt(handle, flags);
}
int sr_pam_setcred(pam_handle_t *handle, int flags)
{
    if (!loaded())
        return PAM_SYSTEM_ERR;
    return fn.pam_setcred(handle, flags);
}
int sr_pam_end(pam_handle_t *handle, int status)
{
    if (!loaded())
        return PAM_SYSTEM_ERR;
    return fn.pam_end(handle, status);
}
const char *sr_pam_strerror(pam_handle_t *handle, int code)
{
    if (!loaded())
        return sr_lazy_error(&lazy);
    return fn.pam_strerror(handle, code);
}
