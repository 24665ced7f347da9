// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * pam_secureroom entry points. Each one forwards to the Swift implementation
 * (Sources/PAMSecureRoom); the linker version script exports only pam_sm_*.
 */
#define _GNU_SOURCE
#include "CSecureRoomPAM.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Implemented in Swift with @_cdecl (PAMSecureRoom/EntryPoints.swift). */
extern int secureroom_authenticate(pam_handle_t *, int, int, const char **);
extern int secureroom_setcred(pam_handle_t *, int, int, const char **);
extern int secureroom_acct_mgmt(pam_handle_t *, int, int, const char **);
extern int secureroom_chauthtok(pam_handle_t *, int, int, const char **);
extern int secureroom_open_session(pam_handle_t *, int, int, const char **);
extern int secureroom_close_session(pam_handle_t *, int, int, const char **);

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_authenticate(pamh, flags, argc, argv);
}
PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_setcred(pamh, flags, argc, argv);
}
PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_acct_mgmt(pamh, flags, argc, argv);
}
PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_chauthtok(pamh, flags, argc, argv);
}
PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_open_session(pamh, flags, argc, argv);
}
PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    return secureroom_close_session(pamh, flags, argc, argv);
}

int sr_pam_prompt_secret(pam_handle_t *pamh, const char *prompt, char **response)
{
    return pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, response, "%s", prompt);
}
int sr_pam_prompt_visible(pam_handle_t *pamh, const char *prompt, char **response)
{
    return pam_prompt(pamh, PAM_PROMPT_ECHO_ON, response, "%s", prompt);
}
int sr_pam_set_flag(pam_handle_t *pamh, const char *name, int set)
{
    return pam_set_data(pamh, name, set ? (void *)1 : NULL, NULL);
}
int sr_pam_has_flag(pam_handle_t *pamh, const char *name)
{
    const void *data = NULL;
    return pam_get_data(pamh, name, &data) == PAM_SUCCESS && data != NULL;
}
int sr_pam_error(pam_handle_t *pamh, const char *message) { return pam_error(pamh, "%s", message); }
void sr_pam_syslog(pam_handle_t *pamh, int priority, const char *message) { pam_syslog(pamh, priority, "%s", message); }
int sr_pam_get_user(pam_handle_t *pamh, const char **user) { return pam_get_user(pamh, user, NULL); }
int sr_pam_set_authtok(pam_handle_t *pamh, const char *token) { return pam_set_item(pamh, PAM_AUTHTOK, token); }

int sr_pam_get_authtok_item(pam_handle_t *pamh, int old, const char **token)
{
    return pam_get_item(pamh, old ? PAM_OLDAUTHTOK : PAM_AUTHTOK, (const void **)token);
}
int sr_pam_fail_delay(pam_handle_t *pamh, unsigned int usec) { return pam_fail_delay(pamh, usec); }
void sr_pam_drop_response(char *response)
{
    if (response) {
        explicit_bzero(response, strlen(response));
        free(response);
    }
}
int sr_pam_info(pam_handle_t *pamh, const char *message) { return pam_info(pamh, "%s", message); }

/* The stashed vault key: the user it belongs to and the key, in one mlock'd block owned
 * by libpam's data list, wiped by the cleanup (at pam_end, or when replaced or dropped).
 * The block is pages of its own (mmap), so that unlocking it never unlocks another
 * secret that shares a page with it. */
struct sr_stash {
    size_t size;
    size_t length;
    char user[64];
    unsigned char bytes[];
};

static void sr_stash_cleanup(pam_handle_t *pamh, void *data, int status)
{
    (void)pamh;
    (void)status;
    struct sr_stash *stash = data;
    size_t size = stash->size;
    explicit_bzero(stash, size);
    munlock(stash, size);
    munmap(stash, size);
}

int sr_pam_stash(pam_handle_t *pamh, const char *name, const char *user, const unsigned char *bytes, size_t length)
{
    if (strlen(user) >= sizeof((struct sr_stash *)0)->user || length > 65536)
        return PAM_BUF_ERR;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (sizeof(struct sr_stash) + length + page - 1) / page * page;
    struct sr_stash *stash = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stash == MAP_FAILED)
        return PAM_BUF_ERR;
    mlock(stash, size);
    stash->size = size;
    stash->length = length;
    strcpy(stash->user, user);
    memcpy(stash->bytes, bytes, length);
    int code = pam_set_data(pamh, name, stash, sr_stash_cleanup);
    if (code != PAM_SUCCESS)
        sr_stash_cleanup(pamh, stash, code);
    return code;
}

const unsigned char *sr_pam_stashed(pam_handle_t *pamh, const char *name, const char *user, size_t *length)
{
    const void *data = NULL;
    if (pam_get_data(pamh, name, &data) != PAM_SUCCESS || !data)
        return NULL;
    const struct sr_stash *stash = data;
    if (strcmp(stash->user, user) != 0)
        return NULL;
    *length = stash->length;
    return stash->bytes;
}
void sr_pam_drop(pam_handle_t *pamh, const char *name) { pam_set_data(pamh, name, NULL, NULL); }
