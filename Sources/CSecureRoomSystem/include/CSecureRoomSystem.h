/*
 * CSecureRoomSystem — one-line wrappers for the system calls and macros that
 * Swift cannot reach directly (variadic functions, function-like macros).
 * Every name is prefixed sr_; no logic lives here.
 */
#ifndef CSECUREROOM_SYSTEM_H
#define CSECUREROOM_SYSTEM_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/stat.h>

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

/* S_ISREG / S_ISDIR / S_ISLNK are macros. */
int sr_s_isreg(mode_t m);
int sr_s_isdir(mode_t m);

#endif
