// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * pam_secureroom.so — the module PAM loads: six entry points and nothing else
 * (docs/DESIGN.md §2, "The module's front"). Every stack that lists the module
 * loads this small C file, also where it is never called (a password login that
 * ends at pam_unix, an sshd connection with remote=deny); the module itself, the
 * Swift core with its libraries (pam_secureroom_core.so), is loaded on the first
 * pam_sm_* call and never unloaded (RTLD_NODELETE: the Swift runtime cannot be).
 *
 * The core is looked for beside this file, then in ../secureroom/ (the installed
 * layout: /usr/lib/<triplet>/security/pam_secureroom.so and
 * /usr/lib/<triplet>/secureroom/pam_secureroom_core.so). Its directory and the file
 * must belong to this file's owner (or root) and be writable by nobody else (the file
 * is checked on a descriptor opened without following a link): then only its owner or
 * root could swap it between the check and the load, who could replace this file too.
 * Before it is loaded, the opened file must be an ELF64 shared object (ET_DYN) for this
 * machine whose program headers and PT_LOAD segments lie within the file: the loader
 * maps a segment past the end of a truncated file, and the first touch of that page
 * raises SIGBUS in the PAM host (su, sshd, the display manager). It is loaded by its
 * path, so debuggers and /proc/PID/maps name it. Nothing from the environment chooses it.
 *
 * If it cannot be loaded (missing, untrusted, damaged), each entry point logs why and
 * answers what lets the rest of the stack decide without it (docs/DESIGN.md §2): no PIN
 * can have been accepted on this handle, so authentication is PAM_AUTHINFO_UNAVAIL (a
 * stack goes on to the password; a `required` PIN line still refuses), the account,
 * credential and session steps are PAM_IGNORE (the profile's `default=die` account line
 * must not refuse password users), and a PIN change is PAM_AUTHTOK_ERR. The next call
 * tries again (only a success is kept).
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

typedef int entry_point(pam_handle_t *, int, int, const char **);

static const char *const core_paths[] = {"pam_secureroom_core.so", "../secureroom/pam_secureroom_core.so"};
static void *core;
static pthread_mutex_t core_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether ST belongs to OWNER or root and no one else may write it. */
static int owned(const struct stat *st, uid_t owner)
{
    return (st->st_uid == owner || st->st_uid == 0) && (st->st_mode & 022) == 0;
}

#if defined(__x86_64__)
#define CORE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define CORE_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define CORE_MACHINE EM_PPC64
#elif defined(__riscv) && __riscv_xlen == 64
#define CORE_MACHINE EM_RISCV
#elif defined(__s390x__)
#define CORE_MACHINE EM_S390
#else
#error "front.c: name this machine's ELF e_machine"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CORE_DATA ELFDATA2LSB
#else
#define CORE_DATA ELFDATA2MSB
#endif

/* Whether [OFFSET, OFFSET + LENGTH) lies within a file of SIZE bytes. */
static int within(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

/* Whether the file FD (of SIZE bytes) is an ELF64 shared object for this machine whose
 * program headers and loaded segments lie within it; if not, says why in WHY. */
static int loadable(int fd, uint64_t size, const char *path, char *why, size_t why_size)
{
    Elf64_Ehdr header;
    if (pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header ||
        memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_ident[EI_DATA] != CORE_DATA || header.e_type != ET_DYN || header.e_machine != CORE_MACHINE ||
        header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
        !within(header.e_phoff, (uint64_t)header.e_phnum * sizeof(Elf64_Phdr), size)) {
        snprintf(why, why_size, "%.200s is not a shared object for this machine", path);
        return 0;
    }
    for (uint16_t i = 0; i < header.e_phnum; i++) {
        Elf64_Phdr segment;
        off_t at = (off_t)(header.e_phoff + (uint64_t)i * sizeof segment);
        if (pread(fd, &segment, sizeof segment, at) != (ssize_t)sizeof segment ||
            (segment.p_type == PT_LOAD && !within(segment.p_offset, segment.p_filesz, size))) {
            snprintf(why, why_size, "%.200s is damaged (cut short: a segment lies past its end)", path);
            return 0;
        }
    }
    return 1;
}

/* Opens PATH for loading if it and its directory are trusted and it is loadable
 * (`loadable`); -1 (and why) otherwise. */
static int open_trusted(const char *path, uid_t owner, char *why, size_t size)
{
    char directory[PATH_MAX];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    if (slash != NULL) {
        *slash = '\0';
    }
    struct stat st;
    if (stat(slash ? directory : ".", &st) != 0 || !S_ISDIR(st.st_mode) || !owned(&st, owner)) {
        snprintf(why, size, "untrusted or missing directory of %.200s", path);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, size, "%.200s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !owned(&st, owner)) {
        snprintf(why, size, "untrusted %.200s", path);
        close(fd);
        return -1;
    }
    if (!loadable(fd, (uint64_t)st.st_size, path, why, size)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Loads the core unless it is loaded; returns it, or NULL with WHY set. */
static void *load_core(char *why, size_t size)
{
    pthread_mutex_lock(&core_lock);
    Dl_info self;
    struct stat front;
    if (core == NULL) {
        if (dladdr((void *)load_core, &self) == 0 || self.dli_fname == NULL || stat(self.dli_fname, &front) != 0) {
            snprintf(why, size, "cannot find where pam_secureroom.so was loaded from");
        } else {
            const char *slash = strrchr(self.dli_fname, '/');
            int directory = slash ? (int)(slash - self.dli_fname) : 1;
            const char *base = slash ? self.dli_fname : ".";
            for (size_t i = 0; core == NULL && i < sizeof core_paths / sizeof core_paths[0]; i++) {
                char path[PATH_MAX];
                if (snprintf(path, sizeof path, "%.*s/%s", directory, base, core_paths[i]) >= (int)sizeof path) {
                    continue;
                }
                int fd = open_trusted(path, front.st_uid, why, size);
                if (fd < 0) {
                    continue;
                }
                close(fd);
                core = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
                if (core == NULL) {
                    const char *error = dlerror();
                    snprintf(why, size, "%.240s", error ? error : path);
                }
            }
        }
    }
    void *loaded = core;
    pthread_mutex_unlock(&core_lock);
    return loaded;
}

/* The core's NAME, loading the core if it is not loaded yet; NULL (and a log line) if it cannot. */
static entry_point *resolve(pam_handle_t *pamh, const char *name)
{
    char why[256] = "not loaded";
    void *loaded = load_core(why, sizeof why);
    entry_point *entry = loaded ? (entry_point *)dlsym(loaded, name) : NULL;
    if (entry == NULL) {
        pam_syslog(pamh, LOG_ERR, "cannot load the module's core (%s): %s", name, loaded ? "no such entry" : why);
    }
    return entry;
}

/* NAME calls the core's NAME, or answers WITHOUT_CORE when the core cannot be loaded. */
#define FORWARD(name, without_core)                                                                                    \
    PAM_EXTERN int name(pam_handle_t *pamh, int flags, int argc, const char **argv)                                    \
    {                                                                                                                  \
        entry_point *entry = resolve(pamh, #name);                                                                     \
        return entry ? entry(pamh, flags, argc, argv) : (without_core);                                                \
    }

FORWARD(pam_sm_authenticate, PAM_AUTHINFO_UNAVAIL)
FORWARD(pam_sm_setcred, PAM_IGNORE)
FORWARD(pam_sm_acct_mgmt, PAM_IGNORE)
FORWARD(pam_sm_open_session, PAM_IGNORE)
FORWARD(pam_sm_close_session, PAM_IGNORE)
FORWARD(pam_sm_chauthtok, PAM_AUTHTOK_ERR)
