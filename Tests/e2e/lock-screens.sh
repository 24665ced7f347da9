#!/usr/bin/env bash
# Tests/e2e/lock-screens.sh — end-to-end test of pam/screen-locker with two more REAL
# screen lockers as Debian 12 ships them, xsecurelock and xscreensaver, each on its own
# Xvfb display with keys typed by xdotool; both run PAM as the user, so the PIN is checked
# by the setuid secureroom-helper (Tests/e2e/screen-locker.sh does the same for i3lock).
#
# What it proves, for each locker, with pam/screen-locker's one field (pin_or_password)
#   * the prompt is the module's "PIN or password:"; the right PIN unlocks (the lock ends)
#     and leaves failures 0; a wrong PIN does not unlock (the locker stays up), is
#     counted (failures 1), and its pam_authenticate ends there: the module's "Incorrect
#     PIN..." and no "Password:" (auth_err=die: pam_unix never runs);
#   * the password unlocks too, typed in the same field with one Enter (handed to pam_unix
#     as PAM_AUTHTOK: no second prompt, nothing counted); and both lockers show each prompt
#     of the stack on its own, so Return on the empty field skips the PIN (no message,
#     nothing counted) and pam_unix's own "Password:" takes the password;
#   * xsecurelock only: Debian's binary uses the service common-auth unless told
#     otherwise (below): without XSECURELOCK_PAM_SERVICE no PIN is asked;
#   * lockout (deny=3, no delays, in /etc/security/secureroom.conf, the only policy the
#     helper reads): three distinct wrong PINs disable the PIN; then the module asks for
#     no PIN and sends its lockout message, which the locker shows to the user, and
#     pam_unix asks "Password:"; the right PIN typed there does not unlock and is not
#     counted; the password still unlocks and leaves the PIN disabled;
#   * nothing outside the test changed (checksums and listings, no test user, no mounts,
#     no Xvfb, locker, daemon or gdb left running).
#
# The lockers as Debian ships them
#   * xsecurelock 1.5.1: auth_x11 (the prompt) runs /usr/libexec/xsecurelock/authproto_pam
#     as the user, which uses the PAM service in $XSECURELOCK_PAM_SERVICE, compiled-in
#     default "common-auth" (Debian has no /etc/pam.d/xsecurelock). pam/screen-locker is
#     a locker's whole service, not a common-auth: the test installs it as
#     /etc/pam.d/xsecurelock and sets XSECURELOCK_PAM_SERVICE=xsecurelock, and checks
#     that without the variable the locker asks for the password only. auth_x11 shows
#     PAM_ERROR_MSG as a red "Error" screen (PAM_TEXT_INFO as "PAM says") for a second or
#     until a key, then the next prompt. xsecurelock prints no conversation, so a gdb tap
#     records it: gdb attached to xsecurelock follows its auth child into auth_x11 and
#     authproto_pam (fork/exec catchpoints; helpers such as secureroom-helper and
#     unix_chkpwd stay untraced) and breaks at libpam's pam_vprompt, as screen-locker.sh
#     does for i3lock. For the lockout message it holds the next prompt until a screenshot
#     shows the red text. authproto_pam retries a failed pam_authenticate up to three times
#     unless the conversation failed: after a wrong PIN it asks "PIN or password:" again,
#     and Escape at a prompt ends the attempt.
#   * xscreensaver 6.06: the daemon locks (xscreensaver-command -lock) and, on a key,
#     runs the setuid root /usr/libexec/xscreensaver/xscreensaver-auth, which drops to the
#     user before pam_start("xscreensaver", ...) (/etc/pam.d/xscreensaver, replaced here by
#     pam/screen-locker) and then calls pam_acct_mgmt too. Its dialog shows every
#     PAM_ERROR_MSG/PAM_TEXT_INFO until the user presses a key; with -verbose it logs each
#     conversation item ('pam_conversation (ERROR_MSG="...")'), which is what the test
#     reads, besides a screenshot of the message in red in the dialog. Headless settings
#     (a private ~/.xscreensaver): mode blank, lock at once, no splash, fade or DPMS. Its
#     dialog drops keys typed before it listens and loses Shift from `xdotool type`, so
#     the test presses a lone Shift until the dialog logs the key (ready), then types, and
#     the password has no shifted character.
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites,
#   records digests of what it guards, and re-executes itself inside
#   `scripts/lib/sandbox --net`: the private network namespace keeps both X servers to the
#   test (Xvfb -nolisten tcp -nolisten unix -nolock: only the abstract sockets
#   @/tmp/.X11-unix/X43 and X44, which exist per network namespace). The inner run
#   bind-mounts private copies over /etc/passwd, shadow, group, gshadow (the user
#   srscreen, uid 4266, with a real SHA-512 password), /etc/pam.d (xsecurelock and
#   xscreensaver = pam/screen-locker with the module's absolute path and helper=),
#   /etc/security (lib.sh's helper_policy: its secureroom.conf with deny=3, schedule=
#   empty) and a tmpfs over /var/lib/xkb. The lockers run as srscreen (setpriv, no PAM;
#   setsid); counters come from `secureroom status --json`.
#
# Usage (root):  Tests/e2e/lock-screens.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each lock, prompt and outcome (default 15)
#   SR_E2E_SCREENSHOTS a directory to keep the screenshots in (PNG), if set
#   Needs xvfb, xsecurelock, xscreensaver, xdotool, x11-apps (xwd), imagemagick (convert),
#   gdb (with Python), util-linux, iproute2, procps, python3 (or openssl).
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
PASSWORD='lantern-quartz-83v'     # srscreen's real password (namespace only); no Shift: see above
WRONG_PINS=(1357 2468 8024)       # distinct: repeating a wrong PIN does not count again
DENY=3
TEST_USER=srscreen
TEST_UID=4266                     # not used by another e2e test (they may run at the same time)
XSL_DISPLAY=43                    # xsecurelock's Xvfb
XSS_DISPLAY=44                    # xscreensaver's Xvfb
SCREEN=800x600x24
CONVERT=/usr/bin/convert          # Debian's ImageMagick
XSL_LIBEXEC=/usr/libexec/xsecurelock
XSS_AUTH=/usr/libexec/xscreensaver/xscreensaver-auth
FIELD_RE='^prompt PIN or password: ?$'   # the module's one field (pin_or_password)

E2E_PREFIX=sr-screens
E2E_SANDBOX=(--net)
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside private namespaces"
E2E_INNER_WHERE="the namespaces"
E2E_TOOLS=(unshare setpriv sha256sum mount mountpoint getent Xvfb xsecurelock xscreensaver xscreensaver-command
           xdotool xwd gdb ip pgrep setsid findmnt)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/xsecurelock /etc/pam.d/xscreensaver
         /etc/pam.d/common-auth /etc/security/secureroom.conf "/tmp/.X$XSL_DISPLAY-lock" "/tmp/.X$XSS_DISPLAY-lock")
GUARDED_DIRS=(/etc/pam.d /etc/security /var/lib/xkb /tmp/.X11-unix)
E2E_LEFTOVERS_OK="no bind mounts, tmpfs or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs or %s left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    [ -x "$CONVERT" ] || die "$CONVERT not found (install imagemagick)"
    local f
    for f in "$XSL_LIBEXEC/auth_x11" "$XSL_LIBEXEC/authproto_pam" "$XSS_AUTH"; do
        [ -x "$f" ] || die "$f not found (install xsecurelock and xscreensaver)"
    done
    gdb -nx -batch -ex 'python print("ok")' 2>/dev/null | grep -x ok >/dev/null || die "gdb without Python support"
    need_password_hashing
    need_setuid_helper
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    local p v
    for p in xsecurelock xscreensaver xvfb; do
        v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo '?')
        echo "# $p: $v"
    done
}
outer_on_abort() {
    local f
    for f in "$T"/log/xvfb-*.log; do
        if [ -s "$f" ]; then sed "s|^|#   ${f##*/}: |" "$f" | tail -n 10; fi
    done
}

# Processes of the test: those of its user (the lockers and their children; by real uid:
# /proc/PID of a process that dropped setuid root, xscreensaver-auth, stays root's), the
# Xvfbs and gdbs it started (pids recorded in $T), and, while one of those Xvfbs still
# lives in it (so the namespace is still the test's: a dead network namespace's number
# can be given to another test's), anything else in its network namespace ($T/netns).
test_processes() {
    local ns='' ours=0 p pid exe
    [ -n "${T:-}" ] || return 0
    [ -f "$T/netns" ] && read -r ns < "$T/netns"
    for p in gdb Xvfb; do
        [ -f "$T/$p.pids" ] || continue
        exe=$(readlink -f "$(command -v "$p")")
        while read -r pid; do
            [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] || continue
            echo "$pid"
            [ -n "$ns" ] && [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$ns" ] && ours=1
        done < "$T/$p.pids"
    done
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = $$ ] && continue
        if { [ "$ours" = 1 ] && [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ]; } \
           || [ "$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null)" = "$TEST_UID" ]; then
            echo "$pid"
        fi
    done
    return 0
}
outer_checks() {
    tally_none_left "no Xvfb, locker, xscreensaver daemon or gdb of the test left running" \
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
XVFB_PID='' LOCKER_PID='' GDB_PID='' TAP='' LOG='' LOCKER='' STACK=''
OUTCOME=none LOCKER_RC='' MARK=0 TAP_MARK=0

inner_stop() {
    stop_tap
    stop_locker
    stop_x
}

setup_namespace() {
    enter_namespaces "start X servers"
    install -d -m 0755 "$T/etc" "$T/bin" "$T/log" "$T/home" "$T/shots"

    # --- users: srscreen with a real password ---
    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (lock screens)"
    bind_users

    # --- the setuid helper and the only policy it reads ---
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="

    # --- /etc/pam.d: a copy; xsecurelock and xscreensaver = pam/screen-locker ---
    cp -a /etc/pam.d "$T/pam.d"
    local service
    for service in xsecurelock xscreensaver; do
        stack_file screen-locker "$T/pam.d/$service" "$T/bin/secureroom-helper"
    done
    bind_over "$T/pam.d" /etc/pam.d
    STACK=$(grep -vE '^[[:space:]]*(#|$)' /etc/pam.d/xsecurelock | tr '\n' ';')

    # --- Xvfb's keymap scratch files ---
    [ -d /var/lib/xkb ] && mount -t tmpfs -o mode=0755 sr-screens /var/lib/xkb

    # --- state directory and srscreen's PIN (the CLI reads the conf above: cheap argon2) ---
    set_pin "$PIN"

    # --- xscreensaver's settings: headless, lock at once, nothing that takes time ---
    printf '%s\n' "mode:		blank" "lock:		True" "lockTimeout:	0:00:00" "timeout:	0:30:00" \
        "splash:		False" "dpmsEnabled:	False" "fade:		False" "unfade:		False" \
        > "$T/xscreensaver.conf"
    install -m 0644 -o "$TEST_UID" -g "$TEST_UID" "$T/xscreensaver.conf" "$T/home/$TEST_USER/.xscreensaver"
}

# start_x NUMBER: Xvfb on :NUMBER (abstract socket only); sets XVFB_PID and DISPLAY.
# Without key auto-repeat (-r): should xdotool's key release come late on a busy machine,
# the key must not repeat into the next prompt.
start_x() {
    export DISPLAY=":$1"
    Xvfb "$DISPLAY" -screen 0 "$SCREEN" -nolisten tcp -nolisten unix -nolock -r > "$T/log/xvfb-$1.log" 2>&1 &
    XVFB_PID=$!
    echo "$XVFB_PID" >> "$T/Xvfb.pids"
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        xdotool getdisplaygeometry >/dev/null 2>&1 && return 0
        kill -0 "$XVFB_PID" 2>/dev/null || die "Xvfb exited at start: $(cat "$T/log/xvfb-$1.log")"
        sleep 0.1
    done
    die "Xvfb did not answer on $DISPLAY within ${TIMEOUT}s"
}
stop_x() {
    [ -n "$XVFB_PID" ] || return 0
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
    XVFB_PID=
}

# as_user CMD...: CMD as srscreen (no PAM), with a minimal environment for the display.
as_user() {
    setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DISPLAY="$DISPLAY" HOME="$T/home/$TEST_USER" USER="$TEST_USER" LOGNAME="$TEST_USER" \
        LANG=C.UTF-8 PATH=/usr/bin:/bin "$@"
}

# stop_locker (lib.sh's, made thorough): the locker's session (setsid made its pid the group id; xsecurelock's
# children start groups of their own, which the sweep of the user's processes (by real
# uid) below catches), TERM then KILL.
stop_locker() {
    if [ -n "$LOCKER_PID" ]; then
        kill -- "-$LOCKER_PID" 2>/dev/null || true
        local i
        for (( i = 0; i < 30; i++ )); do locker_alive || break; sleep 0.1; done
        kill -KILL -- "-$LOCKER_PID" 2>/dev/null || true
        locker_reap
    fi
    local pids
    pids=$(pgrep -U "$TEST_UID" 2>/dev/null | tr '\n' ' ' || true)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}

# log_new: the locker's log after MARK (the line count when the attempt began).
log_new() { tail -n "+$((MARK + 1))" "$LOG" 2>/dev/null || true; }
log_lines() { wc -l < "$LOG" 2>/dev/null || echo 0; }
# wait_until CMD...: poll (every 0.1 s, up to $TIMEOUT s) until CMD succeeds.
wait_until() {
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# screenshot NAME: the root window as $T/shots/NAME.png (kept in $SR_E2E_SCREENSHOTS if set).
screenshot() {
    xwd -root -silent | "$CONVERT" xwd:- "png:$T/shots/$1.png" 2>/dev/null || return 0
    if [ -n "${SR_E2E_SCREENSHOTS:-}" ] && [ -d "$SR_E2E_SCREENSHOTS" ]; then
        cp "$T/shots/$1.png" "$SR_E2E_SCREENSHOTS/" || true
    fi
}
# red_pixels NAME [GEOMETRY]: how many pixels of the screenshot (or of the part GEOMETRY,
# WxH+X+Y) are red: both lockers draw error messages in red, and nothing else there.
red_pixels() {
    local crop=()
    [ $# -lt 2 ] || crop=(-crop "$2" +repage)
    "$CONVERT" "$T/shots/$1.png" "${crop[@]}" -fuzz 25% -fill black +opaque '#ff0000' \
        -fill white -opaque '#ff0000' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null || echo 0
}

# wait_red NAME [GEOMETRY]: screenshots until one shows red text (more than 300 red
# pixels), up to $TIMEOUT s; the last one is kept as NAME.
wait_red() {
    local i
    for (( i = 0; i < TIMEOUT * 4; i++ )); do
        screenshot "$1"
        [ "$(red_pixels "$@")" -gt 300 ] && return 0
        sleep 0.2
    done
    return 1
}

# ---- conversations ---------------------------------------------------------------------
# conversation: what the stack said to the locker in the current attempt, one item per
# line: "prompt TEXT" (echo off/on), "error TEXT", "info TEXT". From the gdb tap for
# xsecurelock, from xscreensaver's -verbose log for xscreensaver.
conversation() {
    if [ "$LOCKER" = xscreensaver ]; then
        local item='pam_conversation \((ECHO_OFF|ECHO_ON|ERROR_MSG|INFO_MSG)="(.*)"\) \.\.\.$'
        log_new | sed -nE "s/^xscreensaver-auth: .*$item/\\1 \\2/p" \
            | sed -E 's/^ECHO_(OFF|ON) /prompt /; s/^ERROR_MSG /error /; s/^INFO_MSG /info /'
        return 0
    fi
    [ -n "$TAP" ] && [ -f "$TAP" ] || return 0
    grep '^SR-TAP ' "$TAP" | tail -n "+$((TAP_MARK + 1))" | awk '
        /^SR-TAP style=/ {
            sub(/^SR-TAP style=/, "")
            s = ($0 == 1 || $0 == 2) ? "prompt" : ($0 == 3) ? "error" : "info"; next
        }
        /^SR-TAP text=/  { sub(/^SR-TAP text=/, ""); print s " " $0 }'
}
said()    { conversation | grep -E -- "$1" >/dev/null; }
# said_n N RE: the conversation has at least N lines matching RE.
said_n()  { [ "$(conversation | grep -cE -- "$2" || true)" -ge "$1" ]; }
# said_in_order RE...: the conversation has lines matching each RE, in this order.
said_in_order() {
    local re rest
    rest=$(conversation)
    for re in "$@"; do
        printf '%s\n' "$rest" | grep -E -- "$re" >/dev/null || return 1
        rest=$(printf '%s\n' "$rest" | sed -nE "0,/$re/d; p")
    done
}
# said_once: the conversation has exactly one item.
said_once() { [ "$(conversation | wc -l)" -eq 1 ]; }
# first_items RE...: the conversation's first items match each RE, one for one.
first_items() {
    local re n=0
    for re in "$@"; do
        n=$((n + 1))
        conversation | sed -n "${n}p" | grep -E -- "$re" >/dev/null || return 1
    done
}
# first_said RE: the first item of the conversation matches RE.
first_said() { conversation | sed -n 1p | grep -E -- "$1" >/dev/null; }
# wait_said [N] RE: wait until the conversation has (N times) a line matching RE.
wait_said() {
    local n=1
    [ $# -lt 2 ] || { n=$1; shift; }
    wait_until said_n "$n" "$1"
}

type_text() { xdotool type --delay 50 -- "$1"; }
key() { xdotool key "$@"; }

# ---------------------------------------------------------------------------------------
# xsecurelock
# ---------------------------------------------------------------------------------------
# xsl_lock NAME [SERVICE]: xsecurelock as srscreen in its own session, with
# XSECURELOCK_PAM_SERVICE=SERVICE (default xsecurelock; "-": unset, Debian's default);
# waits until it has grabbed keyboard and pointer (it starts its saver only after the
# grabs). Sets LOCKER_PID, LOG.
xsl_lock() {
    local name=$1 service=${2:-xsecurelock} env=()
    [ "$service" = - ] || env=("XSECURELOCK_PAM_SERVICE=$service")
    stop_tap
    stop_locker
    LOG=$T/log/$name.xsecurelock
    : > "$LOG"
    MARK=0
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DISPLAY="$DISPLAY" HOME="$T/home/$TEST_USER" LANG=C.UTF-8 PATH=/usr/bin:/bin "${env[@]}" \
        xsecurelock > "$LOG" 2>&1 &
    LOCKER_PID=$! LOCKER_RC=running
    wait_until xsl_saver_running && locker_alive && return 0
    locker_alive || locker_reap
    return 1
}
xsl_saver_running() { pgrep -P "$LOCKER_PID" -x saver_multiplex >/dev/null 2>&1 || ! locker_alive; }

# start_tap NAME [hold]: gdb attached to the running xsecurelock (log: $T/log/N-NAME.tap).
# At a fork it follows the child only from xsecurelock itself (its auth child) and from
# auth_x11 (authproto_pam); every other child (the process group placeholders, and from
# authproto_pam the module's secureroom-helper and pam_unix's unix_chkpwd) is left
# untraced, so setuid programs run as they should. Once libpam is loaded into
# authproto_pam it breaks at pam_vprompt(pamh, style, response, fmt, va_list), which every
# prompt and message of the stack goes through, prints "SR-TAP style=N" and, for the "%s"
# format, "SR-TAP text=..." (read from the x86-64 va_list), and continues. With "hold", the
# first prompt after a message waits (up to $TIMEOUT s) for $T/release: auth_x11 keeps
# showing the message meanwhile. gdb ends with authproto_pam: one tap per attempt.
TAPS=0
start_tap() {
    # A new file each time (numbered): a stale "SR-TAP-READY" must not pass for this one.
    TAPS=$((TAPS + 1))
    TAP=$T/log/$TAPS-$1.tap TAP_MARK=0
    : > "$TAP"
    local hold=0
    [ "${2:-}" = hold ] && hold=1
    rm -f "$T/release"
    cat > "$T/tap.gdb" <<GDB
set pagination off
set confirm off
set width 0
set detach-on-fork on
set follow-exec-mode same
set follow-fork-mode parent
set \$sr_hold = $hold
set \$sr_msg = 0
python
import gdb
SR_MAIN = gdb.selected_inferior().pid
def sr_follow():
    name = (gdb.current_progspace().filename or "").rsplit("/", 1)[-1]
    child = (name == "xsecurelock" and gdb.selected_inferior().pid == SR_MAIN) or name == "auth_x11"
    gdb.execute("set follow-fork-mode " + ("child" if child else "parent"))
end
catch fork
commands
silent
python sr_follow()
continue
end
catch vfork
commands
silent
python sr_follow()
continue
end
catch load libpam\\.so
commands
silent
sharedlibrary libpam\\.so
break *pam_vprompt
commands
silent
$(vprompt_tap_lines)
if \$rsi == 3 || \$rsi == 4
set \$sr_msg = 1
end
if (\$rsi == 1 || \$rsi == 2) && \$sr_msg == 1 && \$sr_hold == 1
set \$sr_hold = 0
echo SR-HOLD\\n
shell i=0; while [ ! -e '$T/release' ] && [ \$i -lt $((TIMEOUT * 10)) ]; do sleep 0.1; i=\$((i + 1)); done
end
continue
end
continue
end
echo SR-TAP-READY\\n
continue
GDB
    gdb -q -nx -batch -iex 'set auto-solib-add off' -x "$T/tap.gdb" -p "$LOCKER_PID" > "$TAP" 2>&1 &
    GDB_PID=$!
    echo "$GDB_PID" >> "$T/gdb.pids"
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        grep -q '^SR-TAP-READY' "$TAP" 2>/dev/null && return 0
        kill -0 "$GDB_PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
release_hold() { : > "$T/release"; }

# stop_tap: waits a little for gdb to end with its authproto_pam, else interrupts it (gdb
# then detaches, removing its breakpoint) and, last, kills it.
stop_tap() {
    [ -n "$GDB_PID" ] || return 0
    release_hold
    local i
    for (( i = 0; i < 30; i++ )); do kill -0 "$GDB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -INT "$GDB_PID" 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do kill -0 "$GDB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$GDB_PID" 2>/dev/null || true
    wait "$GDB_PID" 2>/dev/null || true
    GDB_PID=
}

# xsl_wake NAME [hold]: a new tap, then a lone Shift (xsecurelock discards the key that
# wakes its prompt anyway): xsecurelock starts auth_x11, which starts authproto_pam.
xsl_wake() {
    stop_tap
    OUTCOME=none
    MARK=$(log_lines)
    start_tap "$@" || return 1
    key Shift_L
}
# xsl_outcome: waits for the attempt's end. OUTCOME=unlocked (xsecurelock exited;
# LOCKER_RC its status), refused (it logged "auth child failed": still locked) or timeout.
xsl_outcome() {
    OUTCOME=timeout
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        if ! locker_alive; then locker_reap; OUTCOME=unlocked; break; fi
        if log_new | grep 'auth child failed' >/dev/null; then OUTCOME=refused; break; fi
        sleep 0.1
    done
    stop_tap
}
# xsl_wrong_pin PIN: at "PIN or password:" a wrong PIN; the module's message; the
# pam_authenticate ends (auth_err=die) and authproto_pam retries it: at its first prompt
# ("PIN or password:" again, or pam_unix's "Password:" once the PIN is disabled), Escape
# (a failed conversation ends the attempt without retries).
xsl_wrong_pin() {
    xsl_wake "wrong-$1" && xsl_answer "$FIELD_RE" "$1" && wait_said 2 '^prompt ' && key Escape \
        && xsl_outcome
    return 0
}

# ---------------------------------------------------------------------------------------
# xscreensaver
# ---------------------------------------------------------------------------------------
# xss_start: the daemon as srscreen (its own session), logging verbosely to LOG.
xss_start() {
    stop_locker
    LOG=$T/log/xscreensaver.log MARK=0
    : > "$LOG"
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DISPLAY="$DISPLAY" HOME="$T/home/$TEST_USER" USER="$TEST_USER" LOGNAME="$TEST_USER" \
        LANG=C.UTF-8 PATH=/usr/bin:/bin xscreensaver -no-splash -verbose > "$LOG" 2>&1 &
    LOCKER_PID=$! LOCKER_RC=running
    wait_until xss_answers
}
xss_answers() { as_user xscreensaver-command -time >/dev/null 2>&1; }
xss_locked() { as_user xscreensaver-command -time 2>/dev/null | grep 'locked since' >/dev/null; }
# xss_lock: xscreensaver-command -lock, then waits until the daemon says so and has
# launched its blanking (keys sent before that would not wake the dialog).
xss_lock() {
    MARK=$(log_lines)
    as_user xscreensaver-command -lock >/dev/null 2>&1 || return 1
    wait_until xss_locked && wait_until xss_log_has 'xscreensaver-gfx: .*blanking'
}
xss_log_has() { log_new | grep -E -- "$1" >/dev/null; }
xss_keys_seen() { log_new | grep -c 'xscreensaver-auth: .*XI RawKeyPress' || true; }
# xss_ready: presses a lone Shift until the dialog logs a key press: it listens (keys
# before that are lost). Shift types nothing into the field.
xss_ready() {
    local seen i j
    seen=$(xss_keys_seen)
    for (( i = 0; i < TIMEOUT * 2; i++ )); do
        key Shift_L
        for (( j = 0; j < 5; j++ )); do
            [ "$(xss_keys_seen)" -gt "$seen" ] && return 0
            sleep 0.1
        done
    done
    return 1
}
# xss_wake: a new attempt, which starts after the daemon's last word on the previous one
# (locking, unlocking, authorization failed); a key makes the daemon launch
# xscreensaver-auth (pressed again each second until it does: right after locking it may
# not listen yet), unless it already has.
XSS_DONE=0
xss_wake() {
    OUTCOME=none XSS_DONE=0
    MARK=$(grep -nE '^xscreensaver: .*(ClientMessage LOCK|unlocking|authorization failed)' "$LOG" | tail -n 1)
    MARK=${MARK%%:*}; MARK=${MARK:-0}
    local i
    for (( i = 0; i < TIMEOUT; i++ )); do
        xss_log_has 'launched xscreensaver-auth' && return 0
        key Shift_L
        TIMEOUT=1 wait_until xss_log_has 'launched xscreensaver-auth' && return 0
    done
    return 1
}
# xss_prompt RE: goes through the attempt's conversation items not handled yet: each
# message is acknowledged (Return, once the dialog listens), and the next prompt must
# match RE; returns once the dialog listens for the answer.
xss_prompt() {
    local item
    while wait_until xss_items_more; do
        item=$(conversation | sed -n "$((XSS_DONE + 1))p")
        XSS_DONE=$((XSS_DONE + 1))
        case $item in
            "prompt "*) printf '%s\n' "$item" | grep -E -- "$1" >/dev/null && xss_ready; return ;;
            *) xss_ready && key Return || return 1 ;;
        esac
    done
    return 1
}
xss_items_more() { [ "$(conversation | wc -l)" -gt "$XSS_DONE" ]; }
# answer [TEXT]: types TEXT (if any), then Return.
answer() {
    [ $# -eq 0 ] || [ -z "$1" ] || type_text "$1"
    key Return
}
# xss_outcome: OUTCOME=unlocked ("authentication succeeded", then the daemon is
# "unlocking"), refused (pam_authenticate failed; the dialog's "Authentication failed!"
# notice is left to time out, a few seconds: a key pressed to dismiss it could reach the
# daemon after the dialog is gone and start another attempt; then the daemon logs
# "authorization failed") or timeout.
xss_outcome() {
    OUTCOME=timeout
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        if xss_log_has 'xscreensaver-auth: .*authentication succeeded'; then
            wait_until xss_log_has 'xscreensaver: .*unlocking' && OUTCOME=unlocked
            return 0
        fi
        if xss_log_has 'xscreensaver: .*authorization failed'; then OUTCOME=refused; return 0; fi
        sleep 0.1
    done
}
# xss_ack: the attempt's next conversation item is a message: acknowledged (Return, once
# the dialog listens).
xss_ack() {
    wait_until xss_items_more || return 1
    XSS_DONE=$((XSS_DONE + 1))
    case $(conversation | sed -n "${XSS_DONE}p") in
        "prompt "*) return 1 ;;
        *) xss_ready && key Return ;;
    esac
}
# xss_wrong_pin PIN: at "PIN or password:" a wrong PIN; Return on the module's message,
# which ends the PAM transaction (auth_err=die).
xss_wrong_pin() {
    xss_wake && xss_prompt "$FIELD_RE" && answer "$1" && xss_ack && xss_outcome
    return 0
}

# ---- checks ----------------------------------------------------------------------------
check_diagnostics() {
    if [ -n "$LOCKER_PID" ] && ! locker_alive; then locker_reap; fi
    echo "#   locker=$LOCKER outcome=$OUTCOME locker_rc=${LOCKER_RC:-} failures=$(failures_of "$TEST_USER")"
    echo "#   status: $(status_json)"
    echo "#   stack: $STACK"
    echo "#   --- conversation (last attempt) ---"
    conversation | sed 's/^/#   | /' || true
    if [ "$LOCKER" = xsecurelock ] && [ -n "$TAP" ] && [ -f "$TAP" ]; then
        echo "#   --- gdb tap (last lines) ---"
        grep -vE '^(During symbol|Using host libthread|\[Thread debugging)' "$TAP" | tail -n 8 \
            | sed 's/^/#   | /' || true
    fi
    echo "#   processes of $TEST_USER: $(ps -o pid=,comm= -u "$TEST_UID" 2>/dev/null | tr -s ' \n' ' ' || true)"
    echo "#   --- $LOCKER log (last attempt; key events left out) ---"
    log_new | grep -vE 'RawKey|XKB event|kbd layout|^[[:space:]]*$' | tail -n 15 | sed 's/^/#   | /' || true
}

outcome_is() { [ "$OUTCOME" = "$1" ]; }
unlocked()   { [ "$OUTCOME" = unlocked ] && [ "$LOCKER_RC" = 0 ]; }
still_locked_after() { sleep "$1"; locker_alive; }
xss_unlocked() { [ "$OUTCOME" = unlocked ] && ! xss_locked; }
xss_still_locked() { [ "$OUTCOME" = refused ] && xss_locked; }

# told K: the regex and the words of the module's message after wrong PIN K of DENY.
told() {
    local left=$((DENY - $1))
    case $left in
        0) TOLD="PIN disabled after $DENY failed attempts" ;;
        1) TOLD="1 attempt left" ;;
        *) TOLD="$left attempts left" ;;
    esac
}

# xsl_answer RE [TEXT]: waits for a conversation item matching RE, then types TEXT (if
# any) and Return; keys typed early wait in auth_x11's input pipe.
xsl_answer() { wait_said "$1" && answer "${2:-}"; }

run_xsecurelock() {
    local k shown=1
    LOCKER=xsecurelock
    start_x "$XSL_DISPLAY"

    # --- 1. wrong PIN, then the right PIN ----------------------------------------------
    xsl_lock a || true
    check "xsecurelock as $TEST_USER locks :$XSL_DISPLAY (grabbed, saver up); service xsecurelock = pam/screen-locker" \
        locker_alive
    xsl_wrong_pin "${WRONG_PINS[0]}"
    check "xsecurelock, wrong PIN: 'PIN or password:', 'Incorrect PIN...' (PAM_ERROR_MSG), and that pam_authenticate ends: no Password:, authproto_pam's retry asks 'PIN or password:' again (Escape)" \
        first_items "$FIELD_RE" '^error Incorrect PIN' "$FIELD_RE"
    check "xsecurelock, wrong PIN: refused ('auth child failed'), still locked 1 s later" \
        all 'outcome_is refused' 'still_locked_after 1'
    check "xsecurelock, wrong PIN: counted through the setuid helper (failures 1)" failures_are 1
    xsl_wake a-right && xsl_answer "$FIELD_RE" "$PIN" && xsl_outcome
    check "xsecurelock, right PIN: asked once ('PIN or password:', nothing else), xsecurelock unlocks (exits 0)" \
        all unlocked 'said "$FIELD_RE"' said_once
    check "xsecurelock, right PIN: the count is cleared (failures 0, last_success recorded)" \
        all 'failures_are 0' success_recorded

    # --- 2. the password in the field; Return on the empty field, then the password -----
    xsl_lock b || true
    xsl_wake b && xsl_answer "$FIELD_RE" "$PASSWORD" && xsl_outcome
    check "xsecurelock, password in the one field: one Enter unlocks (exits 0); asked once, no message, no Password:" \
        all unlocked 'said "$FIELD_RE"' said_once
    check "xsecurelock, password in the one field: nothing counted (failures 0)" failures_are 0
    xsl_lock b-empty || true
    xsl_wake b-empty && xsl_answer "$FIELD_RE" && xsl_answer '^prompt Password: ?$' "$PASSWORD" && xsl_outcome
    check "xsecurelock, Return on the empty field: no message, pam_unix's Password: follows, the password there unlocks" \
        all unlocked 'first_items "$FIELD_RE" "^prompt Password: ?$"' '! said "^(error|info) "'
    check "xsecurelock, the skipped PIN is not counted (failures 0)" failures_are 0

    # --- 3. Debian's default service: common-auth ----------------------------------------
    xsl_lock c - || true
    xsl_wake c && xsl_answer '^prompt Password: ?$' "$PASSWORD" && xsl_outcome
    check "xsecurelock without XSECURELOCK_PAM_SERVICE (built-in common-auth): Password: only, no PIN:; unlocks" \
        all unlocked 'said "^prompt Password: ?$"' '! said "^prompt PIN: ?$"'

    # --- 4. lockout ------------------------------------------------------------------------
    xsl_lock d || true
    for (( k = 1; k <= DENY; k++ )); do
        xsl_wrong_pin "${WRONG_PINS[$((k - 1))]}"
        told "$k"
        check "xsecurelock, lockout: wrong PIN $k/$DENY refused, still locked, failures $k, '$TOLD'" \
            all 'outcome_is refused' locker_alive "failures_are $k" "said '^error Incorrect PIN\\. $TOLD'"
    done
    check "xsecurelock, lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled

    # --- 5. PIN disabled: the message on screen; the right PIN does not unlock ------------
    xsl_wake d-disabled hold && wait_until grep '^SR-HOLD' "$TAP" >/dev/null \
        && wait_red xsecurelock-lockout || shown=0
    release_hold
    check "xsecurelock, PIN disabled: no PIN prompt; first 'PIN disabled after $DENY failed attempts...', then pam_unix's Password:" \
        all "first_said '^error PIN disabled after $DENY failed attempts'" '! said "^prompt PIN"' \
            'said_in_order "^error PIN disabled" "^prompt Password: ?$"'
    check "xsecurelock, PIN disabled: auth_x11 shows it as a red Error screen (screenshot while Password: is held)" \
        test "$shown" = 1
    # The right PIN at Password: pam_unix refuses it and authproto_pam retries
    # pam_authenticate (the message, Password: again), where Escape ends the attempt.
    xsl_answer '^prompt Password: ?$' "$PIN" && wait_said 2 '^prompt Password: ?$' && key Escape
    xsl_outcome
    check "xsecurelock, PIN disabled: the right PIN at Password: does not unlock, nothing counted (failures $DENY)" \
        all 'outcome_is refused' 'still_locked_after 1' "failures_are $DENY" pin_disabled
    xsl_wake d-password && xsl_answer '^prompt Password: ?$' "$PASSWORD" && xsl_outcome
    check "xsecurelock, PIN disabled: the password still unlocks (exit 0), the PIN stays disabled (failures $DENY)" \
        all unlocked "failures_are $DENY" pin_disabled 'said "^error PIN disabled"'

    stop_tap
    stop_locker
    stop_x
}

run_xscreensaver() {
    local k shown=1 start
    LOCKER=xscreensaver TAP=
    start_x "$XSS_DISPLAY"
    # Once in the full runs so far (1affad5), the daemon exited 1 right after "running in
    # process N", with nothing more in its verbose log, and never locked. Such a start is
    # shown, and the daemon is started once more; the check below still needs it to lock.
    for start in 1 2; do
        xss_start && xss_lock && locker_alive && break
        [ "$start" -eq 2 ] && break
        locker_alive || [ -z "$LOCKER_PID" ] || locker_reap
        echo "# note: xscreensaver did not lock (exit ${LOCKER_RC:-?}); the end of its log:"
        tail -n 3 "$LOG" | sed 's/^/#   | /'
    done
    check "xscreensaver (the daemon) as $TEST_USER on :$XSS_DISPLAY: xscreensaver-command -lock locks" \
        all locker_alive xss_locked

    # --- 1. wrong PIN, then the right PIN ----------------------------------------------
    xss_wrong_pin "${WRONG_PINS[0]}"
    check "xscreensaver, wrong PIN: xscreensaver-auth drops root, pam_start(\"xscreensaver\", \"$TEST_USER\")" \
        all "xss_log_has 'changed uid/gid to $TEST_USER/'" "xss_log_has 'pam_start \\(\"xscreensaver\", \"$TEST_USER\"'"
    check "xscreensaver, wrong PIN: 'PIN or password:', 'Incorrect PIN...' (PAM_ERROR_MSG), and nothing more: no Password: (auth_err=die)" \
        all "first_items '$FIELD_RE' '^error Incorrect PIN'" '[ "$(conversation | wc -l)" -eq 2 ]'
    check "xscreensaver, wrong PIN: refused (pam_authenticate failed, 'authorization failed'), still locked" \
        xss_still_locked
    check "xscreensaver, wrong PIN: counted through the setuid helper (failures 1)" failures_are 1
    xss_wake && xss_prompt "$FIELD_RE" && answer "$PIN" && xss_outcome
    check "xscreensaver, right PIN: asked once ('PIN or password:'), pam_acct_mgmt passes, the lock ends ('unlocking')" \
        all xss_unlocked 'said "$FIELD_RE"' said_once \
            'xss_log_has "pam_acct_mgmt \\(\\.\\.\\.\\) ==> 0"'
    check "xscreensaver, right PIN: the count is cleared (failures 0, last_success recorded)" \
        all 'failures_are 0' success_recorded

    # --- 2. the password in the field; Return on the empty field, then the password -----
    xss_lock || true
    xss_wake && xss_prompt "$FIELD_RE" && answer "$PASSWORD" && xss_outcome
    check "xscreensaver, password in the one field: one Enter unlocks ('unlocking'); asked once, no message, no Password:" \
        all xss_unlocked 'said "$FIELD_RE"' said_once
    check "xscreensaver, password in the one field: nothing counted (failures 0)" failures_are 0
    xss_lock || true
    xss_wake && xss_prompt "$FIELD_RE" && answer && xss_prompt '^prompt Password: ?$' && answer "$PASSWORD" \
        && xss_outcome
    check "xscreensaver, Return on the empty field: no message, pam_unix's Password: follows, the password there unlocks" \
        all xss_unlocked 'first_items "$FIELD_RE" "^prompt Password: ?$"' '! said "^(error|info) "'
    check "xscreensaver, the skipped PIN is not counted (failures 0)" failures_are 0

    # --- 3. lockout ------------------------------------------------------------------------
    xss_lock || true
    for (( k = 1; k <= DENY; k++ )); do
        xss_wrong_pin "${WRONG_PINS[$((k - 1))]}"
        told "$k"
        check "xscreensaver, lockout: wrong PIN $k/$DENY refused, still locked, failures $k, '$TOLD'" \
            all xss_still_locked "failures_are $k" "said '^error Incorrect PIN\\. $TOLD'"
    done
    check "xscreensaver, lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled

    # --- 4. PIN disabled: the message in the dialog; the right PIN does not unlock -------
    # (The message area: right of the logo, whose flames are red too.)
    xss_wake && wait_said '^error ' && xss_ready && wait_red xscreensaver-lockout 520x300+275+150 || shown=0
    check "xscreensaver, PIN disabled: no PIN prompt; 'PIN disabled after $DENY failed attempts...' (PAM_ERROR_MSG)" \
        all "first_said '^error PIN disabled after $DENY failed attempts'" '! said "^prompt PIN"'
    check "xscreensaver, PIN disabled: the dialog shows it until a key (red text beside the logo, screenshot)" \
        test "$shown" = 1
    xss_prompt '^prompt Password: ?$' && answer "$PIN" && xss_outcome
    check "xscreensaver, PIN disabled: the right PIN at Password: does not unlock, nothing counted (failures $DENY)" \
        all xss_still_locked "failures_are $DENY" pin_disabled
    xss_wake && xss_prompt '^prompt Password: ?$' && answer "$PASSWORD" && xss_outcome
    check "xscreensaver, PIN disabled: the password still unlocks, the PIN stays disabled (failures $DENY)" \
        all xss_unlocked "failures_are $DENY" pin_disabled 'said "^error PIN disabled"'

    stop_locker
    stop_x
}

inner_main() {
    setup_namespace
    run_xsecurelock
    reset_pin
    check "between the lockers: secureroom reset lifts the lockout (failures 0, PIN enabled)" \
        all 'failures_are 0' '! pin_disabled'
    run_xscreensaver
    COMPLETE=1
}

e2e_main
