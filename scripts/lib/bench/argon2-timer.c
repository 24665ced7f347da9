// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * LD_PRELOAD shim for the floor row: times each call of libargon2's argon2id_ctx (the entry
 * the module uses), allocation of its memory included, and appends the nanoseconds, one
 * line per call, to $ARGON2_TIMER_FILE (O_APPEND). What a login spends beyond argon2 is
 * then its whole time less this, measured in the same process.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*argon2id_ctx_fn)(void *context);

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int argon2id_ctx(void *context)
{
    /* libpam loads the module, and so libargon2, with RTLD_LOCAL: RTLD_NEXT cannot see
     * it, but the already-loaded library's own handle can. */
    void *library = dlopen("libargon2.so.1", RTLD_NOW | RTLD_NOLOAD);
    argon2id_ctx_fn real = library ? (argon2id_ctx_fn)dlsym(library, "argon2id_ctx") : NULL;
    if (library)
        dlclose(library);
    if (!real) {
        /* Not a failed login: the bench must not read this as the module's answer. */
        fputs("argon2-timer: libargon2.so.1 or its argon2id_ctx not found\n", stderr);
        abort();
    }
    long long start = now_ns();
    int result = real(context);
    long long elapsed = now_ns() - start;
    const char *path = getenv("ARGON2_TIMER_FILE");
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    if (fd >= 0) {
        char line[32];
        int length = snprintf(line, sizeof line, "%lld\n", elapsed);
        (void)write(fd, line, (size_t)length);
        close(fd);
    }
    return result;
}
