// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0
//
// Tests/e2e/swaylock-once.c — an LD_PRELOAD shim that makes a released swaylock (1.7.2,
// 1.8.2) answer as upstream swaylock does since commit 97d81d2 ("pam: only send the
// password once per conversation", February 2026, after 1.8.4): within one
// pam_authenticate, the first prompt (PAM_PROMPT_ECHO_OFF or _ON) gets the typed
// password from swaylock's own conversation; any later prompt of that call, and any
// prompt outside pam_authenticate, gets no answer: the conversation returns PAM_ABORT.
// Messages (PAM_ERROR_MSG, PAM_TEXT_INFO) still go to swaylock's conversation.
//
// Why a shim, not swaylock rebuilt with the commit: Tests/e2e/swaylock.sh builds this
// on the host in a blink and it works with every release's swaylock (the container's
// too: glibc is backward compatible), where a rebuilt swaylock needs each release's
// source package and build dependencies (the test's mirror may serve no sources).
//
// Built by Tests/e2e/swaylock.sh:  cc -shared -fPIC -O2 -o swaylock-once.so swaylock-once.c -ldl
// Used as:  LD_PRELOAD=.../swaylock-once.so swaylock ...
// Each conversation it aborts, it says so on standard error (swaylock's log):
//   "[swaylock-once] prompt N of this pam_authenticate: no answer (PAM_ABORT)".
#define _GNU_SOURCE
#include <dlfcn.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*start_fn)(const char *, const char *, const struct pam_conv *, pam_handle_t **);
typedef int (*authenticate_fn)(pam_handle_t *, int);

static struct pam_conv app; // swaylock's own conversation
static int armed;           // inside pam_authenticate, no prompt answered yet
static int prompts;         // prompts seen in this pam_authenticate

static int once_conversation(int num_msg, const struct pam_message **msg, struct pam_response **resp, void *data)
{
    (void)data;
    int asked = 0;
    for (int i = 0; i < num_msg; ++i) {
        if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF || msg[i]->msg_style == PAM_PROMPT_ECHO_ON) {
            ++asked;
        }
    }
    if (asked > 0) {
        prompts += asked;
        // Upstream answers the first prompt and aborts at the next, even within one call.
        if (!armed || asked > 1) {
            fprintf(stderr, "[swaylock-once] prompt %d of this pam_authenticate: no answer (PAM_ABORT)\n", prompts);
            *resp = NULL;
            return PAM_ABORT;
        }
        armed = 0;
    }
    return app.conv(num_msg, msg, resp, app.appdata_ptr);
}

int pam_start(const char *service, const char *user, const struct pam_conv *conv, pam_handle_t **pamh)
{
    static const struct pam_conv once = {once_conversation, NULL};
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "pam_start");
    if (real == NULL) {
        return PAM_ABORT;
    }
    if (conv->conv == NULL) {
        return real(service, user, conv, pamh);
    }
    app = *conv;
    return real(service, user, &once, pamh); // libpam keeps a copy of the struct
}

int pam_authenticate(pam_handle_t *pamh, int flags)
{
    authenticate_fn real = (authenticate_fn)dlsym(RTLD_NEXT, "pam_authenticate");
    if (real == NULL) {
        return PAM_ABORT;
    }
    armed = 1;
    prompts = 0;
    int status = real(pamh, flags);
    armed = 0;
    return status;
}
