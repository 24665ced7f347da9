// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * secureroom-helper is setuid root and starts with whatever its caller left behind.
 * This constructor runs before the Swift runtime's own static initializers (priority
 * 101 sorts first in .init_array; HelperHostileTests checks the effect), because some of those
 * read the environment: SWIFT_BACKTRACE chooses a program to exec on a crash, and
 * SWIFT_DEBUG_* / SWIFT_DETERMINISTIC_HASHING are honoured even under AT_SECURE.
 * docs/SECURITY.md §3 has the measurements. It is the one piece of logic in C, because
 * nothing written in Swift can run early enough.
 */
#define _GNU_SOURCE
#include "CSecureRoomHelperStartup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int startup_ran;

int sr_helper_startup_ran(void) { return startup_ran; }
int sr_helper_make_nondumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

__attribute__((constructor(101))) static void sr_helper_sanitize(void)
{
    /* Empty the environment in place. environ must keep its address: the Swift runtime
     * finds argv by walking back from it, and clearenv() would move it. */
    if (environ != NULL)
        for (char **entry = environ; *entry != NULL; entry++)
            *entry = NULL;

    /* Descriptors 0-2 closed at exec would be reused by the first open(); give them
     * /dev/null (glibc does the same under AT_SECURE; this covers every case). The
     * helper then refuses anything but a pipe or socket on 0 and 1. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF && open("/dev/null", O_RDWR) != fd)
            _exit(1);
    }
    /* Nothing else inherited stays open (close_range needs Linux 5.9; else one by one). */
    if (close_range(3, ~0U, 0) != 0) {
        long limit = sysconf(_SC_OPEN_MAX);
        for (long fd = 3; fd < (limit > 0 ? limit : 65536); fd++)
            close((int)fd);
    }

    umask(077);
    /* No core dump, no ptrace by the caller: memory may hold a PIN or the pepper. */
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    /* A caller's tiny RLIMIT_FSIZE would kill the helper (SIGXFSZ) in the middle of a
     * record write: harmless for the record (temp + rename), but pointless. Raising it
     * needs CAP_SYS_RESOURCE, which root in a container may lack; with SIGXFSZ ignored,
     * such a write fails with EFBIG and the helper reports an error instead of dying. */
    struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &unlimited);
    signal(SIGXFSZ, SIG_IGN);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* A blocked signal mask is inherited across exec; start clean. (Ignored signals are
     * inherited too; SIGXFSZ is set above, and the helper sets the rest it uses.) */
    sigset_t all_unblocked;
    sigemptyset(&all_unblocked);
    sigprocmask(SIG_SETMASK, &all_unblocked, NULL);
    startup_ran = 1;
}
