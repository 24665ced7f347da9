// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * freecheck.so — LD_PRELOAD shim for the `memory` reliability item (memory.sh): counts
 * heap blocks that still hold a PIN when they are freed.
 *
 *   LD_PRELOAD=freecheck.so FREECHECK_PINS=FILE FREECHECK_REPORT=OUT pam-host ...
 *
 * Why: a scan of memory after the fact cannot see a PIN left in a short block that was
 * freed unwiped, because glibc's free() writes its list pointers over the first bytes of
 * the block, which is where a short string lives. So this shim looks at each block as it
 * is freed (free, and the old block of a moving realloc): if it contains one of the PINs
 * of FILE (one per line) as ASCII, not inside a longer run of digits (a lockout record's
 * nanoseconds matched a 6-digit PIN once, 24 blocks in one run), it is counted. At exit it writes to OUT:
 *   freed-blocks: F
 *   freed-with-pin: H
 *   first: pin=K size=S offset=O    (up to 10 lines, for the first offending blocks)
 * The PINs are kept in this shim's static memory only; the run that uses it is not the
 * one that is scanned.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PINS  16
#define PIN_MAX   16
#define MAX_FIRST 10

static char pins[MAX_PINS][PIN_MAX + 1];
static size_t lengths[MAX_PINS];
static int pin_count;
static unsigned long freed, offending;
static char first[MAX_FIRST][96];
static int first_count;
static void (*real_free)(void *);
static void *(*real_realloc)(void *, size_t);

/* Reads the PIN file named by FREECHECK_PINS (read(2) only: no allocation). */
__attribute__((constructor)) static void load(void)
{
    const char *path = getenv("FREECHECK_PINS");
    if (path == NULL)
        return;
    char buffer[1024];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t total = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (total < 0)
        total = 0;
    buffer[total] = '\0';
    for (char *line = buffer; *line != '\0' && pin_count < MAX_PINS;) {
        size_t length = strcspn(line, "\r\n");
        if (length > 0 && length <= PIN_MAX) {
            memcpy(pins[pin_count], line, length);
            lengths[pin_count++] = length;
        }
        line += length;
        line += strspn(line, "\r\n");
    }
    explicit_bzero(buffer, sizeof buffer);
}

/* Counts `block` if it holds a PIN standing alone (called just before it is released). */
static void inspect(void *block)
{
    if (block == NULL)
        return;
    freed++;
    size_t size = malloc_usable_size(block);
    const char *start = block, *end = start + size;
    for (int k = 0; k < pin_count; k++) {
        for (const char *found = memmem(start, size, pins[k], lengths[k]); found != NULL;
             found = memmem(found + 1, (size_t)(end - found - 1), pins[k], lengths[k])) {
            /* A PIN as typed stands alone; inside a longer run of digits (a timestamp's
             * nanoseconds in a lockout record) it is a chance match, not a PIN. */
            const char *after = found + lengths[k];
            if ((found > start && isdigit((unsigned char)found[-1])) || (after < end && isdigit((unsigned char)*after)))
                continue;
            offending++;
            if (first_count < MAX_FIRST)
                snprintf(first[first_count++], sizeof first[0], "first: pin=%d size=%zu offset=%zu", k, size,
                         (size_t)(found - start));
            return;
        }
    }
}

void free(void *block)
{
    if (real_free == NULL)
        real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    inspect(block);
    real_free(block);
}

void *realloc(void *block, size_t size)
{
    if (real_realloc == NULL)
        real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    /* realloc may move the block and release the old one without calling free(). */
    if (block != NULL && size > malloc_usable_size(block))
        inspect(block);
    return real_realloc(block, size);
}

/* Writes the counts to FREECHECK_REPORT. */
__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("FREECHECK_REPORT");
    if (path == NULL)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    dprintf(fd, "freed-blocks: %lu\nfreed-with-pin: %lu\n", freed, offending);
    for (int i = 0; i < first_count; i++)
        dprintf(fd, "%s\n", first[i]);
    close(fd);
    explicit_bzero(pins, sizeof pins);
}
