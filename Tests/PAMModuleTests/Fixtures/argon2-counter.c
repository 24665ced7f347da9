// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * LD_PRELOAD shim for tests and the bench: counts calls to libargon2's argon2id_ctx (the
 * entry the module uses) by appending one byte per call to $ARGON2_COUNTER_FILE (O_APPEND,
 * so concurrent processes add up), then calls the real function. With ARGON2_STOP set, the
 * process stops itself (SIGSTOP) first: a check frozen mid-way, after its attempt was
 * counted, as a user can do to their own su. With $ARGON2_TIMER_FILE set (scripts/bench's
 * floor row), it also times the real call, allocation of its memory included, and appends
 * the nanoseconds as one line per call; a missing libargon2 then aborts the process, so
 * that the bench never reads it as the module's answer. With $ARGON2_COST_FILE set, it
 * appends each call's cost as one line "m=KIB t=PASSES p=LANES".
 */
#define _GNU_SOURCE
#include <argon2.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*argon2id_ctx_fn)(argon2_context *context);

/* Appends `length` bytes to the file named by the environment variable `variable`, if set. */
static void append(const char *variable, const char *bytes, size_t length)
{
    const char *path = getenv(variable);
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    if (fd >= 0) {
        (void)write(fd, bytes, length);
        close(fd);
    }
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int argon2id_ctx(argon2_context *context)
{
    append("ARGON2_COUNTER_FILE", "x", 1);
    if (getenv("ARGON2_COST_FILE") != NULL) {
        const argon2_context *ctx = context;
        char line[64];
        int length = snprintf(line, sizeof line, "m=%u t=%u p=%u\n", ctx->m_cost, ctx->t_cost, ctx->lanes);
        if (length > 0 && (size_t)length < sizeof line)
            append("ARGON2_COST_FILE", line, (size_t)length);
    }
    if (getenv("ARGON2_STOP") != NULL)
        raise(SIGSTOP);
    /* libpam loads the module, and so libargon2, with RTLD_LOCAL: RTLD_NEXT cannot see
     * it, but the already-loaded library's own handle can. */
    void *library = dlopen("libargon2.so.1", RTLD_NOW | RTLD_NOLOAD);
    argon2id_ctx_fn real = library ? (argon2id_ctx_fn)dlsym(library, "argon2id_ctx") : NULL;
    if (library)
        dlclose(library);
    if (getenv("ARGON2_TIMER_FILE") == NULL)
        return real ? real(context) : -1;
    if (!real) {
        fputs("argon2-counter: libargon2.so.1 or its argon2id_ctx not found\n", stderr);
        abort();
    }
    long long start = now_ns();
    int result = real(context);
    char line[32];
    int length = snprintf(line, sizeof line, "%lld\n", now_ns() - start);
    append("ARGON2_TIMER_FILE", line, (size_t)length);
    return result;
}
