// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSecureRoomSystem — one-line wrappers for the system calls and macros that
 * Swift cannot reach directly (variadic functions, function-like macros).
 * Every name is prefixed sr_; no logic lives here.
 */
#ifndef CSECUREROOM_SYSTEM_H
#define CSECUREROOM_SYSTEM_H

#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <shadow.h> /* struct spwd, getspnam_r(3): the account's lock and expiry */

/* openat(2) with an explicit mode (the libc prototype is variadic). */
int sr_openat(int dirfd, const char *path, int flags, mode_t mode);

/* Zero memory in a way the compiler may not elide (explicit_bzero(3)). */
void sr_explicit_bzero(void *buf, size_t len);

/* getrandom(2), blocking until the pool is initialised, retrying on EINTR. */
ssize_t sr_getrandom(void *buf, size_t len);

/* mlock(2)/munlock(2) best effort; the return value is informative only. */
int sr_mlock(const void *addr, size_t len);
int sr_munlock(const void *addr, size_t len);

/* Terminal: switch fd to non-canonical, no-echo, no-signal mode (Ctrl-C is read as a byte); restore it. */
int sr_tty_raw(int fd, void *saved, size_t saved_size);
int sr_tty_restore(int fd, const void *saved);
size_t sr_termios_size(void);

/* syslog(3) with a fixed "%s" format. */
void sr_syslog(int priority, const char *message);

/* openlog(3), remembering IDENTITY (a string that lives as long as the program) for sr_log_identity. */
void sr_openlog(const char *identity, int option, int facility);

/* What syslog(3) names this program's lines with: the sr_openlog identity, else
 * program_invocation_short_name (a glibc variable Swift does not import). */
const char *sr_log_identity(void);

/* sendto(2) of one datagram to the AF_UNIX socket at PATH (struct sockaddr_un is awkward
 * from Swift); -1 with errno ENAMETOOLONG if PATH does not fit. */
ssize_t sr_unix_sendto(int fd, const void *buf, size_t len, const char *path);

/* S_ISREG / S_ISDIR / S_ISFIFO / S_ISSOCK are macros. */
int sr_s_isreg(mode_t m);
int sr_s_isdir(mode_t m);
int sr_s_isfifo(mode_t m);
int sr_s_issock(mode_t m);

/* posix_spawn_file_actions_addclosefrom_np(3): a GNU extension Swift does not import. */
int sr_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);

/* posix_spawnattr_t that starts the child with no blocked signals. */
int sr_spawnattr_unblock_signals(posix_spawnattr_t *attributes);

/* Set SIGCHLD to SIG_DFL so waitpid(2) can reap our child, saving the host's action;
 * restore it afterwards (pam_unix does the same around unix_chkpwd). */
int sr_sigchld_default(struct sigaction *saved);
int sr_sigchld_restore(const struct sigaction *saved);

/* setresuid(2) and friends (declared only with _GNU_SOURCE). */
int sr_setresuid(uid_t real, uid_t effective, uid_t saved);
int sr_setresgid(gid_t real, gid_t effective, gid_t saved);
int sr_getresuid(uid_t *real, uid_t *effective, uid_t *saved);
int sr_getresgid(gid_t *real, gid_t *effective, gid_t *saved);
int sr_thread_setresuid(uid_t real, uid_t effective, uid_t saved);
int sr_thread_setresgid(gid_t real, gid_t effective, gid_t saved);

/* major(3) / minor(3) are macros: the device numbers /proc/locks shows. */
unsigned int sr_dev_major(dev_t device);
unsigned int sr_dev_minor(dev_t device);

/* pidfd_open(2) and pidfd_send_signal(2): a process held by a descriptor, so that a pid
 * reused meanwhile is never signalled. */
int sr_pidfd_open(pid_t pid);
int sr_pidfd_send_signal(int pidfd, int signal);

/* sched_setscheduler(pid, SCHED_OTHER, priority 0): a process held back under SCHED_IDLE
 * gets an ordinary share of the CPU again. */
int sr_sched_ordinary(pid_t pid);

/* renameat2(DIR, FROM, DIR, TO, RENAME_NOREPLACE): never replaces TO. */
int sr_renameat_noreplace(int directory, const char *from, const char *to);

/* The wait(2) status macros. */
int sr_wifexited(int status);
int sr_wexitstatus(int status);

/* Waits for `events` on fd for at most timeout_ms (-1: no limit) with every signal in
 * `blocked` blocked except during the wait (ppoll(2)): a signal blocked the rest of the
 * time is delivered only here, so it is never missed between a check and the wait.
 * Returns poll's result (-1 with errno EINTR when a signal came). */
int sr_poll_unblocking(int fd, short events, int timeout_ms, const sigset_t *during);

/* SIGTERM, SIGINT and SIGHUP: blocked, and caught by a handler that sets a flag (a
 * volatile sig_atomic_t, all a handler may touch) which sr_stop_requested reads: a
 * long-running tool's request to stop. *during is the mask to wait with (the previous
 * one without them), so they arrive only inside sr_poll_unblocking. */
int sr_catch_stop_signals(sigset_t *during);
int sr_stop_requested(void);

/* gettext(3) for the text domain `domain`: bindtextdomain(3) with bind_textdomain_codeset(3),
 * dgettext(3), dngettext(3) (libintl.h; the lookups return msgid itself when nothing is found). */
int sr_bind_text_domain(const char *domain, const char *directory, const char *codeset);
const char *sr_dgettext(const char *domain, const char *msgid);
const char *sr_dngettext(const char *domain, const char *msgid, const char *plural, unsigned long count);

/* setlocale(3) of LC_MESSAGES from the environment: a tool's messages in the user's language. */
int sr_set_message_locale(void);

/* A library opened on first use with dlopen(3), as CTSS2, CSDBus, CSecureRoomTransferCrypto
 * and CPAMClient open tpm2-tss, sd-bus, libcrypto and libpam. `load` opens and resolves everything (sr_lazy_open
 * records why an open failed; it may write `error` itself) and returns 0, or leaves nothing open and returns -1.
 * sr_lazy_ready runs it under `lock` until it has succeeded once (a failure is tried again
 * at the next call: a module lives as long as its host, and one EMFILE must not end its
 * use of the library) and says whether it has. */
struct sr_lazy_library {
    pthread_mutex_t lock;
    int ready;
    int (*load)(struct sr_lazy_library *library);
    char error[256];
};
#define SR_LAZY_LIBRARY(load, unloaded)                                                                                \
    {                                                                                                                  \
        PTHREAD_MUTEX_INITIALIZER, 0, (load), (unloaded)                                                               \
    }
int sr_lazy_ready(struct sr_lazy_library *library);
/* Why the last load failed ("" once loaded), without loading again. */
const char *sr_lazy_error(struct sr_lazy_library *library);
/* dlopen(3) of SONAME with RTLD_NOW and SCOPE (RTLD_LOCAL, or RTLD_GLOBAL for a library
 * whose own plug-ins expect its symbols global, as libpam's modules do). */
void *sr_lazy_open(struct sr_lazy_library *library, const char *soname, int scope);

/* For a shim over one library: `fn`, a structure with a pointer for each function that
 * LIST names (an X-macro: LIST(X) expands X(name) for each); `load`, which opens SONAME
 * with SCOPE (sr_lazy_open) and resolves them all, or leaves nothing open; `lazy`, its
 * sr_lazy_library (UNLOADED: the error before the first try); and `loaded()`, which
 * loads it if need be and says whether it is loaded. The file includes the library's
 * header, <dlfcn.h> and <stdio.h>. */
#define SR_LAZY_POINTER(name) __typeof__(name) *name;
#define SR_LAZY_RESOLVE(name)                                                                                          \
    if (!(fn.name = (__typeof__(fn.name))dlsym(handle, #name))) {                                                      \
        snprintf(library->error, sizeof library->error, "%s: no symbol %s", soname, #name);                            \
        dlclose(handle);                                                                                               \
        return -1;                                                                                                     \
    }
#define SR_LAZY_FUNCTIONS(LIST, SONAME, SCOPE, UNLOADED)                                                               \
    static struct {                                                                                                    \
        LIST(SR_LAZY_POINTER)                                                                                          \
    } fn;                                                                                                              \
    static int load(struct sr_lazy_library *library)                                                                   \
    {                                                                                                                  \
        const char *soname = (SONAME);                                                                                 \
        void *handle = sr_lazy_open(library, soname, (SCOPE));                                                         \
        if (!handle)                                                                                                   \
            return -1;                                                                                                 \
        LIST(SR_LAZY_RESOLVE)                                                                                          \
        return 0;                                                                                                      \
    }                                                                                                                  \
    static struct sr_lazy_library lazy = SR_LAZY_LIBRARY(load, UNLOADED);                                              \
    static int loaded(void) { return sr_lazy_ready(&lazy); }

#endif
