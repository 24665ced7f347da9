#define _GNU_SOURCE
#include "CSecureRoomSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <syslog.h>
#include <termios.h>
#include <unistd.h>

int sr_openat(int dirfd, const char *path, int flags, mode_t mode) { return openat(dirfd, path, flags, mode); }
void sr_explicit_bzero(void *buf, size_t len) { explicit_bzero(buf, len); }
int sr_mlock(const void *addr, size_t len) { return mlock(addr, len); }
int sr_munlock(const void *addr, size_t len) { return munlock(addr, len); }
void sr_syslog(int priority, const char *message) { syslog(priority, "%s", message); }
int sr_s_isreg(mode_t m) { return S_ISREG(m); }
int sr_s_isdir(mode_t m) { return S_ISDIR(m); }
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
