// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSecureRoomPAM — the module's C: this header and shim.c, the core's side, and
 * front/ (front.c, pam_secureroom.so, which PAM loads and which loads the core).
 *
 * The pam_sm_* entry points (shim.c) forward to Swift (PAMSecureRoom).
 * The wrappers below exist because the libpam calls are variadic or macros;
 * each is one line. Names are prefixed sr_pam_.
 */
#ifndef CSECUREROOM_PAM_H
#define CSECUREROOM_PAM_H

#include <security/pam_appl.h>
#include <security/pam_modules.h>
#include <security/pam_ext.h>
#include <stddef.h>
#include <syslog.h>

/* Prompt with echo off; *response is malloc'd by the application (may be NULL). */
int sr_pam_prompt_secret(pam_handle_t *pamh, const char *prompt, char **response);
/* Prompt with echo on (a yes/no question); *response is malloc'd by the application (may be NULL). */
int sr_pam_prompt_visible(pam_handle_t *pamh, const char *prompt, char **response);
/* A marker kept with the handle under NAME (pam_set_data with no cleanup); SET 0 removes it. */
int sr_pam_set_flag(pam_handle_t *pamh, const char *name, int set);
/* Whether the marker NAME is set. */
int sr_pam_has_flag(pam_handle_t *pamh, const char *name);
/* Show an error message through the conversation. */
int sr_pam_error(pam_handle_t *pamh, const char *message);
/* pam_syslog(3) with a fixed "%s" format, so no caller ever passes a format string. */
void sr_pam_syslog(pam_handle_t *pamh, int priority, const char *message);
/* The user name (PAM_USER), asking through the conversation if unset. */
int sr_pam_get_user(pam_handle_t *pamh, const char **user);
/* PAM_AUTHTOK / PAM_OLDAUTHTOK items (owned by libpam; do not free). */
int sr_pam_get_authtok_item(pam_handle_t *pamh, int old, const char **token);
/* PAM_AUTHTOK := TOKEN (libpam keeps a copy), for the next module (pin_or_password). */
int sr_pam_set_authtok(pam_handle_t *pamh, const char *token);
/* Ask the application for the failure delay (microseconds). */
int sr_pam_fail_delay(pam_handle_t *pamh, unsigned int usec);
/* Wipe and free a conversation response. */
void sr_pam_drop_response(char *response);
/* Show an informational message through the conversation. */
int sr_pam_info(pam_handle_t *pamh, const char *message);
/* Keep a copy of USER's secret BYTES with the handle under NAME (pam_set_data), e.g. the
 * vault key unlocked by auth until setcred or open_session (mlock'd; wiped and freed by
 * libpam's cleanup at pam_end or when replaced). */
int sr_pam_stash(pam_handle_t *pamh, const char *name, const char *user, const unsigned char *bytes, size_t length);
/* The bytes stashed under NAME if they belong to USER (their length in *LENGTH), else NULL. */
const unsigned char *sr_pam_stashed(pam_handle_t *pamh, const char *name, const char *user, size_t *length);
/* Wipe and drop what is stashed under NAME. */
void sr_pam_drop(pam_handle_t *pamh, const char *name);

#endif
