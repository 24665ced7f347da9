// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * memscan — search a live process's writable memory for PIN digits, for the `memory`
 * reliability item (Tests/reliability/memory.sh), which runs it on a paused pam-host.
 *
 *   memscan --pins FILE PID
 *
 * FILE holds the PINs used in the run, one per line (the first is the right PIN, the
 * others wrong ones); they are read with read(2) and never printed. Every mapping of PID
 * that is readable and writable (heap, anonymous memory, stacks, the .data/.bss of the
 * program and of every library and PAM module) is read through /proc/PID/mem and
 * searched for each PIN as ASCII bytes. Needs root (or ptrace rights over PID).
 *
 * Prints, one per line:
 *   hit: pin=K(right|wrong) KIND addr=0xADDR map=NAME+0xOFFSET perms=PERMS context=HEX |ASCII|
 *        one per occurrence; the PIN's own bytes are shown as '#' in the context. KIND is
 *        `isolated` (no ASCII digit right before or after: the PIN as a whole string) or
 *        `embedded` (inside a longer run of digits, such as a timestamp: a chance match)
 *   scanned: MAPPINGS mappings, BYTES bytes, UNREADABLE unreadable mappings
 *   digit-windows: W (length L)  positions where L consecutive ASCII digits end (L: the
 *                      shortest PIN), i.e. places where a PIN could match by chance
 *   exact-runs: R      runs of exactly L digits (where an isolated chance match could be)
 *   expected-chance: E F   expected chance hits with P PINs: E = W x P / 10^L (any hit),
 *                      F = R x P / 10^L (isolated hits)
 *   hits: H isolated: I
 * Exits 0 if there is no hit, 1 if there is one, 2 on an error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PINS 16
#define PIN_MAX  16
#define CHUNK    (1 << 20)
#define CONTEXT  16

struct pins {
    int count;
    size_t length[MAX_PINS];
    char text[MAX_PINS][PIN_MAX + 1];
};

/* Reads the PIN file with read(2); wipes the read buffer. Returns 0 on success. */
static int load_pins(const char *path, struct pins *pins)
{
    char buffer[1024];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t total = 0, got;
    while (total < (ssize_t)sizeof buffer - 1 &&
           (got = read(fd, buffer + total, sizeof buffer - 1 - (size_t)total)) > 0)
        total += got;
    close(fd);
    buffer[total] = '\0';
    pins->count = 0;
    for (char *line = buffer; *line != '\0' && pins->count < MAX_PINS;) {
        size_t length = strcspn(line, "\r\n");
        if (length > 0 && length <= PIN_MAX) {
            memcpy(pins->text[pins->count], line, length);
            pins->text[pins->count][length] = '\0';
            pins->length[pins->count++] = length;
        }
        line += length;
        line += strspn(line, "\r\n");
    }
    explicit_bzero(buffer, sizeof buffer);
    return pins->count > 0 ? 0 : -1;
}

/* Prints the bytes around a hit, with the PIN itself masked. */
static void print_context(const unsigned char *data, size_t size, size_t at, size_t length)
{
    size_t from = at > CONTEXT ? at - CONTEXT : 0;
    size_t to = at + length + CONTEXT < size ? at + length + CONTEXT : size;
    printf(" context=");
    for (size_t i = from; i < to; i++) {
        if (i >= at && i < at + length)
            printf("##");
        else
            printf("%02x", data[i]);
    }
    printf(" |");
    for (size_t i = from; i < to; i++) {
        if (i >= at && i < at + length)
            putchar('#');
        else
            putchar(isprint(data[i]) ? data[i] : '.');
    }
    printf("|");
}

int main(int argc, char **argv)
{
    if (argc != 4 || strcmp(argv[1], "--pins") != 0) {
        fprintf(stderr, "usage: %s --pins FILE PID\n", argv[0]);
        return 2;
    }
    static struct pins pins;
    if (load_pins(argv[2], &pins) != 0) {
        fprintf(stderr, "%s: cannot read PINs from %s\n", argv[0], argv[2]);
        return 2;
    }
    size_t shortest = PIN_MAX, longest = 0;
    for (int k = 0; k < pins.count; k++) {
        if (pins.length[k] < shortest)
            shortest = pins.length[k];
        if (pins.length[k] > longest)
            longest = pins.length[k];
    }

    char path[64];
    snprintf(path, sizeof path, "/proc/%s/maps", argv[3]);
    FILE *maps = fopen(path, "r");
    snprintf(path, sizeof path, "/proc/%s/mem", argv[3]);
    int mem = open(path, O_RDONLY | O_CLOEXEC);
    if (maps == NULL || mem < 0) {
        fprintf(stderr, "%s: cannot open /proc/%s/maps or mem\n", argv[0], argv[3]);
        return 2;
    }

    unsigned char *data = malloc(CHUNK + PIN_MAX);
    uint64_t scanned = 0, windows = 0;
    uint64_t exact_runs = 0;
    long mappings = 0, unreadable = 0, hits = 0, isolated = 0;
    char line[4096];
    while (fgets(line, sizeof line, maps) != NULL) {
        uint64_t start, end, offset;
        char perms[8] = "", name[4096] = "";
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]", &start, &end, perms, &offset,
                   name) < 4)
            continue;
        if (perms[0] != 'r' || perms[1] != 'w')
            continue;
        char *label = name + strspn(name, " ");
        if (*label == '\0')
            label = "[anonymous]";
        mappings++;
        /* Chunks overlap by longest-1 bytes so a PIN across a boundary is found once. */
        size_t carried = 0;
        int run = 0; /* consecutive digits ending at the previous byte */
        for (uint64_t address = start; address < end;) {
            size_t want = end - address < CHUNK ? (size_t)(end - address) : CHUNK;
            ssize_t got = pread(mem, data + carried, want, (off_t)address);
            if (got <= 0) {
                unreadable++;
                break;
            }
            size_t size = carried + (size_t)got;
            for (size_t i = carried; i < size; i++) {
                if (isdigit(data[i])) {
                    run++;
                } else {
                    if (run == (int)shortest)
                        exact_runs++;
                    run = 0;
                }
                if (run >= (int)shortest)
                    windows++;
            }
            for (int k = 0; k < pins.count; k++) {
                const unsigned char *from = data;
                while ((size_t)(from - data) + pins.length[k] <= size) {
                    const unsigned char *found =
                        memmem(from, size - (size_t)(from - data), pins.text[k], pins.length[k]);
                    if (found == NULL)
                        break;
                    size_t at = (size_t)(found - data);
                    /* A match lying wholly in the carried bytes was reported with the previous chunk. */
                    if (at + pins.length[k] > carried) {
                        uint64_t where = address - carried + at;
                        hits++;
                        int before = at > 0 && isdigit(data[at - 1]);
                        int after = at + pins.length[k] < size && isdigit(data[at + pins.length[k]]);
                        if (!before && !after)
                            isolated++;
                        printf("hit: pin=%d(%s) %s addr=0x%" PRIx64 " map=%s+0x%" PRIx64 " perms=%s", k,
                               k == 0 ? "right" : "wrong", before || after ? "embedded" : "isolated", where, label,
                               where - start + offset, perms);
                        print_context(data, size, at, pins.length[k]);
                        printf("\n");
                    }
                    from = found + 1;
                }
            }
            scanned += (uint64_t)got;
            address += (uint64_t)got;
            carried = longest - 1 < size ? longest - 1 : size;
            memmove(data, data + size - carried, carried);
        }
        explicit_bzero(data, CHUNK + PIN_MAX);
    }
    fclose(maps);
    close(mem);
    free(data);

    double expected = (double)windows * pins.count, expected_isolated = (double)exact_runs * pins.count;
    for (size_t i = 0; i < shortest; i++) {
        expected /= 10.0;
        expected_isolated /= 10.0;
    }
    printf("scanned: %ld mappings, %" PRIu64 " bytes, %ld unreadable mappings\n", mappings, scanned, unreadable);
    printf("digit-windows: %" PRIu64 " (length %zu)\n", windows, shortest);
    printf("exact-runs: %" PRIu64 "\n", exact_runs);
    printf("expected-chance: %.3g %.3g\n", expected, expected_isolated);
    printf("hits: %ld isolated: %ld\n", hits, isolated);
    explicit_bzero(&pins, sizeof pins);
    return hits == 0 ? 0 : 1;
}
