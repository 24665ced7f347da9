#!/usr/bin/env bash
# Tests/e2e/swaylock.sh — end-to-end test of the one field (pin_or_password) with a REAL
# Wayland locker: Debian's swaylock under a headless sway, keys typed with wtype, the PIN
# checked by the setuid secureroom-helper because swaylock runs PAM as the user.
#
# What it proves
#   * with pam/README.md's one-field stack as /etc/pam.d/swaylock (the PIN's line with
#     pin_or_password and auth_err=die, then pam_unix with try_first_pass): the right
#     PIN unlocks; the password unlocks with one Enter and counts nothing; a wrong PIN is
#     refused, counted once, and never reaches the password module (a pam_exec line
#     before pam_unix marks every run that gets there); a wrong password is refused and
#     counts nothing on the PIN; the password unlocks after a wrong PIN; once deny=3
#     wrong PINs disabled the PIN, the right PIN is refused (the module no longer asks,
#     so the typed digits go to pam_unix) and the password still unlocks;
#   * for contrast, with the two prompts of pam/screen-locker ("PIN:", then the
#     password module's): swaylock answers every prompt with the typed text, so a wrong
#     PIN is counted and also tried as the password (the mark);
#   * swaylock shows no PAM message: its log has the outcome only;
#   * nothing outside the test changed (digests of the guarded files, no test user, no
#     mounts, no sway or swaylock left running).
#
# How
#   The script runs twice (Tests/e2e/lib.sh): the outer run (root) checks prerequisites
#   and re-executes itself inside scripts/lib/sandbox (a private mount namespace). The
#   inner run adds the user srsway (uid 4270, a real SHA-512 password), installs the
#   helper setuid in $T/bin with the only policy it reads (deny=3, no delays), mounts a
#   private copy of /etc/pam.d, and starts sway as srsway with the headless wlroots
#   backend and the pixman renderer (no GPU, no input devices) on a runtime directory
#   of its own in $T. Each swaylock runs `swaylock -d` as srsway; wtype types through
#   sway's virtual-keyboard protocol (after 150 ms, 30 ms a key: keys sent before sway
#   handed swaylock the keyboard's keymap are lost); an attempt ends when swaylock exits
#   (unlocked) or logs "pam_authenticate failed" (refused).
#
# Usage (root):  Tests/e2e/swaylock.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each lock/unlock/refusal (default 15)
#   Needs sway, swaylock, wtype (scripts/setup installs them).
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
PIN=6193
PASSWORD='Harbour-Lime-52q'       # srsway's real password (namespace only)
WRONG_PINS=(1357 2468 8024)       # distinct: repeating a wrong PIN does not count again
DENY=3
TEST_USER=srsway
TEST_UID=4270

E2E_PREFIX=sr-sway
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside a private mount namespace"
E2E_TOOLS=(unshare setpriv sha256sum mount mountpoint getent sway swaylock wtype pgrep setsid findmnt)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/swaylock /etc/security/secureroom.conf)
GUARDED_DIRS=(/etc/pam.d /etc/security)
E2E_LEFTOVERS_OK="no bind mounts or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts or %s left behind"

outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    echo "# sway: $(dpkg-query -W -f='${Version}' sway 2>/dev/null || echo '?'), swaylock: $(dpkg-query -W -f='${Version}' swaylock 2>/dev/null || echo '?')"
}
outer_checks() {
    local left
    left=$(pgrep -u "$TEST_UID" 2>/dev/null | paste -sd' ' - || true)
    tally "no sway or swaylock of the test left running" "processes of the test left running: $left" [ -z "$left" ]
}
outer_cleanup() { pkill -KILL -u "$TEST_UID" 2>/dev/null || true; }

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount namespace).
# ---------------------------------------------------------------------------------------
SWAY_PID= LOCKER_PID= LOCKER_RC=
RUNTIME=

inner_stop() {
    stop_locker
    if [ -n "$SWAY_PID" ]; then
        kill -- "-$SWAY_PID" 2>/dev/null || true
        wait "$SWAY_PID" 2>/dev/null || true
    fi
    # swaylock's PAM child and anything else of the test user's.
    local i
    for (( i = 0; i < 20; i++ )); do
        pgrep -u "$TEST_UID" >/dev/null 2>&1 || return 0
        pkill -KILL -u "$TEST_UID" 2>/dev/null || true
        sleep 0.1
    done
}

# as_user COMMAND...: COMMAND as srsway, in sway's session environment.
as_user() {
    setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env XDG_RUNTIME_DIR="$RUNTIME" WAYLAND_DISPLAY=wayland-1 HOME="$T/home/$TEST_USER" LANG=C.UTF-8 "$@"
}

setup_namespace() {
    enter_namespaces
    install -d -m 0755 "$T/etc" "$T/bin" "$T/log" "$T/home"
    install -d -m 1777 "$T/marks"

    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (swaylock)"
    bind_users
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="

    # The mark: every run of the stack that reaches the password module appends a line.
    printf '#!/bin/sh\necho "$PAM_USER" >> %s/marks/password-module\n' "$T" > "$T/bin/mark"
    chmod 0755 "$T/bin/mark"
    cp -a /etc/pam.d "$T/pam.d"
    bind_over "$T/pam.d" /etc/pam.d

    set_pin "$PIN"

    RUNTIME=$T/run-user
    install -d -m 0700 -o "$TEST_UID" -g "$TEST_UID" "$RUNTIME"
    printf '%s\n' 'output HEADLESS-1 resolution 800x600' 'xwayland disable' > "$T/etc/sway.conf"
    chmod 0644 "$T/etc/sway.conf"
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env XDG_RUNTIME_DIR="$RUNTIME" HOME="$T/home/$TEST_USER" WLR_BACKENDS=headless \
        WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c "$T/etc/sway.conf" > "$T/log/sway.log" 2>&1 &
    SWAY_PID=$!
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ -S "$RUNTIME/wayland-1" ] && return 0
        kill -0 "$SWAY_PID" 2>/dev/null || die "sway exited at start: $(tail -n 5 "$T/log/sway.log")"
        sleep 0.1
    done
    die "sway made no wayland-1 socket within ${TIMEOUT}s"
}

# use_stack onefield|twoprompts: /etc/pam.d/swaylock, with the mark before pam_unix.
#   onefield:   pam/README.md "One field": the PIN's line with pin_or_password and
#               auth_err=die, then pam_unix try_first_pass.
#   twoprompts: pam/screen-locker's PIN line ("PIN:", [success=done default=ignore]),
#               then pam_unix, which asks "Password:".
use_stack() {
    local pin_line
    case $1 in
        onefield) pin_line="auth [success=done auth_err=die default=ignore] $MODULE nodelay helper=$T/bin/secureroom-helper pin_or_password" ;;
        twoprompts) pin_line="auth [success=done default=ignore] $MODULE nodelay helper=$T/bin/secureroom-helper" ;;
    esac
    printf '%s\n' "# generated by Tests/e2e/swaylock.sh: $1" "$pin_line" \
        "auth optional pam_exec.so quiet $T/bin/mark" \
        "auth [success=1 default=ignore] pam_unix.so nullok try_first_pass" \
        "auth requisite pam_deny.so" "auth required pam_permit.so" "account required pam_permit.so" \
        > /etc/pam.d/swaylock
    chmod 0644 /etc/pam.d/swaylock
}

# start_locker NAME: `swaylock -d` as srsway; waits until its PAM child is ready.
start_locker() {
    stop_locker
    LOG=$T/log/$1.swaylock
    : > "$LOG"
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env XDG_RUNTIME_DIR="$RUNTIME" WAYLAND_DISPLAY=wayland-1 HOME="$T/home/$TEST_USER" LANG=C.UTF-8 \
        swaylock -d > "$LOG" 2>&1 &
    LOCKER_PID=$! LOCKER_RC=running
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        grep -q 'Prepared to authorize' "$LOG" && { sleep 0.3; return 0; }
        locker_alive || { locker_reap; return 1; }
        sleep 0.1
    done
    return 1
}
refusals() { grep -c 'pam_authenticate failed' "$LOG" 2>/dev/null || true; }
marks() { if [ -f "$T/marks/password-module" ]; then grep -c . "$T/marks/password-module"; else echo 0; fi; }

# type_secret SECRET: types it and Return; OUTCOME=unlocked (swaylock exited; LOCKER_RC),
# refused (a new "pam_authenticate failed") or timeout; ELAPSED_MS from Return to it;
# MARKS how many runs reached the password module meanwhile.
type_secret() {
    local before marks_before start i
    before=$(refusals) marks_before=$(marks)
    # wtype's keys are lost when they come before sway gave swaylock the new virtual
    # keyboard's keymap: 150 ms first, 30 ms between keys. It returns once Return is sent.
    as_user wtype -s 150 -d 30 "$1" -k Return
    start=$(date +%s%N)
    OUTCOME=timeout
    for (( i = 0; i < TIMEOUT * 20; i++ )); do
        if ! locker_alive; then locker_reap; OUTCOME=unlocked; break; fi
        if [ "$(refusals)" -gt "$before" ]; then OUTCOME=refused; break; fi
        sleep 0.05
    done
    ELAPSED_MS=$(( ($(date +%s%N) - start) / 1000000 ))
    MARKS=$(( $(marks) - marks_before ))
    # swaylock takes the next attempt once it has shown this one's failure.
    [ "$OUTCOME" != refused ] || sleep 0.5
}

check_diagnostics() {
    echo "#   outcome=$OUTCOME rc=${LOCKER_RC:-} ${ELAPSED_MS:-?} ms, reached the password module ${MARKS:-?} time(s); status: $(status_json)"
    echo "#   --- swaylock -d ---"
    tail -n 6 "$LOG" 2>/dev/null | sed 's/^/#   | /'
}

unlocked() { [ "$OUTCOME" = unlocked ] && [ "$LOCKER_RC" = 0 ]; }
refused() { [ "$OUTCOME" = refused ] && locker_alive; }
marked() { [ "$MARKS" = "$1" ]; }
took_under() { [ "$ELAPSED_MS" -lt "$1" ]; }
# no_pam_message: swaylock's log has no text of the module's (it shows none).
no_pam_message() { ! grep -qE 'Incorrect PIN|PIN disabled|PIN or password' "$LOG"; }

inner_main() {
    setup_namespace
    local k

    # --- 1. the one field ------------------------------------------------------------------
    use_stack onefield
    start_locker a || true
    check "swaylock -d as $TEST_USER locks the headless sway session (PAM service swaylock: the one-field stack)" locker_alive
    type_secret "${WRONG_PINS[0]}"
    check "one field, wrong PIN: refused, counted once, never reached the password module (${ELAPSED_MS} ms)" \
        all refused 'failures_are 1' 'marked 0' 'took_under 2000'
    type_secret "$PASSWORD"
    check "one field, the password after a wrong PIN: unlocks with one Enter, reaching the password module once" \
        all unlocked 'marked 1' 'failures_are 1'
    check "swaylock shows no PAM message: its log has none of the module's texts" no_pam_message
    start_locker b || true
    type_secret "$PIN"
    check "one field, right PIN: unlocks, the count cleared, the password module never reached" \
        all unlocked 'failures_are 0' 'marked 0'
    start_locker c || true
    type_secret "not-the-password"
    check "one field, wrong password: refused by pam_unix, nothing counted on the PIN" \
        all refused 'marked 1' 'failures_are 0'
    type_secret "$PASSWORD"
    check "one field, the password: unlocks, nothing counted on the PIN" all unlocked 'failures_are 0'

    # --- 2. the PIN disabled ---------------------------------------------------------------
    start_locker d || true
    for (( k = 1; k <= DENY; k++ )); do
        type_secret "${WRONG_PINS[$((k - 1))]}"
        check "one field, wrong PIN $k/$DENY: refused, counted, not tried as the password" \
            all refused "failures_are $k" 'marked 0'
    done
    check "status --json shows the PIN disabled after $DENY failures" pin_disabled
    type_secret "$PIN"
    check "PIN disabled: the right PIN is refused (the module no longer asks; pam_unix gets the digits), nothing counted" \
        all refused 'marked 1' "failures_are $DENY"
    type_secret "$PASSWORD"
    check "PIN disabled: the password still unlocks" unlocked
    reset_pin

    # --- 3. for contrast: two prompts, each answered by swaylock with the same text -------------
    use_stack twoprompts
    start_locker e || true
    type_secret "${WRONG_PINS[0]}"
    check "two prompts (pam/screen-locker's PIN line): a wrong PIN is counted and also tried as the password" \
        all refused 'failures_are 1' 'marked 1'
    type_secret "$PASSWORD"
    check "two prompts: the password unlocks (the module refuses it as no PIN, pam_unix takes it)" \
        all unlocked 'failures_are 1'
    stop_locker

    COMPLETE=1
}

e2e_main
