// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * pam_secureroom.so — the module PAM loads: six entry points and nothing else
 * (docs/DESIGN.md §2, "The module's front"). Every stack that lists the module
 * loads this small C file, also where it is never called (a password login that
 * ends at pam_unix, an sshd connection with remote=deny); the module itself, the
 * Swift core with its libraries (pam_secureroom_core.so), is loaded on the first
 * pam_sm_* call, once per process, and never unloaded (RTLD_NODELETE: the Swift
 * runtime cannot be).
 *
 * The core is looked for beside this file, then in ../secureroom/ (the installed
 * layout: /usr/lib/<triplet>/security/pam_secureroom.so and
 * /usr/lib/<triplet>/secureroom/pam_secureroom_core.so). It must be a regular file
 * owned by this file's owner and writable by nobody else; nothing from the
 * environment chooses it. If it cannot be loaded, every entry point logs why and
 * answers PAM_SERVICE_ERR, as the core does for a failure it cannot map.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

typedef int entry_point(pam_handle_t *, int, int, const char **);

static const char *const core_paths[] = {"pam_secureroom_core.so", "../secureroom/pam_secureroom_core.so"};
static void *core;
static char failure[256] = "not loaded";
static pthread_once_t core_once = PTHREAD_ONCE_INIT;

/* Whether PATH is a regular file of OWNER that no one else may write. */
static int trusted(const char *path, uid_t owner)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == owner && (st.st_mode & 022) == 0;
}

static void load_core(void)
{
    Dl_info self;
    struct stat front;
    if (dladdr((void *)load_core, &self) == 0 || self.dli_fname == NULL || stat(self.dli_fname, &front) != 0) {
        snprintf(failure, sizeof failure, "cannot find where pam_secureroom.so was loaded from");
        return;
    }
    const char *slash = strrchr(self.dli_fname, '/');
    int directory = slash ? (int)(slash - self.dli_fname) : 0;
    for (size_t i = 0; i < sizeof core_paths / sizeof core_paths[0]; i++) {
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%.*s/%s", directory, self.dli_fname, core_paths[i]) >= (int)sizeof path) {
            continue;
        }
        if (!trusted(path, front.st_uid)) {
            snprintf(failure, sizeof failure, "no trusted %.200s", path);
            continue;
        }
        core = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (core != NULL) {
            return;
        }
        const char *error = dlerror();
        snprintf(failure, sizeof failure, "%.240s", error ? error : path);
        return;
    }
}

/* The core's NAME, loading the core on the first call; NULL (and a log line) if it cannot. */
static entry_point *resolve(pam_handle_t *pamh, const char *name)
{
    pthread_once(&core_once, load_core);
    entry_point *entry = core ? (entry_point *)dlsym(core, name) : NULL;
    if (entry == NULL) {
        pam_syslog(pamh, LOG_ERR, "cannot load the module's core (%s): %s", name, failure);
    }
    return entry;
}

#define FORWARD(name)                                                              \
    PAM_EXTERN int name(pam_handle_t *pamh, int flags, int argc, const char **argv) \
    {                                                                              \
        entry_point *entry = resolve(pamh, #name);                                 \
        return entry ? entry(pamh, flags, argc, argv) : PAM_SERVICE_ERR;           \
    }

FORWARD(pam_sm_authenticate)
FORWARD(pam_sm_setcred)
FORWARD(pam_sm_acct_mgmt)
FORWARD(pam_sm_open_session)
FORWARD(pam_sm_close_session)
FORWARD(pam_sm_chauthtok)
