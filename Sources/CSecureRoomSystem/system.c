// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#define _GNU_SOURCE
#include "CSecureRoomSystem.h"

#include <errno.h>
#include <stdio.h> /* renameat2, RENAME_NOREPLACE */
#include <dlfcn.h>
#include <fcntl.h>
#include <libintl.h>
#include <locale.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <termios.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

int sr_openat(int dirfd, const char *path, int flags, mode_t mode) { return openat(dirfd, path, flags, mode); }
void sr_explicit_bzero(void *buf, size_t len) { explicit_bzero(buf, len); }
int sr_mlock(const void *addr, size_t len) { return mlock(addr, len); }
int sr_munlock(const void *addr, size_t len) { return munlock(addr, len); }
void sr_syslog(int priority, const char *message) { syslog(priority, "%s", message); }

static const char *log_identity;
void sr_openlog(const char *identity, int option, int facility)
{
    log_identity = identity;
    openlog(identity, option, facility);
}
const char *sr_log_identity(void) { return log_identity != NULL ? log_identity : program_invocation_short_name; }

ssize_t sr_unix_sendto(int fd, const void *buf, size_t len, const char *path)
{
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(address.sun_path, path, strlen(path) + 1);
    return sendto(fd, buf, len, MSG_NOSIGNAL, (const struct sockaddr *)&address, sizeof address);
}
int sr_s_isreg(mode_t m) { return S_ISREG(m); }
unsigned int sr_dev_major(dev_t device) { return major(device); }
unsigned int sr_dev_minor(dev_t device) { return minor(device); }
int sr_s_isdir(mode_t m) { return S_ISDIR(m); }
int sr_s_isfifo(mode_t m) { return S_ISFIFO(m); }
int sr_s_issock(mode_t m) { return S_ISSOCK(m); }
int sr_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from)
{
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
int sr_sigchld_restore(const struct sigaction *saved) { return sigaction(SIGCHLD, saved, NULL); }
int sr_setresuid(uid_t real, uid_t effective, uid_t saved) { return setresuid(real, effective, saved); }
int sr_setresgid(gid_t real, gid_t effective, gid_t saved) { return setresgid(real, effective, saved); }
int sr_getresuid(uid_t *real, uid_t *effective, uid_t *saved) { return getresuid(real, effective, saved); }
int sr_getresgid(gid_t *real, gid_t *effective, gid_t *saved) { return getresgid(real, effective, saved); }
/* The raw system calls change only the calling thread's credentials (glibc's wrappers
 * change every thread of the process): for a brief switch inside a host's PAM call. */
int sr_thread_setresuid(uid_t real, uid_t effective, uid_t saved)
{
    return (int)syscall(SYS_setresuid, real, effective, saved);
}
int sr_thread_setresgid(gid_t real, gid_t effective, gid_t saved)
{
    return (int)syscall(SYS_setresgid, real, effective, saved);
}
int sr_wifexited(int status) { return WIFEXITED(status); }
int sr_wexitstatus(int status) { return WEXITSTATUS(status); }

int sr_spawnattr_unblock_signals(posix_spawnattr_t *attributes)
{
    sigset_t none;
    sigemptyset(&none);
    if (posix_spawnattr_setsigmask(attributes, &none) != 0)
        return -1;
    return posix_spawnattr_setflags(attributes, POSIX_SPAWN_SETSIGMASK);
}

int sr_sigchld_default(struct sigaction *saved)
{
    struct sigaction fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.sa_handler = SIG_DFL;
    sigemptyset(&fresh.sa_mask);
    return sigaction(SIGCHLD, &fresh, saved);
}
size_t sr_termios_size(void) { return sizeof(struct termios); }
int sr_tty_restore(int fd, const void *saved) { return tcsetattr(fd, TCSAFLUSH, (const struct termios *)saved); }

ssize_t sr_getrandom(void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = getrandom((char *)buf + done, len - done, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

int sr_tty_raw(int fd, void *saved, size_t saved_size)
{
    struct termios t;
    if (saved_size < sizeof t || tcgetattr(fd, &t) != 0)
        return -1;
    memcpy(saved, &t, sizeof t);
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | ISIG);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSAFLUSH, &t);
}

int sr_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int sr_pidfd_send_signal(int pidfd, int signal) { return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0); }

int sr_sched_ordinary(pid_t pid)
{
    struct sched_param priority = {.sched_priority = 0};
    return sched_setscheduler(pid, SCHED_OTHER, &priority);
}

int sr_renameat_noreplace(int directory, const char *from, const char *to)
{
    return renameat2(directory, from, directory, to, RENAME_NOREPLACE);
}

int sr_poll_unblocking(int fd, short events, int timeout_ms, const sigset_t *during)
{
    struct pollfd entry = {.fd = fd, .events = events};
    struct timespec limit = {.tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000L};
    return ppoll(&entry, 1, timeout_ms < 0 ? NULL : &limit, during);
}

static volatile sig_atomic_t stop_requested;

static void note_stop(int number)
{
    (void)number;
    stop_requested = 1;
}

int sr_catch_stop_signals(sigset_t *during)
{
    static const int numbers[] = {SIGTERM, SIGINT, SIGHUP};
    sigset_t blocked;
    sigemptyset(&blocked);
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        sigaddset(&blocked, numbers[i]);
    if (sigprocmask(SIG_BLOCK, &blocked, during) != 0)
        return -1;
    struct sigaction action = {.sa_handler = note_stop};
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        sigdelset(during, numbers[i]);
        if (sigaction(numbers[i], &action, NULL) != 0)
            return -1;
    }
    return 0;
}

int sr_stop_requested(void) { return stop_requested; }

int sr_bind_text_domain(const char *domain, const char *directory, const char *codeset)
{
    return bindtextdomain(domain, directory) && bind_textdomain_codeset(domain, codeset) ? 0 : -1;
}
const char *sr_dgettext(const char *domain, const char *msgid) { return dgettext(domain, msgid); }
const char *sr_dngettext(const char *domain, const char *msgid, const char *plural, unsigned long count)
{
    return dngettext(domain, msgid, plural, count);
}
int sr_set_message_locale(void) { return setlocale(LC_MESSAGES, "") ? 0 : -1; }

int sr_lazy_ready(struct sr_lazy_library *library)
{
    if (__atomic_load_n(&library->ready, __ATOMIC_ACQUIRE))
        return 1;
    pthread_mutex_lock(&library->lock);
    if (!library->ready && library->load(library) == 0)
        __atomic_store_n(&library->ready, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&library->lock);
    return __atomic_load_n(&library->ready, __ATOMIC_ACQUIRE);
}

const char *sr_lazy_error(struct sr_lazy_library *library)
{
    return __atomic_load_n(&library->ready, __ATOMIC_ACQUIRE) ? "" : library->error;
}

void *sr_lazy_open(struct sr_lazy_library *library, const char *soname, int scope)
{
    void *handle = dlopen(soname, RTLD_NOW | scope);
    if (!handle)
        snprintf(library->error, sizeof library->error, "%s", dlerror());
    return handle;
}
