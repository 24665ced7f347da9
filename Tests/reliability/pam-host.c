// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * pam-host — a long-lived PAM application for the `memory` reliability item
 * (Tests/reliability/memory.sh): many authentications in one process, so memcheck can
 * look for leaks and bad accesses, the heap can be watched for growth, and the
 * process's memory can be scanned for PIN digits afterwards (memscan.c).
 *
 *   pam-host --confdir DIR --service NAME --user USER --pins FILE --count N
 *            [--wrong-every K] [--warmup W] [--pause] [--canary FILE]
 *
 * Runs N transactions, each pam_start_confdir(3) -> pam_authenticate -> pam_end.
 * FILE holds PINs, one per line: the first is the user's PIN, the others wrong ones.
 * Attempt i (from 0) answers with a wrong PIN when i % K == K - 1 (cycling through the
 * wrong ones), else with the right PIN; K defaults to 3. The PINs never come from argv or
 * the environment: for each prompt the file is read with read(2) into a stack buffer,
 * the chosen line is strdup'd for libpam (the module wipes and frees it), and the host's
 * buffer is wiped with explicit_bzero at once. No stdio touches the file.
 *
 * Prints, one per line (no PIN is ever printed):
 *   heap warmup: IN_USE MMAPPED   malloc's uordblks/hblkhd after W transactions
 *   heap middle: IN_USE MMAPPED   ... after (W + N) / 2 transactions
 *   heap end: IN_USE MMAPPED      ... after N transactions (the heap lines only when
 *                                 not running under valgrind, which replaces malloc)
 *   results: right=R wrong=W success=S auth_err=A other=O unexpected=U
 *   code CODE NAME: COUNT         one line per PAM result seen
 *   ready                         with --pause: all handles ended; waits for EOF on stdin
 * --canary FILE is the scanner's positive control: before pausing, the first line of
 * FILE (a made-up PIN, never the user's) is copied to the heap and deliberately kept
 * unwiped, so a scan that does not find it is broken.
 * Exits 0 if every right PIN gave PAM_SUCCESS and every wrong one PAM_AUTH_ERR, 1 if
 * not, 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* Largest PIN file accepted (a few short lines). */
#define PIN_FILE_MAX 512
/* Highest PAM code counted individually (PAM_BAD_ITEM is 29 in Linux-PAM 1.5). */
#define CODE_MAX 40

/* What the conversation needs to answer one prompt. */
struct answer_source {
    const char *path; /* the PIN file */
    int line;         /* which line answers this attempt (0: the right PIN) */
    int prompts;      /* prompts answered in this transaction */
};

/*
 * Copies line `line` of the PIN file into a fresh malloc'd string (NULL on error).
 * The read buffer lives on this stack frame and is wiped before returning.
 */
static char *read_pin_line(const char *path, int line)
{
    char buffer[PIN_FILE_MAX + 1];
    char *copy = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t total = 0, got;
    while (total < PIN_FILE_MAX && (got = read(fd, buffer + total, PIN_FILE_MAX - (size_t)total)) > 0)
        total += got;
    close(fd);
    buffer[total] = '\0';
    char *start = buffer;
    for (int i = 0; i < line && start != NULL; i++) {
        start = strchr(start, '\n');
        if (start != NULL)
            start++;
    }
    if (start != NULL && *start != '\0') {
        size_t length = strcspn(start, "\r\n");
        copy = strndup(start, length);
    }
    explicit_bzero(buffer, sizeof buffer);
    return copy;
}

/* Counts the non-empty lines of the PIN file (the right PIN plus the wrong ones). */
static int count_pin_lines(const char *path)
{
    int lines = 0;
    for (;;) {
        char *pin = read_pin_line(path, lines);
        if (pin == NULL)
            return lines;
        int empty = pin[0] == '\0';
        explicit_bzero(pin, strlen(pin));
        free(pin);
        if (empty)
            return lines;
        lines++;
    }
}

/* The conversation: PINs for echo-off prompts, nothing printed for messages. */
static int converse(int count, const struct pam_message **messages, struct pam_response **responses, void *data)
{
    struct answer_source *source = data;
    struct pam_response *replies = calloc((size_t)count, sizeof *replies);
    if (replies == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        int style = messages[i]->msg_style;
        if (style != PAM_PROMPT_ECHO_OFF && style != PAM_PROMPT_ECHO_ON)
            continue;
        source->prompts++;
        replies[i].resp = read_pin_line(source->path, source->line);
        if (replies[i].resp == NULL) {
            for (int j = 0; j < i; j++) {
                if (replies[j].resp != NULL) {
                    explicit_bzero(replies[j].resp, strlen(replies[j].resp));
                    free(replies[j].resp);
                }
            }
            free(replies);
            return PAM_CONV_ERR;
        }
    }
    *responses = replies;
    return PAM_SUCCESS;
}

/* A failure-delay hook that does not sleep (the stack uses nodelay anyway). */
static void no_delay(int status, unsigned int usec, void *data)
{
    (void)status;
    (void)usec;
    (void)data;
}

/* Prints malloc's bytes in use (main arena) and in mmapped chunks. */
static void print_heap(const char *label)
{
    if (RUNNING_ON_VALGRIND)
        return;
    struct mallinfo2 info = mallinfo2();
    printf("heap %s: %zu %zu\n", label, info.uordblks, info.hblkhd);
    fflush(stdout);
}

/* The canary kept for the scanner's positive control (volatile: must stay in memory). */
static char *volatile canary;

static void usage(const char *program)
{
    fprintf(stderr,
            "usage: %s --confdir DIR --service NAME --user USER --pins FILE --count N "
            "[--wrong-every K] [--warmup W] [--pause] [--canary FILE]\n",
            program);
}

int main(int argc, char **argv)
{
    const char *confdir = NULL, *service = NULL, *user = NULL, *pins = NULL, *canary_path = NULL;
    long count = -1, wrong_every = 3, warmup = 0;
    int pause_at_end = 0;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(option, "--pause") == 0) {
            pause_at_end = 1;
            continue;
        }
        if (value == NULL) {
            usage(argv[0]);
            return 2;
        }
        i++;
        if (strcmp(option, "--confdir") == 0)
            confdir = value;
        else if (strcmp(option, "--service") == 0)
            service = value;
        else if (strcmp(option, "--user") == 0)
            user = value;
        else if (strcmp(option, "--pins") == 0)
            pins = value;
        else if (strcmp(option, "--count") == 0)
            count = strtol(value, NULL, 10);
        else if (strcmp(option, "--wrong-every") == 0)
            wrong_every = strtol(value, NULL, 10);
        else if (strcmp(option, "--warmup") == 0)
            warmup = strtol(value, NULL, 10);
        else if (strcmp(option, "--canary") == 0)
            canary_path = value;
        else {
            usage(argv[0]);
            return 2;
        }
    }
    if (confdir == NULL || service == NULL || user == NULL || pins == NULL || count < 1 || wrong_every < 1 ||
        warmup < 0 || warmup > count) {
        usage(argv[0]);
        return 2;
    }
    int lines = count_pin_lines(pins);
    if (lines < 1 || (wrong_every > 1 && lines < 2)) {
        fprintf(stderr, "%s: %s needs the right PIN and at least one wrong PIN, one per line\n", argv[0], pins);
        return 2;
    }

    /* stdout gets a static buffer: its first printf must not change the heap being measured. */
    static char output_buffer[BUFSIZ];
    setvbuf(stdout, output_buffer, _IOLBF, sizeof output_buffer);

    long seen[CODE_MAX + 1] = {0};
    long right = 0, wrong = 0, unexpected = 0, wrong_index = 0;
    long middle = (warmup + count) / 2;
    for (long attempt = 0; attempt < count; attempt++) {
        struct answer_source source = {pins, 0, 0};
        int expected = PAM_SUCCESS;
        if (wrong_every > 1 && attempt % wrong_every == wrong_every - 1) {
            source.line = 1 + (int)(wrong_index++ % (lines - 1));
            expected = PAM_AUTH_ERR;
            wrong++;
        } else {
            right++;
        }
        struct pam_conv conversation = {converse, &source};
        pam_handle_t *pamh = NULL;
        int code = pam_start_confdir(service, user, &conversation, confdir, &pamh);
        if (code != PAM_SUCCESS) {
            fprintf(stderr, "%s: pam_start_confdir: %d %s\n", argv[0], code, pam_strerror(pamh, code));
            return 2;
        }
        pam_set_item(pamh, PAM_FAIL_DELAY, (const void *)no_delay);
        code = pam_authenticate(pamh, 0);
        if (code != expected || source.prompts != 1) {
            unexpected++;
            fprintf(stderr, "attempt %ld: %s PIN gave %d %s after %d prompts\n", attempt,
                    expected == PAM_SUCCESS ? "right" : "wrong", code, pam_strerror(pamh, code), source.prompts);
        }
        seen[code >= 0 && code <= CODE_MAX ? code : CODE_MAX]++;
        pam_end(pamh, code);
        if (attempt + 1 == warmup)
            print_heap("warmup");
        if (attempt + 1 == middle && warmup > 0)
            print_heap("middle");
    }
    print_heap("end");

    long others = count - seen[PAM_SUCCESS] - seen[PAM_AUTH_ERR];
    printf("results: right=%ld wrong=%ld success=%ld auth_err=%ld other=%ld unexpected=%ld\n", right, wrong,
           seen[PAM_SUCCESS], seen[PAM_AUTH_ERR], others, unexpected);
    for (int code = 0; code <= CODE_MAX; code++) {
        if (seen[code] > 0)
            printf("code %d %s: %ld\n", code, pam_strerror(NULL, code), seen[code]);
    }
    fflush(stdout);

    if (canary_path != NULL && (canary = read_pin_line(canary_path, 0)) == NULL) {
        fprintf(stderr, "%s: cannot read the canary from %s\n", argv[0], canary_path);
        return 2;
    }
    if (pause_at_end) {
        printf("ready\n");
        fflush(stdout);
        char byte;
        while (read(STDIN_FILENO, &byte, 1) > 0) {
        }
    }
    return unexpected == 0 ? 0 : 1;
}
