/*
 * pam_secureroom entry points. Each one forwards to the Swift implementation
 * (Sources/PAMSecureRoom); the linker version script exports only pam_sm_*.
 */
#define _GNU_SOURCE
#include "CSecureRoomPAM.h"

#include <stdlib.h>
#include <string.h>

/* Implemented in Swift with @_cdecl (PAMSecureRoom/EntryPoints.swift). */
extern int secureroom_authenticate(pam_handle_t *, int, int, const char **);
extern int secureroom_setcred(pam_handle_t *, int, int, const char **);
extern int secureroom_acct_mgmt(pam_handle_t *, int, int, const char **);
extern int secureroom_chauthtok(pam_handle_t *, int, int, const char **);

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) { return secureroom_authenticate(pamh, flags, argc, argv); }
PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) { return secureroom_setcred(pamh, flags, argc, argv); }
PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv) { return secureroom_acct_mgmt(pamh, flags, argc, argv); }
PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) { return secureroom_chauthtok(pamh, flags, argc, argv); }

int sr_pam_prompt_secret(pam_handle_t *pamh, const char *prompt, char **response) { return pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, response, "%s", prompt); }
int sr_pam_error(pam_handle_t *pamh, const char *message) { return pam_error(pamh, "%s", message); }
void sr_pam_syslog(pam_handle_t *pamh, int priority, const char *message) { pam_syslog(pamh, priority, "%s", message); }
int sr_pam_get_user(pam_handle_t *pamh, const char **user) { return pam_get_user(pamh, user, NULL); }
int sr_pam_get_authtok_item(pam_handle_t *pamh, int old, const char **token) { return pam_get_item(pamh, old ? PAM_OLDAUTHTOK : PAM_AUTHTOK, (const void **)token); }
int sr_pam_fail_delay(pam_handle_t *pamh, unsigned int usec) { return pam_fail_delay(pamh, usec); }
void sr_pam_drop_response(char *response) { if (response) { explicit_bzero(response, strlen(response)); free(response); } }
