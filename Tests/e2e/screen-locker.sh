#!/usr/bin/env bash
# Tests/e2e/screen-locker.sh — end-to-end test of pam/screen-locker with a REAL screen
# locker: Debian's i3lock on an Xvfb display, keys typed with xdotool, the PIN checked by
# the setuid secureroom-helper because i3lock runs PAM as the user.
#
# What it proves
#   * i3lock, running as the user srlock with /etc/pam.d/i3lock = pam/screen-locker (one
#     field: the module's line with pin_or_password and auth_err=die, then pam_unix with
#     try_first_pass), has the PIN checked through the setuid helper: a wrong PIN does not
#     unlock (i3lock stays up), is counted (failures 1) and ends the attempt (no
#     "Password:" prompt, pam_unix not run); the right PIN unlocks (i3lock exits 0) and
#     clears the count;
#   * the password unlocks too, in the same field: the module's "PIN or password:" gets
#     it, hands it to pam_unix as PAM_AUTHTOK (no second prompt, no message), nothing
#     counted;
#   * lockout (deny=3, no delays, in /etc/security/secureroom.conf, the only policy the
#     helper reads): three distinct wrong PINs disable the PIN, none of them also tried
#     as the password; the right PIN no longer unlocks and is not counted; the module
#     then refuses without asking for the PIN and sends its lockout message through
#     i3lock's conversation, and pam_unix asks "Password:" (i3lock answers it with the
#     typed digits); the password still unlocks and leaves the PIN disabled;
#   * what the stack says to the locker: for two of the i3locks (password; lockout) a
#     gdb breakpoint on libpam's pam_vprompt, which every prompt and message of the stack
#     passes through, records them: "PIN or password:" alone for the password; "PIN or
#     password:" and the module's message for a wrong PIN; with the PIN disabled no PIN
#     prompt at all, the lockout message, then pam_unix's "Password:". i3lock's own
#     conversation function answers every prompt with the one typed string and drops
#     PAM_ERROR_MSG/PAM_TEXT_INFO, so the user sees i3lock's generic "Wrong!" indicator
#     (checked on a screenshot: the red ring), never the lockout message;
#   * nothing outside the test changed (checksums and listings, no test user, no mounts,
#     no Xvfb, i3lock or gdb left running).
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites,
#   records digests of what it guards, and re-executes itself inside
#   `scripts/lib/sandbox --net`. The private network namespace keeps
#   the X server to this test: Xvfb listens only on the abstract socket @/tmp/.X11-unix/X42
#   (-nolisten tcp -nolisten unix -nolock: no socket or lock file in /tmp), which exists
#   per network namespace, so display :42 is always free and nothing else can connect.
#   The inner run bind-mounts private copies over /etc/passwd, shadow, group, gshadow
#   (the user srlock, uid 4260, with a real SHA-512 password), /etc/pam.d (i3lock =
#   pam/screen-locker with the module's absolute path and helper=), /etc/security (its
#   secureroom.conf: dir=STATE, cheap argon2, deny=3, schedule= empty) and a tmpfs over
#   /var/lib/xkb (Xvfb's keymap scratch files). The helper is copied into $T/bin, root
#   4755 ($T is on a filesystem mounted without nosuid). Each i3lock runs `i3lock -n
#   --debug` as srlock (setpriv, no PAM; setsid, so its process group is its own); the
#   script types with `xdotool type` + `xdotool key Return`, then waits for i3lock to exit
#   (unlocked) or for its "Authentication failure" line (and "clearing auth wrong", so the
#   next attempt starts on an idle locker). Counters come from `secureroom status --json`.
#
# Usage (root):  Tests/e2e/screen-locker.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each lock/unlock/refusal (default 15)
#   SR_E2E_SCREENSHOTS a directory to keep the screenshots in (PNG), if set
#   Needs xvfb, i3lock, xdotool, x11-apps (xwd), imagemagick (convert), gdb, util-linux,
#   iproute2, procps, python3 (or openssl).
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
PIN=6193                          # passes the CLI's policy (not a sequence, not blocklisted)
PASSWORD='Lantern-Quartz-83v'     # srlock's real password (namespace only)
WRONG_PINS=(1357 2468 8024)       # distinct: repeating a wrong PIN does not count again
DENY=3
TEST_USER=srlock
TEST_UID=4260
DISPLAY_NUMBER=42                 # private: the abstract socket lives in our network namespace
SCREEN=800x600x24
CONVERT=/usr/bin/convert          # Debian's ImageMagick

E2E_PREFIX=sr-lock
E2E_SANDBOX=(--net)
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside private namespaces"
E2E_INNER_WHERE="the namespaces"
E2E_TOOLS=(unshare setpriv sha256sum mount mountpoint getent Xvfb i3lock xdotool xwd gdb ip pgrep setsid findmnt)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/i3lock
         /etc/security/secureroom.conf "/tmp/.X$DISPLAY_NUMBER-lock")
GUARDED_DIRS=(/etc/pam.d /etc/security /var/lib/xkb /tmp/.X11-unix)
E2E_LEFTOVERS_OK="no bind mounts, tmpfs or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs or %s left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    [ -x "$CONVERT" ] || die "$CONVERT not found (install imagemagick)"
    need_password_hashing
    need_setuid_helper
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    echo "# i3lock: $(dpkg-query -W -f='${Version}' i3lock 2>/dev/null || echo '?'), Xvfb: $(dpkg-query -W -f='${Version}' xvfb 2>/dev/null || echo '?')"
}
outer_on_abort() {
    if [ -s "$T/log/xvfb.log" ]; then sed 's/^/#   xvfb: /' "$T/log/xvfb.log" | tail -n 20; fi
}

# Processes of the test: in its network namespace (Xvfb, xdotool; recorded in $T/netns)
# or running as its user (i3lock and its child), plus the gdb it started ($T/gdb.pid).
test_processes() {
    local pid
    namespace_processes "$TEST_UID"
    if [ -n "${T:-}" ] && [ -f "$T/gdb.pid" ] && read -r pid < "$T/gdb.pid" \
       && [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$(command -v gdb)")" ]; then
        echo "$pid"
    fi
    return 0
}
outer_checks() {
    tally_none_left "no Xvfb, i3lock or gdb of the test left running" "processes of the test left running"
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
XVFB_PID= LOCKER_PID= GDB_PID=
export DISPLAY=":$DISPLAY_NUMBER"

inner_stop() {
    stop_tap
    stop_locker
    if [ -n "$XVFB_PID" ]; then
        kill "$XVFB_PID" 2>/dev/null || true
        wait "$XVFB_PID" 2>/dev/null || true
    fi
}

setup_namespace() {
    enter_namespaces "start an X server"

    install -d -m 0755 "$T/etc" "$T/bin" "$T/log" "$T/home" "$T/shots"

    # --- users: srlock with a real password ---
    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (screen locker)"
    bind_users

    # --- the setuid helper and the only policy it reads ---
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="

    # --- /etc/pam.d: a copy; i3lock = pam/screen-locker with absolute paths ---
    cp -a /etc/pam.d "$T/pam.d"
    stack_file screen-locker "$T/pam.d/i3lock" "$T/bin/secureroom-helper"
    bind_over "$T/pam.d" /etc/pam.d
    STACK=$(grep -vE '^[[:space:]]*(#|$)' /etc/pam.d/i3lock | tr '\n' ';')

    # --- Xvfb's keymap scratch files ---
    [ -d /var/lib/xkb ] && mount -t tmpfs -o mode=0755 sr-lock /var/lib/xkb

    # --- state directory and srlock's PIN (the CLI reads the conf above: cheap argon2) ---
    set_pin "$PIN"

    # --- the X server ---
    Xvfb "$DISPLAY" -screen 0 "$SCREEN" -nolisten tcp -nolisten unix -nolock \
        > "$T/log/xvfb.log" 2>&1 &
    XVFB_PID=$!
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        xdotool getdisplaygeometry >/dev/null 2>&1 && break
        kill -0 "$XVFB_PID" 2>/dev/null || die "Xvfb exited at start: $(cat "$T/log/xvfb.log")"
        sleep 0.1
    done
    xdotool getdisplaygeometry >/dev/null 2>&1 || die "Xvfb did not answer on $DISPLAY within ${TIMEOUT}s"
}

# ---- the locker ------------------------------------------------------------------------
# start_locker NAME: `i3lock -n --debug` as srlock, in its own session; waits until it has
# grabbed the keyboard (it forks its window-raising child only after the grab). Sets
# LOCKER_PID and LOG (its stderr). Returns 1 if it did not lock. A locker still running
# from a failed case is stopped first (it would keep the grab).
start_locker() {
    stop_tap
    stop_locker
    LOG=$T/log/$1.i3lock
    : > "$LOG"
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DISPLAY="$DISPLAY" LANG=C.UTF-8 XDG_CACHE_HOME="$T/home/$TEST_USER/.cache" \
        i3lock -n --debug > "$LOG" 2>&1 &
    LOCKER_PID=$! LOCKER_RC=running
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        pgrep -P "$LOCKER_PID" >/dev/null 2>&1 && return 0
        locker_alive || { locker_reap; return 1; }
        sleep 0.1
    done
    return 1
}

count_in_log() { grep -c -- "$1" "$LOG" 2>/dev/null || true; }

# type_secret SECRET: types it and Return, then waits for the outcome. OUTCOME=unlocked
# (i3lock exited; LOCKER_RC its status), refused (a new "Authentication failure"; then
# waits until i3lock clears its "wrong" state, so it takes the next attempt), or timeout.
type_secret() {
    local failures_before i
    failures_before=$(count_in_log 'Authentication failure')
    TAP_MARK=$(tap_lines)
    xdotool type --delay 50 -- "$1"
    xdotool key Return
    OUTCOME=timeout
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        if ! locker_alive; then locker_reap; OUTCOME=unlocked; return 0; fi
        if [ "$(count_in_log 'Authentication failure')" -gt "$failures_before" ]; then
            OUTCOME=refused; break
        fi
        sleep 0.1
    done
    [ "$OUTCOME" = refused ] || return 0
    [ -z "${SHOT:-}" ] || screenshot "$SHOT"
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ "$(count_in_log 'clearing auth wrong')" -gt "$failures_before" ] && return 0
        sleep 0.1
    done
}

# screenshot NAME: the root window as $T/shots/NAME.png (kept in $SR_E2E_SCREENSHOTS if set).
screenshot() {
    xwd -root -silent | "$CONVERT" xwd:- "png:$T/shots/$1.png" 2>/dev/null || return 0
    if [ -n "${SR_E2E_SCREENSHOTS:-}" ] && [ -d "$SR_E2E_SCREENSHOTS" ]; then
        cp "$T/shots/$1.png" "$SR_E2E_SCREENSHOTS/" || true
    fi
}

# shows_wrong_indicator NAME: the screenshot shows i3lock's red "wrong" ring (inside the
# ring above its text, at the centre of an 800x600 screen).
shows_wrong_indicator() {
    local px r g b
    px=$("$CONVERT" "$T/shots/$1.png" -format '%[pixel:p{400,240}]' info: 2>/dev/null) || return 1
    [[ "$px" =~ ([0-9]+),([0-9]+),([0-9]+) ]] || return 1
    r=${BASH_REMATCH[1]} g=${BASH_REMATCH[2]} b=${BASH_REMATCH[3]}
    [ "$r" -ge 180 ] && [ "$g" -le 90 ] && [ "$b" -le 90 ]
}

# ---- the conversation tap --------------------------------------------------------------
# start_tap NAME: gdb attached to the running i3lock (log: $T/log/NAME.tap), with a
# breakpoint at the entry of libpam's pam_vprompt(pamh, style, response, fmt, va_list),
# which pam_prompt, pam_error and pam_info all go through (the module's prompt and
# messages, pam_unix's prompt). It prints "SR-TAP style=N" and, for the "%s" format they
# use, "SR-TAP text=...", read from the va_list (x86-64: gp_offset, fp_offset,
# overflow_arg_area, reg_save_area), and continues. Only libpam's symbols are loaded.
# gdb exits when i3lock does.
TAP=
start_tap() {
    TAP=$T/log/$1.tap
    {
        printf '%s\n' 'set pagination off' 'set confirm off' 'set width 0' 'sharedlibrary libpam\.so' \
            'break *pam_vprompt' commands silent
        vprompt_tap_lines
        printf '%s\n' continue end 'echo SR-TAP-READY\n' continue
    } > "$T/tap.gdb"
    gdb -q -nx -batch -iex 'set auto-solib-add off' -x "$T/tap.gdb" -p "$LOCKER_PID" > "$TAP" 2>&1 &
    GDB_PID=$!
    echo "$GDB_PID" > "$T/gdb.pid"
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        grep -q '^SR-TAP-READY' "$TAP" 2>/dev/null && return 0
        kill -0 "$GDB_PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# stop_tap: waits a little for gdb to end with its i3lock, else interrupts it (gdb then
# detaches from i3lock, removing its breakpoint) and, last, kills it.
stop_tap() {
    [ -n "$GDB_PID" ] || return 0
    local i
    for (( i = 0; i < 30; i++ )); do kill -0 "$GDB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -INT "$GDB_PID" 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do kill -0 "$GDB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$GDB_PID" 2>/dev/null || true
    wait "$GDB_PID" 2>/dev/null || true
    GDB_PID=
}

tap_lines() { if [ -n "$TAP" ] && [ -f "$TAP" ]; then grep -c '^SR-TAP ' "$TAP" || true; else echo 0; fi; }
# The conversation of the last attempt, one item per line: "prompt TEXT" (echo off/on) or
# "error TEXT" / "info TEXT".
conversation() {
    [ -n "$TAP" ] && [ -f "$TAP" ] || return 0
    grep '^SR-TAP ' "$TAP" | tail -n "+$((TAP_MARK + 1))" | awk '
        /^SR-TAP style=/ { sub(/^SR-TAP style=/, ""); s = ($0 == 1 || $0 == 2) ? "prompt" : ($0 == 3) ? "error" : "info"; next }
        /^SR-TAP text=/  { sub(/^SR-TAP text=/, ""); print s " " $0 }'
}
said()      { conversation | grep -qE -- "$1"; }
# said_in_order RE...: the conversation has lines matching each RE, in this order.
said_in_order() {
    local re rest
    rest=$(conversation)
    for re in "$@"; do
        printf '%s\n' "$rest" | grep -qE -- "$re" || return 1
        rest=$(printf '%s\n' "$rest" | sed -nE "0,/$re/d; p")
    done
}

# ---- checks ----------------------------------------------------------------------------
check_diagnostics() {
    echo "#   outcome=$OUTCOME locker_rc=${LOCKER_RC:-} failures=$(failures_of) status: $(status_json)"
    echo "#   stack: $STACK"
    if [ -n "$TAP" ] && [ -f "$TAP" ]; then
        echo "#   --- conversation (last attempt) ---"
        conversation | sed 's/^/#   | /'
    fi
    echo "#   --- i3lock --debug (typed text and redraws left out) ---"
    grep -vE 'current password|redraw_screen|scaling_factor|event' "$LOG" 2>/dev/null | tail -n 8 | sed 's/^/#   | /'
}

outcome_is() { [ "$OUTCOME" = "$1" ]; }
unlocked()   { [ "$OUTCOME" = unlocked ] && [ "$LOCKER_RC" = 0 ]; }
still_locked_after() { sleep "$1"; locker_alive; }

inner_main() {
    setup_namespace
    local k

    # --- 1. wrong PIN, then the right PIN --------------------------------------------------
    OUTCOME=none LOCKER_RC=
    start_locker a || true
    check "i3lock -n as $TEST_USER locks the display (keyboard grabbed), PAM service i3lock = pam/screen-locker" locker_alive
    type_secret "${WRONG_PINS[0]}"
    check "wrong PIN: i3lock refuses it ('Authentication failure') and is still locked 2 s later" \
        all 'outcome_is refused' 'still_locked_after 2'
    check "wrong PIN: counted through the setuid helper (status --json failures 1)" failures_are 1
    type_secret "$PIN"
    check "right PIN: i3lock unlocks (exits 0)" unlocked
    check "right PIN: the count is cleared (failures 0, last_success recorded)" \
        all 'failures_are 0' success_recorded

    # --- 2. the password, with the PIN usable (conversation tapped) -----------------------
    start_locker b || true
    check "gdb tap on i3lock's PAM conversation (breakpoint at pam_vprompt) is in place" \
        all locker_alive 'start_tap b'
    type_secret "$PASSWORD"
    check "password (PIN usable): i3lock unlocks (exits 0)" unlocked
    check "password (PIN usable): one prompt, 'PIN or password:', no message, no Password: (pam_unix took it as PAM_AUTHTOK)" \
        all 'said "^prompt PIN or password: ?$"' '[ "$(conversation | wc -l)" -eq 1 ]'
    check "password (PIN usable): nothing counted against the PIN (failures 0)" failures_are 0
    stop_tap

    # --- 3. lockout, with the conversation tapped -------------------------------------------
    start_locker c || true
    check "gdb tap on a new i3lock's conversation is in place" all locker_alive 'start_tap c'
    for (( k = 1; k <= DENY; k++ )); do
        type_secret "${WRONG_PINS[$((k - 1))]}"
        check "lockout: wrong PIN $k/$DENY refused, i3lock still locked, failures $k" \
            all 'outcome_is refused' locker_alive "failures_are $k"
        check "lockout: wrong PIN $k/$DENY: the conversation is 'PIN or password:' (answered), 'Incorrect PIN...', and ends: no Password: (auth_err=die; the digits not tried as the password)" \
            all "said_in_order '^prompt PIN or password: ?\$' '^error Incorrect PIN'" '! said "^prompt Password: ?$"'
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled
    SHOT=locked-right-pin
    type_secret "$PIN"
    SHOT=
    check "PIN disabled: the right PIN no longer unlocks (i3lock still locked), nothing counted (failures $DENY)" \
        all 'outcome_is refused' 'still_locked_after 2' "failures_are $DENY"
    check "PIN disabled: the module refuses without asking for the PIN (no 'PIN or password:' prompt; the helper's 'locked' path)" \
        all 'said "^prompt Password: ?$"' '! said "^prompt PIN"'
    check "PIN disabled: the lockout message reaches i3lock's conversation (PAM_ERROR_MSG 'PIN disabled after $DENY failed attempts...'), then pam_unix's Password:" \
        said_in_order "^error PIN disabled after $DENY failed attempts" '^prompt Password: ?$'
    check "PIN disabled: i3lock shows only its generic red 'Wrong!' indicator (it drops PAM messages; screenshot)" \
        shows_wrong_indicator locked-right-pin
    type_secret "$PASSWORD"
    check "PIN disabled: the password still unlocks (i3lock exits 0)" unlocked
    check "PIN disabled: the password went to pam_unix's Password: without a PIN prompt, and the PIN stays disabled (failures $DENY)" \
        all '! said "^prompt PIN"' 'said "^prompt Password: ?$"' "failures_are $DENY" pin_disabled
    stop_tap

    COMPLETE=1
}

e2e_main
