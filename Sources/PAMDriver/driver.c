/*
 * secureroom-pam-driver — run PAM transactions through the real libpam for tests.
 *
 *   secureroom-pam-driver --confdir DIR --service NAME [--user NAME] [--silent]
 *                         [--ignore-sigchld] OP [OP ...]
 *   OP: auth | acct | chauthtok | setcred | open | close
 *
 * Loads the stack DIR/NAME with pam_start_confdir(3) (Linux-PAM >= 1.4), so no file
 * under /etc is used. Each conversation prompt is answered with the next line of
 * standard input (newline stripped); end of input fails the conversation. Prints one
 * line per event, for tests to read:
 *
 *   prompt: TEXT        a PAM_PROMPT_ECHO_OFF/ON prompt
 *   error: TEXT         a PAM_ERROR_MSG
 *   info: TEXT          a PAM_TEXT_INFO
 *   fail-delay: USEC    the failure delay the stack asked for (not slept)
 *   result OP: CODE NAME
 *   sigchld: ignored|default|handled   (with --ignore-sigchld: the action afterwards)
 *
 * and exits with the last operation's PAM code. --ignore-sigchld plays a host that
 * sets SIGCHLD to SIG_IGN (children reaped by the kernel), which a module running a
 * helper must cope with and leave as it found it.
 */
#define _GNU_SOURCE
#include <security/pam_appl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int converse(int count, const struct pam_message **messages,
                    struct pam_response **responses, void *data)
{
    (void)data;
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
            char *line = NULL;
            size_t size = 0;
            ssize_t length = getline(&line, &size, stdin);
            if (length < 0) {
                free(line);
                for (int j = 0; j < i; j++)
                    free(replies[j].resp);
                free(replies);
                return PAM_CONV_ERR;
            }
            if (length > 0 && line[length - 1] == '\n')
                line[length - 1] = '\0';
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

int main(int argc, char **argv)
{
    const char *confdir = NULL, *service = NULL, *user = NULL;
    int flags = 0, first_op = argc, ignore_sigchld = 0;
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
        else {
            first_op = i;
            break;
        }
    }
    if (confdir == NULL || service == NULL || first_op >= argc) {
        fprintf(stderr, "usage: %s --confdir DIR --service NAME [--user NAME] [--silent] [--ignore-sigchld] OP...\n", argv[0]);
        return 64;
    }
    if (ignore_sigchld)
        signal(SIGCHLD, SIG_IGN);
    struct pam_conv conversation = { converse, NULL };
    pam_handle_t *pamh = NULL;
    int code = pam_start_confdir(service, user, &conversation, confdir, &pamh);
    if (code != PAM_SUCCESS) {
        printf("result start: %d %s\n", code, pam_strerror(pamh, code));
        return code;
    }
    pam_set_item(pamh, PAM_FAIL_DELAY, (const void *)record_delay);
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
        else {
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
        printf("sigchld: %s\n", after.sa_handler == SIG_IGN ? "ignored" : after.sa_handler == SIG_DFL ? "default" : "handled");
    }
    return code;
}
