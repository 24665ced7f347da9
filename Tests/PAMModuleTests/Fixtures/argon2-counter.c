// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * LD_PRELOAD shim for tests: counts calls to libargon2's argon2id_ctx (the entry the module uses) by appending one
 * byte per call to $ARGON2_COUNTER_FILE (O_APPEND, so concurrent processes add up),
 * then calls the real function. With ARGON2_STOP set, the process stops itself (SIGSTOP)
 * first: a check frozen mid-way, after its attempt was counted, as a user can do to
 * their own su.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*argon2id_ctx_fn)(void *context);

int argon2id_ctx(void *context)
{
    const char *path = getenv("ARGON2_COUNTER_FILE");
    if (path != NULL) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0) {
            (void)write(fd, "x", 1);
            close(fd);
        }
    }
    if (getenv("ARGON2_STOP") != NULL)
        raise(SIGSTOP);
    /* libpam loads the module, and so libargon2, with RTLD_LOCAL: RTLD_NEXT cannot see
     * it, but the already-loaded library's own handle can. */
    void *library = dlopen("libargon2.so.1", RTLD_NOW | RTLD_NOLOAD);
    argon2id_ctx_fn real = library ? (argon2id_ctx_fn)dlsym(library, "argon2id_ctx") : NULL;
    if (library)
        dlclose(library);
    return real ? real(context) : -1;
}
