#!/usr/bin/env bash
# Tests/e2e/polkit.sh — end-to-end test of the PIN through polkit: Debian's pkexec and
# pkttyagent against a REAL polkitd on a private system bus, with Debian's setuid
# polkit-agent-helper-1 running the PAM service polkit-1.
#
# What it proves
#   * pkexec (the user srpolkit, `pkexec --disable-internal-agent /usr/bin/id -u`: only
#     a registered agent can authenticate) is answered by pkttyagent, registered for the
#     calling shell; polkitd asks it to authenticate srpolkit (auth_self, from a rule in
#     the private /etc/polkit-1/rules.d); pkttyagent runs polkit-agent-helper-1, which
#     runs the PAM service polkit-1 = `@include common-auth-pin` (pam/common-auth-pin,
#     the module's absolute path) before the stack polkitd ships (/usr/lib/pam.d/polkit-1);
#   * the right PIN: pkttyagent shows the module's "PIN:" prompt (not echoed),
#     polkit-agent-helper-1 reports success to polkitd (its log: "successfully
#     authenticated ... ONE-SHOT authorization"), pkexec runs the program as root (it
#     prints 0, exit 0), nothing is counted;
#   * where the PIN is checked: polkit 122 has the agent run the setuid root
#     polkit-agent-helper-1 itself (the socket-activated polkit-agent-helper@.service
#     came with polkit 127), so the module runs with effective uid 0 and checks the PIN
#     in that process; the stack's helper= names a file that does not exist, so an
#     accepted PIN cannot have gone through secureroom-helper;
#   * a wrong PIN: refused and counted (status --json failures 1); the module's message
#     ("Incorrect PIN. 2 attempts left before the PIN is disabled.", PAM_ERROR_MSG)
#     reaches pkttyagent, which shows it ("Error: ..."); the stack goes on to pam_unix's
#     "Password:", a wrong password fails, polkitd refuses, pkexec says "Not authorized";
#   * Enter at "PIN:" skips the PIN (not counted) and the password authenticates;
#   * lockout (deny=3, no delays, in /etc/security/secureroom.conf): three distinct wrong
#     PINs disable the PIN; then no "PIN:" prompt at all, the lockout message ("PIN
#     disabled after 3 failed attempts...") reaches pkttyagent, the right PIN typed at
#     "Password:" does not open and is not counted, and the password still authenticates;
#   * nothing outside the test changed (checksums and listings, no test user, no mounts,
#     no dbus-daemon, polkitd, agent, pkexec or helper left running).
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites,
#   records digests of what it guards, and re-executes itself inside
#   `scripts/lib/sandbox --net` (private mount and network namespaces: every process the
#   test starts is found by its network namespace). The inner run bind-mounts private
#   copies over /etc/passwd, shadow, group, gshadow (srpolkit, uid 4290, with a real
#   SHA-512 password), /etc/pam.d (polkit-1 and common-auth-pin as above), /etc/security
#   (secureroom.conf from lib.sh's helper_policy: dir=STATE, cheap argon2, deny=3,
#   schedule= empty) and /etc/polkit-1/rules.d (its files and
#   Tests/e2e/fixtures/polkit/60-secureroom-e2e.rules), and a tmpfs over /run/dbus (over
#   /run if there is no /run/dbus). There it starts a dbus-daemon with
#   lib.sh's start_system_bus (Debian's system bus policy, polkit's bus
#   policy, the socket at the standard /run/dbus/system_bus_socket: pkexec and the agent
#   helper are setuid and clear their environment, so only the standard path reaches
#   them; no activation) and the real /usr/lib/polkit-1/polkitd (it drops to the user
#   polkitd; its output is the test's log). Each attempt is a tmux window (lib.sh) in
#   which srpolkit (setpriv, no PAM) starts `pkttyagent --process $$ --notify-fd 3`,
#   waits until it is registered, then runs pkexec. The script waits for each new
#   prompt, and for the terminal's echo to be off (pkttyagent flushes pending input as it
#   turns echo off), types the answer with tmux send-keys, and reads pkexec's exit
#   status from the window. Counters come from `secureroom status --json`.
#
# A graphical agent (polkit-gnome-authentication-agent-1) registers for the caller's login
#   session, which a namespace without systemd-logind does not have: Tests/e2e/polkit-agent.sh
#   tests it in a booted container instead.
#
# Usage (root):  Tests/e2e/polkit.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper):
#                      helper_policy's check of the policy it would read; the PIN does not
#                      go through it
#   SR_E2E_TIMEOUT     seconds to wait for each prompt, registration or exit (default 15)
#   Needs polkitd (polkitd, pkttyagent, polkit-agent-helper-1), pkexec, dbus-daemon,
#   dbus-bin (dbus-send), tmux, util-linux, iproute2, coreutils, python3 (or openssl).
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
FIXTURES=$REPO/Tests/e2e/fixtures/polkit
# shellcheck source=Tests/e2e/fixtures/polkit/cases.sh
. "$FIXTURES/cases.sh"
POLKITD=/usr/lib/polkit-1/polkitd
AGENT_HELPER=/usr/lib/polkit-1/polkit-agent-helper-1
ACTIONS_FILE=/usr/share/polkit-1/actions/org.freedesktop.policykit.policy
SHIPPED_STACK=/usr/lib/pam.d/polkit-1   # polkitd 122's stack; an /etc/pam.d/polkit-1 overrides it

E2E_PREFIX=sr-polkit
E2E_SANDBOX=(--net)
E2E_ROOT_REASON="it bind-mounts over /etc and starts a system bus and polkitd inside private namespaces"
E2E_INNER_WHERE="the namespaces"
E2E_TOOLS+=(pkexec pkttyagent dbus-daemon dbus-send ip findmnt stty timeout mkfifo)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/polkit-1 "$SHIPPED_STACK"
         /etc/pam.d/common-auth-pin /etc/security/secureroom.conf /run/dbus/system_bus_socket)
GUARDED_DIRS=(/etc/pam.d /etc/security /etc/polkit-1 /run/dbus /run/secureroom /var/lib/polkit-1)
E2E_GUARDED_DESC="${#GUARDED[@]} files; pam.d, security, polkit-1, /run/dbus dirs"
E2E_LEFTOVERS_OK="no bind mounts, tmpfs or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs or %s left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
    [ -x "$POLKITD" ] || die "$POLKITD not found (install polkitd)"
    [ "$(stat -c '%u %a' "$AGENT_HELPER" 2>/dev/null)" = "0 4755" ] \
        || die "$AGENT_HELPER is not setuid root (install polkitd)"
    [ "$(stat -c '%u %a' "$(command -v pkexec)")" = "0 4755" ] || die "pkexec is not setuid root (install pkexec)"
    [ -f "$ACTIONS_FILE" ] || die "$ACTIONS_FILE not found (install pkexec)"
    [ -f /etc/pam.d/polkit-1 ] || [ -f "$SHIPPED_STACK" ] || die "no PAM service polkit-1 (install polkitd)"
    [ -f /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf ] || die "polkit's bus policy not found"
    [ -d /etc/polkit-1/rules.d ] || die "/etc/polkit-1/rules.d not found (install polkitd)"
    getent passwd polkitd >/dev/null || die "user polkitd not found (install polkitd)"
    getent passwd messagebus >/dev/null || die "user messagebus not found (install dbus-daemon)"
    local f
    [ -f "$FIXTURES/60-secureroom-e2e.rules" ] || die "$FIXTURES/60-secureroom-e2e.rules not found"
    [ -f "$REPO/pam/common-auth-pin" ] || die "pam/common-auth-pin not found"
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER (policy check only)"
    echo "# polkit $(dpkg-query -W -f='${Version}' polkitd 2>/dev/null || echo '?')," \
         "pkexec $(dpkg-query -W -f='${Version}' pkexec 2>/dev/null || echo '?')," \
         "dbus-daemon $(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null || echo '?')"
}
outer_on_abort() {
    local f
    for f in bus.log polkitd.log; do
        if [ -s "$T/log/$f" ]; then tail -n 15 "$T/log/$f" | sed "s/^/#   $f: /"; fi
    done
}

# Processes of the test: in its network namespace (dbus-daemon, polkitd, tmux and all
# that runs in its windows; recorded in $T/netns) or running as its user.
test_processes() {
    namespace_processes "$TEST_UID"
    return 0
}
outer_checks() {
    tally_none_left "no dbus-daemon, polkitd, pkttyagent, pkexec or agent helper of the test left running" \
                    "processes of the test left running"
}
outer_cleanup() {
    local pids
    pids=$(test_processes)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount and network namespaces).
# ---------------------------------------------------------------------------------------
BUS_PID= POLKITD_PID= STACK=

# polkitd, then the bus: SIGTERM, up to 3 s to go, then SIGKILL (never an unbounded wait).
inner_stop() {
    local p i
    for p in "$POLKITD_PID" "$BUS_PID"; do
        [ -n "$p" ] || continue
        kill "$p" 2>/dev/null || true
        for (( i = 0; i < 30; i++ )); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
}

polkit_on_bus() { system_bus_call NameHasOwner string:org.freedesktop.PolicyKit1 | grep -q 'boolean true'; }

setup_namespace() {
    enter_namespaces "start a private system bus"

    install -d -m 0755 "$T/etc" "$T/log" "$T/home" "$T/bus"
    install -d -m 1777 "$T/io"

    # --- users: srpolkit with a real password ---
    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (polkit)"
    bind_users

    # --- the policy: lib.sh's helper_policy writes it (and copies the setuid helper, which
    # this test never reaches); the module, running as root, reads the same file ---
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="

    # --- /etc/pam.d: a copy; polkit-1 = @include common-auth-pin, then the stack libpam
    # would use (an administrator's /etc/pam.d/polkit-1, else the one polkitd ships) ---
    local base=$SHIPPED_STACK
    [ -f /etc/pam.d/polkit-1 ] && base=/etc/pam.d/polkit-1
    cp -a /etc/pam.d "$T/pam.d"
    # helper= names no file: the module runs as root in polkit-agent-helper-1 and must not
    # need it (a PIN accepted here cannot have gone through secureroom-helper).
    stack_file common-auth-pin "$T/pam.d/common-auth-pin" "$T/bin/not-a-helper"
    {
        if [ "$(head -n 1 "$base")" = "#%PAM-1.0" ]; then echo "#%PAM-1.0"; fi
        echo "# generated by $E2E_NAME (private mount namespace only): the PIN, then $base"
        echo "@include common-auth-pin"
        grep -vx '#%PAM-1.0' "$base"
    } > "$T/pam.d/polkit-1"
    chmod 0644 "$T/pam.d/polkit-1"
    bind_over "$T/pam.d" /etc/pam.d
    STACK=$(grep -hvE '^[[:space:]]*(#|$)' /etc/pam.d/common-auth-pin /etc/pam.d/polkit-1 | tr '\n' ';')

    # --- /etc/polkit-1/rules.d: its rules and the test's (owned by polkitd, as shipped) ---
    cp -a /etc/polkit-1/rules.d "$T/rules.d"
    sed -e "s|@TEST_USER@|$TEST_USER|g" -e "s|@PROGRAM@|$PROGRAM|g" \
        "$FIXTURES/60-secureroom-e2e.rules" > "$T/rules.d/60-secureroom-e2e.rules"
    chmod 0644 "$T/rules.d/60-secureroom-e2e.rules"
    bind_over "$T/rules.d" /etc/polkit-1/rules.d

    # --- the system bus socket's directory: private ---
    if [ -d /run/dbus ]; then
        mount -t tmpfs -o mode=0755 "$E2E_PREFIX" /run/dbus
    else
        mount -t tmpfs -o mode=0755 "$E2E_PREFIX" /run
        install -d -m 0755 /run/dbus
    fi

    # --- state directory and srpolkit's PIN (the CLI reads the conf above: cheap argon2) ---
    set_pin "$PIN"

    # --- the system bus, then polkitd on it ---
    start_system_bus /usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf
    local i
    "$POLKITD" > "$T/log/polkitd.log" 2>&1 &
    POLKITD_PID=$!
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        polkit_on_bus && break
        kill -0 "$POLKITD_PID" 2>/dev/null || die "polkitd exited at start: $(cat "$T/log/polkitd.log")"
        sleep 0.1
    done
    polkit_on_bus || die "polkitd did not own org.freedesktop.PolicyKit1 within ${TIMEOUT}s"

    start_tmux
}

# ---- one pkexec through pkttyagent -------------------------------------------------------
# case_script NAME: what srpolkit runs in the window: pkttyagent registered for this shell
# (the subject pkexec will name: its parent), then pkexec, whose output goes to $OUT and
# whose exit status is the window's.
case_script() {
    cat <<SCRIPT
cd "\$HOME" || exit 1
ready=$T/io/$1.ready
mkfifo -m 0600 "\$ready" || exit 1
pkttyagent --process \$\$ --notify-fd 3 3>"\$ready" &
agent=\$!
timeout $TIMEOUT cat "\$ready" >/dev/null || echo "pkttyagent: not registered within ${TIMEOUT}s"
pkexec --disable-internal-agent $PROGRAM -u > $OUT
rc=\$?
kill "\$agent" 2>/dev/null
wait "\$agent" 2>/dev/null
(exit \$rc)
SCRIPT
}

PROMPT_RE='^(PIN|Password):[[:space:]]*$'
prompt_count() { capture "$PANE" | grep -cE -- "$PROMPT_RE" || true; }
last_prompt() { capture "$PANE" | grep -E -- "$PROMPT_RE" | tail -n 1 | sed 's/:.*//'; }
# The window's terminal has echo off: pkttyagent turned it off for the prompt (and, in
# the same call, dropped any input that came before).
echo_off() { stty -F "$PANE_TTY" -a 2>/dev/null | grep -qw -- -echo; }

# attempt NAME ANSWER...: pkexec through pkttyagent in a new window; answers each prompt
# ("PIN:" or "Password:") with the next ANSWER (an empty one is just Enter). Sets OUT,
# PANE, PROMPTS (the prompts seen, e.g. "PIN Password") and RC (pkexec's exit status,
# "timeout", or "prompt" if a prompt came with no answer left).
attempt() {
    local name=$1 seen=0 count i
    shift
    OUT=$T/io/$name.out
    LOG_MARK=$(wc -l < "$T/log/polkitd.log")
    open_window "$name" "$TEST_UID" "$(case_script "$name")"
    PANE_TTY=$(tmux_ display-message -p -t "$PANE" '#{pane_tty}')
    PROMPTS= RC=timeout
    while :; do
        for (( i = 0; i < TIMEOUT * 10; i++ )); do
            pane_has "$PANE" "$RC_RE" && break
            [ "$(prompt_count)" -gt "$seen" ] && break
            sleep 0.1
        done
        if pane_has "$PANE" "$RC_RE"; then read_rc; return 0; fi
        count=$(prompt_count)
        [ "$count" -gt "$seen" ] || return 0
        seen=$count
        PROMPTS=${PROMPTS:+$PROMPTS }$(last_prompt)
        if [ $# -eq 0 ]; then RC=prompt; return 0; fi
        for (( i = 0; i < TIMEOUT * 10; i++ )); do echo_off && break; sleep 0.1; done
        echo_off || return 0
        if [ -n "$1" ]; then tmux_ send-keys -t "$PANE" -l -- "$1"; fi
        tmux_ send-keys -t "$PANE" Enter
        shift
    done
}

# ---- checks ----------------------------------------------------------------------------
check_diagnostics() {
    echo "#   rc=$RC prompts='$PROMPTS' failures=$(failures_of) out=$(head -c 40 "$OUT" 2>/dev/null || true)"
    echo "#   status: $(status_json | tr -d '\n')"
    echo "#   stack: $STACK"
    echo "#   --- window ---"
    capture "$PANE" | sed -e '/^$/d' -e 's/^/#   | /'
    echo "#   --- polkitd (last lines) ---"
    tail -n 6 "$T/log/polkitd.log" 2>/dev/null | sed 's/^/#   | /'
}

prompts_are() { [ "$PROMPTS" = "$1" ]; }
# polkitd_says RE: polkitd's log has a line matching RE since the attempt began.
polkitd_says() { tail -n "+$((LOG_MARK + 1))" "$T/log/polkitd.log" | grep -qE -- "$1"; }
# The agent was asked (polkitd's log: pkttyagent registered for the shell), showed who
# authenticates, and polkitd granted the one-shot authorization.
authenticated_by_agent() {
    all "shows '^==== AUTHENTICATING FOR $ACTION ====$'" \
        "shows '^Authenticating as: SecureRoom e2e \\(polkit\\) \\($TEST_USER\\)$'" \
        "shows '^==== AUTHENTICATION COMPLETE ====$'" \
        "polkitd_says 'Registered Authentication Agent for unix-process:.*\\[pkttyagent --process'" \
        "polkitd_says 'successfully authenticated as unix-user:$TEST_USER to gain ONE-SHOT authorization'" \
        "polkitd_says 'ONE-SHOT authorization for action $ACTION for unix-process'"
}
refused_by_polkit() {
    all "shows '^==== AUTHENTICATION FAILED ====$'" \
        "polkitd_says 'FAILED to authenticate to gain authorization for action $ACTION'" \
        "shows 'Error executing command as another user: Not authorized'" 'rc_is 127' out_empty
}
# The module's message after wrong PIN K of DENY, as pkttyagent shows a PAM_ERROR_MSG.
incorrect_pin_shown() {
    shows "^Error: $(incorrect_pin_text "$1" | sed 's/\./\\./g')\$"
}

inner_main() {
    setup_namespace
    local k d

    check "private system bus: the real polkitd owns org.freedesktop.PolicyKit1 (as user polkitd)" \
        all polkit_on_bus "[ \"\$(stat -c %U /proc/$POLKITD_PID)\" = polkitd ]"

    # --- a. the right PIN -----------------------------------------------------------------
    attempt a "$PIN"
    check "right PIN: pkttyagent authenticates $TEST_USER for $ACTION and shows the module's PIN: prompt only" \
        all authenticated_by_agent 'prompts_are PIN'
    check "right PIN: pkexec runs $PROGRAM as root (prints 0, exit 0); the PIN is not echoed" \
        all 'rc_is 0' 'out_is 0' "not_shows '$PIN'"
    d="right PIN: checked as root inside polkit-agent-helper-1 (the stack's helper= names no file);"
    check "$d nothing counted (failures 0, last_success recorded)" all 'failures_are 0' success_recorded
    done_pane

    # --- b. a wrong PIN, then a wrong password ----------------------------------------------
    attempt b "$WRONG_PIN" "$WRONG_PASSWORD"
    check "wrong PIN: refused and counted (failures 1), then pam_unix's Password: (wrong password)" \
        all 'prompts_are "PIN Password"' 'failures_are 1'
    check "wrong PIN: the module's message reaches pkttyagent ('Error: Incorrect PIN. 2 attempts left...')" \
        incorrect_pin_shown 1
    check "wrong PIN and password: polkitd refuses, pkexec 'Not authorized' (exit 127), $PROGRAM not run" \
        refused_by_polkit
    done_pane

    # --- c. Enter at PIN: skips the PIN; the password authenticates ------------------------
    attempt c "" "$PASSWORD"
    d="Enter at PIN: (not a PIN: 'Error: The PIN must be exactly 4 digits', not counted), then the password"
    check "$d opens: pkexec runs $PROGRAM as root" \
        all 'prompts_are "PIN Password"' "shows '^Error: The PIN must be exactly 4 digits'" \
            authenticated_by_agent 'rc_is 0' 'out_is 0' 'failures_are 1'
    done_pane

    # --- d. lockout -------------------------------------------------------------------------
    reset_pin
    for (( k = 1; k <= DENY; k++ )); do
        attempt "d$k" "${LOCKOUT_PINS[$((k - 1))]}" "$WRONG_PASSWORD"
        check "lockout: wrong PIN $k/$DENY refused (failures $k), its message shown by pkttyagent, pkexec refused" \
            all 'prompts_are "PIN Password"' "failures_are $k" "incorrect_pin_shown $k" refused_by_polkit
        done_pane
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled

    attempt e "$PIN"
    d="PIN disabled: no PIN: prompt; the lockout message reaches pkttyagent"
    check "$d ('Error: PIN disabled after $DENY failed attempts; ask an administrator.'), then Password:" \
        all 'prompts_are Password' "shows '^Error: PIN disabled after $DENY failed attempts; ask an administrator\\.$'"
    check "PIN disabled: the right PIN (typed at Password:) does not open (pkexec refused), nothing counted" \
        all refused_by_polkit "failures_are $DENY"
    done_pane

    attempt f "$PASSWORD"
    check "PIN disabled: the password still authenticates (pkexec runs $PROGRAM as root, exit 0)" \
        all 'prompts_are Password' authenticated_by_agent 'rc_is 0' 'out_is 0'
    check "PIN disabled: it stays disabled after the password (failures $DENY)" all pin_disabled "failures_are $DENY"
    done_pane

    COMPLETE=1
}

e2e_main
