// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * secureroom-pam-driver — run PAM transactions through the real libpam for tests.
 *
 *   secureroom-pam-driver --confdir DIR --service NAME [--user NAME] [--silent]
 *                         [--ignore-sigchld] [--conversation MODE] [--reply-hex HEX]
 *                         [--reply-size N] [--at-prompt COMMAND] [--report-io]
 *                         [--report-ids] OP [OP ...]
 *   OP: auth | acct | chauthtok | setcred | open | close
 *
 * Loads the stack DIR/NAME with pam_start_confdir(3) (Linux-PAM >= 1.4), so no file
 * under /etc is used. Without --user, pam_start gets a NULL user and a module must ask
 * for one through the conversation. Each conversation prompt is answered with the next
 * line of standard input (newline stripped); end of input fails the conversation.
 * Prints one line per event, for tests to read:
 *
 *   prompt: TEXT        a PAM_PROMPT_ECHO_OFF/ON prompt
 *   error: TEXT         a PAM_ERROR_MSG
 *   info: TEXT          a PAM_TEXT_INFO
 *   fail-delay: USEC    the failure delay the stack asked for (not slept)
 *   at-prompt: STATUS   (with --at-prompt) the command's system(3) status
 *   result OP: CODE NAME
 *   sigchld: ignored|default|handled   (with --ignore-sigchld: the action afterwards)
 *   io: rchar BYTES     (with --report-io) bytes this process read(2) in all, from
 *                       /proc/self/io: shows whether a module read a file it refused
 *   ids: R E S / R E S  (with --report-ids) real, effective and saved uid, then gid,
 *                       once before pam_start and once after pam_end: a module that
 *                       switches ids (to reach a user's keyring) must restore them all,
 *                       in a setuid-root host (su, sudo) as anywhere else
 *
 * and exits with the last operation's PAM code. --ignore-sigchld plays a host that
 * sets SIGCHLD to SIG_IGN (children reaped by the kernel), which a module running a
 * helper must cope with and leave as it found it.
 *
 * Hostile applications, for the modules' error paths:
 *
 *   --conversation lines       (default) answer prompts from standard input as above
 *   --conversation none        the pam_conv's function pointer is NULL
 *   --conversation fail        every call fails with PAM_CONV_ERR
 *   --conversation null-array  every call "succeeds" with *resp set to NULL
 *   --conversation null-reply  every call "succeeds" with an array whose resp are NULL
 *   --reply-hex HEX            answer every prompt with these bytes (may contain 00:
 *                              the module sees a C string cut at the first NUL)
 *   --reply-size N             answer every prompt with N '7' bytes (1 MiB, say)
 *   --at-prompt COMMAND        run COMMAND with system(3) when the first PROMPT_ECHO_OFF
 *                              prompt arrives, before answering it (races against the
 *                              module between its first look at the state and the check)
 */
#define _GNU_SOURCE
#include <security/pam_appl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How the conversation answers (--conversation). */
enum mode { LINES, NONE, FAIL, NULL_ARRAY, NULL_REPLY };

/* The options the conversation reads. */
struct options {
    enum mode mode;
    const char *reply;     /* --reply-hex or --reply-size: the answer to every prompt */
    size_t reply_length;   /* its length (it may contain NUL bytes) */
    const char *at_prompt; /* --at-prompt: run once, at the first echo-off prompt */
};

/* One answer: a malloc'd copy of the fixed reply, or the next line of standard input;
 * NULL at end of input or when out of memory. */
static char *answer(const struct options *options)
{
    if (options->reply != NULL) {
        char *copy = malloc(options->reply_length + 1);
        if (copy != NULL) {
            memcpy(copy, options->reply, options->reply_length);
            copy[options->reply_length] = '\0';
        }
        return copy;
    }
    char *line = NULL;
    size_t size = 0;
    ssize_t length = getline(&line, &size, stdin);
    if (length < 0) {
        free(line);
        return NULL;
    }
    if (length > 0 && line[length - 1] == '\n')
        line[length - 1] = '\0';
    return line;
}

static int converse(int count, const struct pam_message **messages, struct pam_response **responses, void *data)
{
    struct options *options = data;
    if (options->mode == FAIL)
        return PAM_CONV_ERR;
    if (options->mode == NULL_ARRAY) {
        *responses = NULL;
        return PAM_SUCCESS;
    }
    struct pam_response *replies = calloc((size_t)count, sizeof *replies);
    if (replies == NULL)
        return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        const struct pam_message *m = messages[i];
        switch (m->msg_style) {
        case PAM_PROMPT_ECHO_OFF:
        case PAM_PROMPT_ECHO_ON: {
            printf("prompt: %s\n", m->msg);
            fflush(stdout);
            if (m->msg_style == PAM_PROMPT_ECHO_OFF && options->at_prompt != NULL) {
                printf("at-prompt: %d\n", system(options->at_prompt));
                fflush(stdout);
                options->at_prompt = NULL;
            }
            if (options->mode == NULL_REPLY)
                break;
            char *line = answer(options);
            if (line == NULL) {
                for (int j = 0; j < i; j++)
                    free(replies[j].resp);
                free(replies);
                return PAM_CONV_ERR;
            }
            replies[i].resp = line;
            break;
        }
        case PAM_ERROR_MSG:
            printf("error: %s\n", m->msg);
            break;
        case PAM_TEXT_INFO:
            printf("info: %s\n", m->msg);
            break;
        default:
            break;
        }
    }
    fflush(stdout);
    *responses = replies;
    return PAM_SUCCESS;
}

static void record_delay(int status, unsigned int usec, void *data)
{
    (void)status;
    (void)data;
    printf("fail-delay: %u\n", usec);
}

/* The value of the hex digit C, or -1. */
static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the hex string TEXT into a malloc'd buffer; NULL if it is not hex. */
static char *decode_hex(const char *text, size_t *length)
{
    size_t digits = strlen(text);
    if (digits % 2 != 0)
        return NULL;
    char *bytes = malloc(digits / 2 + 1);
    for (size_t i = 0; bytes != NULL && i < digits / 2; i++) {
        int high = nibble(text[2 * i]), low = nibble(text[2 * i + 1]);
        if (high < 0 || low < 0) {
            free(bytes);
            return NULL;
        }
        bytes[i] = (char)(high << 4 | low);
    }
    *length = digits / 2;
    return bytes;
}

/* Prints this process's rchar from /proc/self/io (all bytes read so far). */
static void report_io(void)
{
    FILE *io = fopen("/proc/self/io", "r");
    char line[128];
    while (io != NULL && fgets(line, sizeof line, io) != NULL) {
        unsigned long long bytes;
        if (sscanf(line, "rchar: %llu", &bytes) == 1)
            printf("io: rchar %llu\n", bytes);
    }
    if (io != NULL)
        fclose(io);
}

/* Prints the process's real, effective and saved uids and gids. */
static void report_ids(void)
{
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    getresuid(&ruid, &euid, &suid);
    getresgid(&rgid, &egid, &sgid);
    printf("ids: %u %u %u / %u %u %u\n", ruid, euid, suid, rgid, egid, sgid);
}

static int usage(const char *program)
{
    fprintf(stderr,
            "usage: %s --confdir DIR --service NAME [--user NAME] [--silent] [--ignore-sigchld]\n"
            "       [--conversation lines|none|fail|null-array|null-reply] [--reply-hex HEX]\n"
            "       [--reply-size N] [--at-prompt COMMAND] [--report-io] [--report-ids] [--rhost HOST] OP...\n"
            "OP: auth acct chauthtok setcred open close, or wait (hold the session: print our pid,\n"
            "    then wait for SIGUSR1, as a host such as su holds its session until the shell exits)\n",
            program);
    return 64;
}

int main(int argc, char **argv)
{
    const char *confdir = NULL, *service = NULL, *user = NULL, *rhost = NULL;
    int flags = 0, first_op = argc, ignore_sigchld = 0, io = 0, ids = 0;
    struct options options = {LINES, NULL, 0, NULL};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--confdir") == 0 && i + 1 < argc)
            confdir = argv[++i];
        else if (strcmp(argv[i], "--service") == 0 && i + 1 < argc)
            service = argv[++i];
        else if (strcmp(argv[i], "--user") == 0 && i + 1 < argc)
            user = argv[++i];
        else if (strcmp(argv[i], "--silent") == 0)
            flags |= PAM_SILENT;
        else if (strcmp(argv[i], "--ignore-sigchld") == 0)
            ignore_sigchld = 1;
        else if (strcmp(argv[i], "--conversation") == 0 && i + 1 < argc) {
            const char *names[] = {"lines", "none", "fail", "null-array", "null-reply"};
            const char *mode = argv[++i];
            int found = 0;
            for (int m = 0; m < 5; m++)
                if (strcmp(mode, names[m]) == 0) {
                    options.mode = (enum mode)m;
                    found = 1;
                }
            if (!found)
                return usage(argv[0]);
        } else if (strcmp(argv[i], "--reply-hex") == 0 && i + 1 < argc) {
            if ((options.reply = decode_hex(argv[++i], &options.reply_length)) == NULL)
                return usage(argv[0]);
        } else if (strcmp(argv[i], "--reply-size") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long size = strtoul(argv[++i], &end, 10);
            char *reply = end != NULL && *end == '\0' ? malloc(size + 1) : NULL;
            if (reply == NULL)
                return usage(argv[0]);
            memset(reply, '7', size);
            options.reply = reply;
            options.reply_length = size;
        } else if (strcmp(argv[i], "--at-prompt") == 0 && i + 1 < argc)
            options.at_prompt = argv[++i];
        else if (strcmp(argv[i], "--report-io") == 0)
            io = 1;
        else if (strcmp(argv[i], "--report-ids") == 0)
            ids = 1;
        else if (strcmp(argv[i], "--rhost") == 0 && i + 1 < argc)
            rhost = argv[++i];
        else {
            first_op = i;
            break;
        }
    }
    if (confdir == NULL || service == NULL || first_op >= argc)
        return usage(argv[0]);
    if (ignore_sigchld)
        signal(SIGCHLD, SIG_IGN);
    /* `wait` takes SIGUSR1 with sigwait(2): block it from the start, so none is lost. */
    sigset_t release;
    sigemptyset(&release);
    sigaddset(&release, SIGUSR1);
    sigprocmask(SIG_BLOCK, &release, NULL);
    if (ids)
        report_ids();
    struct pam_conv conversation = {options.mode == NONE ? NULL : converse, &options};
    pam_handle_t *pamh = NULL;
    int code = pam_start_confdir(service, user, &conversation, confdir, &pamh);
    if (code != PAM_SUCCESS) {
        printf("result start: %d %s\n", code, pam_strerror(pamh, code));
        return code;
    }
    pam_set_item(pamh, PAM_FAIL_DELAY, (const void *)record_delay);
    if (rhost != NULL)
        pam_set_item(pamh, PAM_RHOST, rhost);
    for (int i = first_op; i < argc; i++) {
        if (strcmp(argv[i], "auth") == 0)
            code = pam_authenticate(pamh, flags);
        else if (strcmp(argv[i], "acct") == 0)
            code = pam_acct_mgmt(pamh, flags);
        else if (strcmp(argv[i], "chauthtok") == 0)
            code = pam_chauthtok(pamh, flags);

        else if (strcmp(argv[i], "setcred") == 0)
            code = pam_setcred(pamh, flags | PAM_ESTABLISH_CRED);
        else if (strcmp(argv[i], "open") == 0)
            code = pam_open_session(pamh, flags);
        else if (strcmp(argv[i], "close") == 0)
            code = pam_close_session(pamh, flags);
        else if (strcmp(argv[i], "wait") == 0) {
            printf("result wait: pid %d\n", (int)getpid());
            fflush(stdout);
            int signal_number = 0;
            sigwait(&release, &signal_number);
            continue;
        } else {
            fprintf(stderr, "unknown operation %s\n", argv[i]);
            pam_end(pamh, PAM_SYSTEM_ERR);
            return 64;
        }
        printf("result %s: %d %s\n", argv[i], code, pam_strerror(pamh, code));
        fflush(stdout);
    }
    pam_end(pamh, code);
    if (ignore_sigchld) {
        struct sigaction after;
        sigaction(SIGCHLD, NULL, &after);
        printf("sigchld: %s\n", after.sa_handler == SIG_IGN   ? "ignored"
                                : after.sa_handler == SIG_DFL ? "default"
                                                              : "handled");
    }
    if (io)
        report_io();
    if (ids)
        report_ids();
    return code;
}
