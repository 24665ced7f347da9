#!/usr/bin/env bash
# Tests/e2e/greeter.sh — end-to-end test of the PIN at a REAL login screen: Debian's
# LightDM with lightdm-gtk-greeter on an Xvfb it starts itself, a private system bus, the
# user name and the PIN typed into the greeter with xdotool, a user session started.
#
# What it proves
#   * LightDM (as root, `lightdm -d`) starts its X server (Xvfb through xserver-command),
#     runs the greeter's session through the PAM service lightdm-greeter (as the user
#     lightdm) and authenticates the user typed into the greeter's name field through the
#     PAM service lightdm: Debian's /etc/pam.d/lightdm with `@include common-auth-pin`
#     (pam/common-auth-pin, the module's absolute path) before `@include common-auth`;
#     LightDM's session child runs PAM as root, so the module checks the PIN itself (the
#     line's helper= names a file that does not exist: no PIN goes through secureroom-helper);
#   * the right PIN: the stack's first prompt is the module's "PIN:" (echo off; the
#     greeter shows it as a bare password field, no text), LightDM starts the user's
#     session (its marker: user srgreet, uid, DISPLAY, DESKTOP_SESSION; LightDM lists it
#     on the system bus), no "Password:" is asked, nothing is counted;
#   * a wrong PIN: refused and counted (failures 1); the module's message ("Incorrect
#     PIN. 2 attempts left before the PIN is disabled.", PAM_ERROR_MSG) is what the
#     greeter shows in its message bar while it waits at pam_unix's "Password:"; a wrong
#     password there: no session, the greeter's own "Your password is incorrect. Please
#     try again.", and it starts over for the same user (a new PAM transaction);
#   * lockout (deny=3, no delays, in /etc/security/secureroom.conf): three distinct wrong
#     PINs disable the PIN; the next transaction asks no PIN, the lockout message ("PIN
#     disabled after 3 failed attempts...") is in the greeter's message bar, and the
#     password typed at pam_unix's "Password:" starts the session; the PIN stays disabled;
#   * what the stack says and what the greeter shows: gdb on LightDM's session child (a
#     breakpoint at libpam's pam_vprompt, which every prompt and message of the stack
#     passes through: style and text, never the answers) and gdb on the greeter
#     (gtk_label_set_text: its message bar, the only label it sets; gtk_entry_set_visibility:
#     each prompt it puts up); screenshots of the two messages;
#   * nothing outside the test changed (checksums and listings, the console's active VT,
#     no test user, no mounts, no lightdm, greeter, Xvfb, dbus-daemon, session or gdb left).
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites,
#   records digests of what it guards, and re-executes itself inside
#   `scripts/lib/sandbox --net` (private mount and network namespaces: every process of
#   the test is found by its network namespace). The inner run bind-mounts private copies
#   over /etc/passwd, shadow, group, gshadow (srgreet, uid 4300, with a real SHA-512
#   password), /etc/pam.d (lightdm and common-auth-pin as above), /etc/security
#   (secureroom.conf from lib.sh's helper_policy: dir=STATE, cheap argon2, deny=3,
#   schedule= empty), /etc/lightdm (its lightdm.conf replaced, below), /usr/share/xsessions
#   (plus sr-e2e.desktop), /var/lib/lightdm (the greeter's home) and /var/lib/lightdm-data,
#   the login records (wtmp, btmp, lastlog), and mounts tmpfs over /run (LightDM's run
#   directory and X authority, utmp, the bus socket) and /var/lib/xkb. /dev/null is bound
#   over /dev/tty0: LightDM gives its X server a VT and activates it (VT_ACTIVATE on
#   /dev/tty0), which would switch the machine's console; here that ioctl fails and
#   LightDM goes on. A dbus-daemon (lib.sh start_system_bus, LightDM's bus policy) is the
#   system bus (LightDM exits without one; it does without logind, ConsoleKit and
#   AccountsService). lightdm.conf: log, cache and X server in $T; xserver-command = a
#   wrapper that records the display and execs Xvfb with LightDM's -auth, only on the
#   abstract socket of the private network namespace (-nolisten tcp -nolisten unix
#   -nolock: no socket or lock file in /tmp); greeter-session = lightdm-gtk-greeter;
#   Debian's greeter-hide-users=true (a name field, no user list) stays; user-session =
#   sr-e2e, whose Exec is a script that writes a marker as the user and waits to be
#   released; session-wrapper = a one-line exec (Debian's /etc/X11/Xsession would start
#   ssh-agent and the like, which outlive the session by seconds). The script types with
#   `xdotool type` + `xdotool key Return` once the greeter has put up the prompt (seen by
#   the greeter's gdb), and waits for the marker (session), LightDM's "Authentication
#   failure" and the greeter's next prompt. Counters come from `secureroom status --json`.
#
# Usage (root):  Tests/e2e/greeter.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper):
#                      helper_policy's check of the policy it would read; the PIN does not
#                      go through it (LightDM runs PAM as root)
#   SR_E2E_TIMEOUT     seconds to wait for each prompt, outcome or session (default 15;
#                      LightDM's start, X server and greeter included, gets twice that)
#   SR_E2E_SCREENSHOTS a directory to keep the screenshots in (PNG), if set
#   Needs lightdm, lightdm-gtk-greeter, xvfb, xdotool, x11-apps (xwd), imagemagick
#   (convert), gdb, dbus-daemon, dbus-bin (dbus-send), util-linux, iproute2, procps,
#   python3 (or openssl).
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
PASSWORD='Copper-Harbour-27q'     # srgreet's real password (namespace only)
WRONG_PINS=(1357 2468 8024)       # distinct: repeating a wrong PIN does not count again
WRONG_PASSWORD='Not-The-Password-1'  # ends a wrong-PIN attempt at pam_unix's Password:
DENY=3
TEST_USER=srgreet
TEST_UID=4300                     # not used by another e2e test (they may run at the same time)
DISPLAY_NUMBER=45                 # LightDM's minimum-display-number; private: abstract socket
SCREEN=1024x768x24
CONVERT=/usr/bin/convert          # Debian's ImageMagick
GREETER=/usr/sbin/lightdm-gtk-greeter
SESSION_NAME=sr-e2e               # /usr/share/xsessions/sr-e2e.desktop (private copy)

E2E_PREFIX=sr-greeter
E2E_SANDBOX=(--net)
E2E_ROOT_REASON="it runs LightDM and bind-mounts over /etc inside private namespaces"
E2E_INNER_WHERE="the namespaces"
E2E_TOOLS=(unshare setpriv sha256sum mount mountpoint getent lightdm Xvfb xdotool xwd gdb
           dbus-daemon dbus-send ip pgrep findmnt setsid timeout)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/lightdm /etc/pam.d/lightdm-greeter
         /etc/pam.d/common-auth-pin /etc/security/secureroom.conf /etc/lightdm/lightdm.conf
         /sys/class/tty/tty0/active "/tmp/.X$DISPLAY_NUMBER-lock")
GUARDED_DIRS=(/etc/pam.d /etc/security /etc/lightdm /usr/share/xsessions /var/lib/lightdm /var/lib/lightdm-data
              /var/cache/lightdm /var/log/lightdm /run/lightdm /var/lib/xkb /tmp/.X11-unix)
E2E_GUARDED_DESC="${#GUARDED[@]} files (the active VT among them), ${#GUARDED_DIRS[@]} dirs"
E2E_LEFTOVERS_OK="no bind mounts, tmpfs or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs or %s left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    [ -x "$CONVERT" ] || die "$CONVERT not found (install imagemagick)"
    [ -x "$GREETER" ] || die "$GREETER not found (install lightdm-gtk-greeter)"
    [ -f /usr/share/xgreeters/lightdm-gtk-greeter.desktop ] || die "the greeter's session file is missing"
    [ -f /etc/pam.d/lightdm ] && grep -q '^@include common-auth$' /etc/pam.d/lightdm \
        || die "/etc/pam.d/lightdm (with '@include common-auth') not found: install lightdm"
    [ -f /etc/dbus-1/system.d/org.freedesktop.DisplayManager.conf ] || die "LightDM's bus policy not found"
    [ -d /var/lib/lightdm ] && [ -d /var/lib/lightdm-data ] \
        || die "/var/lib/lightdm or /var/lib/lightdm-data missing (reinstall lightdm)"
    getent passwd lightdm >/dev/null || die "user lightdm not found (install lightdm)"
    getent passwd messagebus >/dev/null || die "user messagebus not found (install dbus-daemon)"
    need_password_hashing
    need_setuid_helper
}
outer_header() {
    local p versions=
    for p in lightdm lightdm-gtk-greeter xvfb dbus-daemon; do
        versions+="${versions:+, }$p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo '?')"
    done
    echo "# helper: $SECUREROOM_HELPER"
    echo "# $versions"
}
outer_on_abort() {
    local f
    for f in lightdm/lightdm.log lightdm/seat0-greeter.log lightdm.out bus.log; do
        if [ -s "$T/log/$f" ]; then tail -n 15 "$T/log/$f" | sed "s|^|#   ${f##*/}: |"; fi
    done
}

# Processes of the test: in its network namespace (dbus-daemon, LightDM and all it
# starts, gdb; recorded in $T/netns) or running as its user.
test_processes() {
    namespace_processes "$TEST_UID"
    return 0
}
outer_checks() {
    tally_none_left "no lightdm, greeter, Xvfb, dbus-daemon, user session or gdb of the test left running" \
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
BUS_PID= LIGHTDM_PID= STACK= LOG= MARKER= RELEASE=
GDB_PIDS=()
CONV= CONV_NEXT= SHOW= SHOW_MARK=0 GREETER_PID= GREETERS=0

# stop_pid PID SECONDS: SIGTERM, up to SECONDS to go, then SIGKILL (never an unbounded wait).
stop_pid() {
    local pid=$1 i
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || true
    for (( i = 0; i < $2 * 10; i++ )); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

inner_stop() {
    stop_taps
    # A session still waiting is let go, so LightDM's stop is its ordinary end of session.
    [ -z "$RELEASE" ] || touch "$RELEASE" 2>/dev/null || true
    # LightDM stops its greeter, sessions and X server on SIGTERM.
    stop_pid "$LIGHTDM_PID" 10
    stop_pid "$BUS_PID" 3
}

setup_namespace() {
    enter_namespaces "start LightDM, an X server and a system bus"
    install -d -m 0755 "$T/etc" "$T/bin" "$T/log" "$T/home" "$T/shots" "$T/session" "$T/bus" "$T/cache"

    # --- users: srgreet with a real password ---
    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (greeter)"
    bind_users

    # --- the policy the module reads (helper_policy: the only writer of secureroom.conf) ---
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="

    # --- /etc/pam.d: a copy; common-auth-pin as shipped, included before common-auth in
    #     Debian's lightdm file, as pam/README.md says. The module's absolute path, and
    #     helper= naming no file: LightDM runs PAM as root, so the module must not need the
    #     helper (a PIN accepted here cannot have gone through secureroom-helper) ---
    cp -a /etc/pam.d "$T/pam.d"
    stack_file common-auth-pin "$T/pam.d/common-auth-pin" "$T/bin/not-a-helper"
    sed -i '0,/^@include common-auth$/s//@include common-auth-pin\n@include common-auth/' "$T/pam.d/lightdm"
    grep -A1 '^@include common-auth-pin$' "$T/pam.d/lightdm" | grep -q '^@include common-auth$' \
        || die "could not include common-auth-pin in /etc/pam.d/lightdm"
    bind_over "$T/pam.d" /etc/pam.d
    STACK=$( (grep -vE '^[[:space:]]*(#|$)' /etc/pam.d/lightdm; grep -vE '^[[:space:]]*(#|$)' \
        /etc/pam.d/common-auth-pin) | tr -s ' \t' ' ' | tr '\n' ';')

    # --- what LightDM, its greeter and sessions write: private ---
    sink_login_records
    mount -t tmpfs -o mode=0755 "$E2E_PREFIX" /run
    install -d -m 0755 /run/dbus /run/lock
    # utmp as a booted Debian has it (LightDM records the session there).
    install -m 0664 -o root -g utmp /dev/null /run/utmp
    [ -d /var/lib/xkb ] && mount -t tmpfs -o mode=0755 "$E2E_PREFIX" /var/lib/xkb
    cp -a /var/lib/lightdm "$T/lib-lightdm"
    bind_over "$T/lib-lightdm" /var/lib/lightdm
    cp -a /var/lib/lightdm-data "$T/lib-lightdm-data"
    bind_over "$T/lib-lightdm-data" /var/lib/lightdm-data
    # LightDM activates its X server's VT on /dev/tty0: not the machine's console.
    if [ -e /dev/tty0 ]; then bind_over /dev/null /dev/tty0; fi

    # --- the X server, the session wrapper and the session ---
    # LightDM runs `xserver-command :N -seat seat0 -auth FILE -nolisten tcp vtN -novtswitch`;
    # Xvfb has no seats or VTs: keep the display and the authority, drop the rest.
    cat > "$T/bin/xserver" <<EOF
#!/bin/sh
# Tests/e2e/greeter.sh: LightDM's X server (xserver-command), Xvfb. exec keeps the pid
# LightDM waits on and Xvfb's SIGUSR1 "ready" to LightDM.
display=\$1 auth=
shift
while [ \$# -gt 0 ]; do
    case \$1 in -auth) auth=\$2; shift ;; esac
    shift
done
echo "\$display \$auth" > "$T/log/xserver.display"
exec Xvfb "\$display" -auth "\$auth" -screen 0 $SCREEN -nolisten tcp -nolisten unix -nolock
EOF
    printf '%s\n' '#!/bin/sh' '# Tests/e2e/greeter.sh: the session wrapper: runs the session command, nothing else.' \
        'exec "$@"' > "$T/bin/session-wrapper"
    MARKER=$T/home/$TEST_USER/session-started RELEASE=$T/session/release
    cat > "$T/bin/session" <<EOF
#!/bin/sh
# Tests/e2e/greeter.sh: the user session LightDM starts: who it runs as, where, then it
# waits until the test releases it (at most $((TIMEOUT * 2)) s, so it never hangs).
printf 'user=%s uid=%s display=%s desktop=%s\n' "\$(id -un)" "\$(id -u)" "\${DISPLAY:-}" \\
    "\${DESKTOP_SESSION:-}" > "$MARKER.tmp" && mv "$MARKER.tmp" "$MARKER"
i=0
while [ ! -e "$RELEASE" ] && [ \$i -lt $((TIMEOUT * 20)) ]; do sleep 0.1; i=\$((i + 1)); done
EOF
    chmod 0755 "$T/bin/xserver" "$T/bin/session-wrapper" "$T/bin/session"
    cp -a /usr/share/xsessions "$T/xsessions"
    printf '%s\n' '[Desktop Entry]' 'Name=SecureRoom e2e' "Exec=$T/bin/session" 'Type=Application' \
        > "$T/xsessions/$SESSION_NAME.desktop"
    chmod 0644 "$T/xsessions/$SESSION_NAME.desktop"
    bind_over "$T/xsessions" /usr/share/xsessions

    # --- /etc/lightdm: a copy, lightdm.conf replaced (Debian's defaults in
    #     /usr/share/lightdm/lightdm.conf.d still apply under it) ---
    cp -a /etc/lightdm "$T/lightdm"
    cat > "$T/lightdm/lightdm.conf" <<EOF
# Tests/e2e/greeter.sh (private mount namespace only)
[LightDM]
logind-check-graphical=false
minimum-display-number=$DISPLAY_NUMBER
log-directory=$T/log/lightdm
cache-directory=$T/cache

[Seat:*]
xserver-command=$T/bin/xserver
greeter-session=lightdm-gtk-greeter
user-session=$SESSION_NAME
session-wrapper=$T/bin/session-wrapper
EOF
    chmod 0644 "$T/lightdm/lightdm.conf"
    bind_over "$T/lightdm" /etc/lightdm

    # --- state directory and srgreet's PIN (the CLI reads the conf above: cheap argon2) ---
    set_pin "$PIN"

    # --- the system bus, then LightDM (as init would start them: clean environment,
    #     umask 022, a session of their own) ---
    start_system_bus /etc/dbus-1/system.d/org.freedesktop.DisplayManager.conf

    LOG=$T/log/lightdm/lightdm.log
    ( umask 022; exec setsid env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 lightdm -d ) \
        > "$T/log/lightdm.out" 2>&1 &
    LIGHTDM_PID=$!
}


# ---- LightDM and the greeter -----------------------------------------------------------
count_in() { if [ -f "$1" ]; then grep -cE -- "$2" "$1" || true; else echo 0; fi; }
lightdm_alive() { [ -n "$LIGHTDM_PID" ] && kill -0 "$LIGHTDM_PID" 2>/dev/null; }

# wait_until SECONDS CMD...: poll CMD every 0.1 s; 1 if it never held (or LightDM died).
wait_until() {
    local limit=$1 i; shift
    for (( i = 0; i < limit * 10; i++ )); do
        "$@" && return 0
        lightdm_alive || return 1
        sleep 0.1
    done
    return 1
}

# The greeter is ready for a user name when LightDM has started its authentication without
# a user (greeter-hide-users: PAM asks for the name) and sent it that prompt: the last of
# these lines is "Prompt greeter". The Nth greeter of the run: one per X server start.
greeter_ready() {
    [ "$(count_in "$LOG" 'DEBUG: Greeter start authentication$')" -ge "$1" ] || return 1
    grep -E 'DEBUG: (Greeter start authentication|Prompt greeter with)' "$LOG" | tail -n 1 \
        | grep -q 'Prompt greeter with' || return 1
    GREETER_PID=$(pgrep -n --ns $$ --nslist net -u lightdm -f "^$GREETER") || return 1
    # X: what the keys go to (LightDM rewrites the authority at each X server start), and
    # the greeter's window is up.
    read -r DISPLAY XAUTHORITY < "$T/log/xserver.display" || return 1
    export DISPLAY XAUTHORITY
    xdotool search --onlyvisible --classname lightdm-gtk-greeter >/dev/null 2>&1
}

# next_greeter NAME: waits for the next greeter (twice TIMEOUT: the X server and the
# greeter start), then puts gdb on it (its record: $T/log/NAME.show).
next_greeter() {
    GREETERS=$((GREETERS + 1))
    wait_until $((TIMEOUT * 2)) greeter_ready "$GREETERS" || return 1
    SHOW=$T/log/$1.show SHOW_MARK=0
    start_gdb "$SHOW" "$T/show.gdb" "$GREETER_PID"
}

# type_answer TEXT: what a user does: the text, then Return.
type_answer() {
    mark_show
    xdotool type --delay 40 -- "$1"
    xdotool key Return
}

# login_as NAME TAP: the user name into the greeter's name field, and Return. The greeter
# does not answer PAM's name prompt with it: it cancels that transaction (LightDM sends
# its session child SIGTERM) and asks for a new one for NAME, whose session child the
# conversation tap, armed first, follows. Waits until the greeter puts up its first prompt.
login_as() {
    arm_conversation "$2" || return 1
    type_answer "$1"
    CONV=$CONV_NEXT
    wait_until "$TIMEOUT" prompts_shown 1
}

session_started() { [ -s "$MARKER" ]; }
auth_failures() { count_in "$LOG" 'Authentication complete with return value 7: Authentication failure'; }
# refused_and_restarted N: LightDM's Nth "Authentication failure", and the greeter put up
# the prompt of the transaction it starts over with.
refused_and_restarted() { [ "$(auth_failures)" -ge "$1" ] && prompts_shown 1; }

# release_session: lets the session script end; LightDM then stops the X server and starts
# a new one with a new greeter. Waits for that greeter (next_greeter NAME).
release_session() {
    touch "$RELEASE"
    next_greeter "$1" || return 1
    rm -f "$RELEASE" "$MARKER"
}

# screenshot NAME: the root window as $T/shots/NAME.png (kept in $SR_E2E_SCREENSHOTS if set).
screenshot() {
    xwd -root -silent | "$CONVERT" xwd:- "png:$T/shots/$1.png" 2>/dev/null || return 0
    if [ -n "${SR_E2E_SCREENSHOTS:-}" ] && [ -d "$SR_E2E_SCREENSHOTS" ]; then
        cp "$T/shots/$1.png" "$SR_E2E_SCREENSHOTS/" || true
    fi
}

# ---- the taps (gdb) ----------------------------------------------------------------------
# The conversation: gdb on the LightDM daemon follows its next fork, the session child
# of the PAM transaction the greeter asks for (`lightdm --session-child`, exec'd), and
# stays with it (forks after the exec, such as the user's session, are left alone). A
# breakpoint at the entry of libpam's pam_vprompt(pamh, style, response, fmt, va_list),
# which pam_prompt, pam_error and pam_info all go through, prints "SR-TAP style=N" and,
# for the "%s" format they use, "SR-TAP text=...", read from the va_list (x86-64:
# gp_offset, fp_offset, overflow_arg_area, reg_save_area). Only libpam's symbols are
# loaded (at its load after the exec). gdb ends with the session child.
write_tap_scripts() {
    cat > "$T/conv.gdb" <<'GDB'
set pagination off
set confirm off
set width 0
handle SIGTERM SIGHUP SIGUSR1 SIGUSR2 SIGPIPE SIGALRM SIGCHLD nostop noprint pass
set follow-fork-mode child
set detach-on-fork on
set follow-exec-mode same
set breakpoint pending on
sharedlibrary libpam\.so
catch exec
commands
silent
set follow-fork-mode parent
continue
end
catch load libpam\.so
commands
silent
sharedlibrary libpam\.so
continue
end
break pam_vprompt
commands
silent
GDB
    vprompt_tap_lines >> "$T/conv.gdb"
    printf '%s\n' continue end 'echo SR-TAP-READY\n' continue >> "$T/conv.gdb"
    # The greeter: its message bar is the only label it sets with gtk_label_set_text
    # (set_message_label); gtk_entry_set_visibility is called once per prompt it puts up
    # (process_prompts; FALSE for a secret). Neither shows what the user typed.
    cat > "$T/show.gdb" <<'GDB'
set pagination off
set confirm off
set width 0
handle SIGTERM SIGHUP SIGUSR1 SIGUSR2 SIGPIPE SIGALRM SIGCHLD nostop noprint pass
sharedlibrary libgtk-3\.so
break gtk_label_set_text
commands
silent
if $rsi != 0
printf "SR-SHOW label=%s\n", (char *)$rsi
end
continue
end
break gtk_entry_set_visibility
commands
silent
printf "SR-SHOW prompt visible=%d\n", $rsi
continue
end
echo SR-TAP-READY\n
continue
GDB
}

# start_gdb LOG SCRIPT PID: gdb attached to PID; waits until its breakpoints are set.
start_gdb() {
    gdb -q -nx -batch -iex 'set auto-solib-add off' -x "$2" -p "$3" > "$1" 2>&1 &
    GDB_PIDS+=("$!")
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        grep -q '^SR-TAP-READY' "$1" 2>/dev/null && return 0
        kill -0 "$!" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# arm_conversation NAME: the conversation tap for the next PAM transaction, recorded in
# $T/log/NAME.conv (CONV_NEXT; it becomes CONV once the action that starts it is done).
arm_conversation() {
    CONV_NEXT=$T/log/$1.conv
    start_gdb "$CONV_NEXT" "$T/conv.gdb" "$LIGHTDM_PID"
}

# stop_taps: gdb ends with what it is attached to; one still waiting (on the daemon, or
# on a process that lives on) is interrupted (it then detaches, removing its
# breakpoints) and, last, killed.
stop_taps() {
    local pid i
    for pid in "${GDB_PIDS[@]}"; do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; continue; }
        kill -INT "$pid" 2>/dev/null || true
        for (( i = 0; i < 50; i++ )); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    GDB_PIDS=()
}

# The conversation of the current transaction, one item per line: "prompt TEXT" (echo
# off/on) or "error TEXT" / "info TEXT".
conversation() {
    [ -n "$CONV" ] && [ -f "$CONV" ] || return 0
    grep '^SR-TAP \(style\|text\)=' "$CONV" | awk '
        /^SR-TAP style=/ {
            sub(/^SR-TAP style=/, ""); s = ($0 == 1 || $0 == 2) ? "prompt" : ($0 == 3) ? "error" : "info"; next
        }
        /^SR-TAP text=/  { sub(/^SR-TAP text=/, ""); print s " " $0 }'
}
# What the greeter showed since the last answer was typed: "label TEXT" (its message
# bar) or "prompt secret" / "prompt visible".
mark_show() { SHOW_MARK=$( { grep -c '^SR-SHOW ' "$SHOW" 2>/dev/null || true; } ); }
shown() {
    [ -n "$SHOW" ] && [ -f "$SHOW" ] || return 0
    grep '^SR-SHOW ' "$SHOW" | tail -n "+$((SHOW_MARK + 1))" \
        | sed -e 's/^SR-SHOW label=/label /' -e 's/^SR-SHOW prompt visible=0$/prompt secret/' \
              -e 's/^SR-SHOW prompt visible=1$/prompt visible/'
}
prompts_shown() { [ "$(shown | grep -c '^prompt ')" -ge "$1" ]; }

said()  { conversation | grep -qE -- "$1"; }
# in_order LIST RE...: LIST (a function's output) has lines matching each RE, in this order.
in_order() {
    local re rest
    rest=$("$1"); shift
    for re in "$@"; do
        printf '%s\n' "$rest" | grep -qE -- "$re" || return 1
        rest=$(printf '%s\n' "$rest" | sed -nE "0,/$re/d; p")
    done
}
said_in_order()  { in_order conversation "$@"; }
shown_in_order() { in_order shown "$@"; }
# The message bar's text when the greeter put up its last prompt.
bar_at_prompt() {
    shown | awk '/^label / { l = substr($0, 7) } /^prompt / { p = l } END { print p }' \
        | grep -qE -- "$1"
}

# ---- checks ----------------------------------------------------------------------------
# words TEXT...: one check description from pieces (lines stay under 120 characters).
words() { printf '%s' "$*"; }

check_diagnostics() {
    echo "#   failures=$(failures_of) status: $(status_json)"
    echo "#   stack (lightdm; common-auth-pin): $STACK"
    echo "#   session marker: $(cat "$MARKER" 2>/dev/null || echo none)"
    echo "#   --- conversation (PAM, this transaction) ---"
    conversation | sed 's/^/#   | /'
    echo "#   --- greeter (since the last answer) ---"
    shown | sed 's/^/#   | /'
    echo "#   --- lightdm.log (VT warnings left out) ---"
    grep -v 'VT_' "$LOG" 2>/dev/null | tail -n 12 | sed 's/^/#   | /'
}

service_started() { grep -qF "Started with service '$1', username '$2'" "$LOG"; }
marker_is() { [ "$(cat "$MARKER" 2>/dev/null)" = "$1" ]; }
no_session() { [ ! -e "$MARKER" ] && ! pgrep --ns $$ --nslist net -u "$TEST_UID" >/dev/null; }
# LightDM's own record of the session, on the system bus: a session object whose
# UserName is USER.
dm_lists_session() {
    local path
    for path in $(timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DisplayManager \
                      /org/freedesktop/DisplayManager org.freedesktop.DBus.Properties.Get \
                      string:org.freedesktop.DisplayManager string:Sessions 2>/dev/null \
                  | grep -oE '/org/freedesktop/DisplayManager/Session[0-9]+'); do
        timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DisplayManager "$path" \
            org.freedesktop.DBus.Properties.Get string:org.freedesktop.DisplayManager.Session \
            string:UserName 2>/dev/null | grep -qF "\"$1\"" && return 0
    done
    return 1
}

inner_main() {
    setup_namespace
    write_tap_scripts
    local k fails=1
    local session="user=$TEST_USER uid=$TEST_UID display=:$DISPLAY_NUMBER desktop=$SESSION_NAME"
    # shellcheck disable=SC2034  # both are read by the check strings below, through eval
    local incorrect='^Incorrect PIN\. 2 attempts left before the PIN is disabled\.$'
    # shellcheck disable=SC2034  # read through eval, as above
    local generic='^label Your password is incorrect\. Please try again\.$'

    # --- 1. the right PIN at the greeter: a session -------------------------------------
    check "$(words "LightDM starts Xvfb on :$DISPLAY_NUMBER (xserver-command) and lightdm-gtk-greeter (PAM service" \
          "lightdm-greeter, as lightdm), which asks for a user name")" \
        all 'next_greeter g1' 'service_started lightdm-greeter lightdm' '[ "$DISPLAY" = ":$DISPLAY_NUMBER" ]'
    check "$(words "user name typed: LightDM starts PAM service lightdm for $TEST_USER; the first prompt is the" \
          "module's PIN: (echo off)")" \
        all "login_as $TEST_USER c1" "service_started lightdm $TEST_USER" \
            '[ "$(conversation | head -n 1)" = "prompt PIN: " ]'
    check "the greeter puts PIN: up as a bare secret field: no text of the prompt in its message bar" \
        all 'shown_in_order "^prompt secret$"' '! shown | grep -q "^label "'
    type_answer "$PIN"
    check "$(words "right PIN: LightDM starts the user session ($session); the module checked it as root" \
          "(helper= names no file)")" \
        all 'wait_until "$TIMEOUT" session_started' "marker_is '$session'"
    check "right PIN: no Password: asked, nothing counted (failures 0, last_success recorded)" \
        all '! said "^prompt Password"' 'failures_are 0' success_recorded
    check "LightDM lists the session on the system bus (org.freedesktop.DisplayManager, UserName $TEST_USER)" \
        dm_lists_session "$TEST_USER"

    # --- 2. a wrong PIN: refused, counted, its message on the greeter -------------------
    check "session ended: LightDM starts a new X server and greeter, which asks for a user name again" \
        release_session g2
    check "user name typed again: the first prompt is PIN:" \
        all "login_as $TEST_USER c2" '[ "$(conversation | head -n 1)" = "prompt PIN: " ]'
    type_answer "${WRONG_PINS[0]}"
    check "$(words "wrong PIN: refused and counted (failures 1); the stack goes on: 'Incorrect PIN. 2 attempts" \
          "left...' (PAM_ERROR_MSG), then pam_unix's Password:")" \
        all 'wait_until "$TIMEOUT" prompts_shown 1' 'failures_are 1' \
            'said_in_order "^prompt PIN: ?$" "^error ${incorrect#^}" "^prompt Password: ?$"'
    screenshot wrong-pin
    check "$(words "wrong PIN: the greeter shows the module's message in its message bar while it waits at" \
          "Password: (screenshot wrong-pin.png)")" \
        all 'shown_in_order "^label ${incorrect#^}" "^prompt secret$"' 'bar_at_prompt "$incorrect"'
    arm_conversation c3-1 || true          # the transaction the greeter starts over with
    type_answer "$WRONG_PASSWORD"
    check "wrong password at Password:: authentication fails (LightDM: 'Authentication failure'), no session" \
        all 'wait_until "$TIMEOUT" refused_and_restarted 1' no_session
    CONV=$CONV_NEXT
    check "$(words "then the greeter shows its own 'Your password is incorrect. Please try again.' and starts" \
          "over for $TEST_USER (a new PAM transaction: PIN:)")" \
        all 'shown_in_order "$generic" "^prompt secret$"' 'wait_until "$TIMEOUT" said "^prompt PIN: ?$"'
    check "the wrong password is pam_unix's: the module still counts 1 (failures 1)" failures_are 1

    # --- 3. lockout: the greeter gets the lockout message, the password logs in ---------
    for (( k = 2; k <= DENY; k++ )); do
        type_answer "${WRONG_PINS[$((k - 1))]}"
        check "$(words "lockout: wrong PIN $k/$DENY refused and counted (failures $k); the greeter shows" \
              "'Incorrect PIN...' at Password:")" \
            all 'wait_until "$TIMEOUT" prompts_shown 1' "failures_are $k" \
                'said_in_order "^prompt PIN: ?$" "^error Incorrect PIN\." "^prompt Password: ?$"' \
                'bar_at_prompt "^Incorrect PIN\."'
        arm_conversation "c3-$k" || true
        type_answer "$WRONG_PASSWORD"
        fails=$((fails + 1))
        check "lockout: wrong password $k/$DENY: 'Authentication failure', no session, the greeter starts over" \
            all "wait_until \"\$TIMEOUT\" refused_and_restarted $fails" no_session
        CONV=$CONV_NEXT
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" all pin_disabled "failures_are $DENY"
    screenshot pin-disabled
    check "$(words "PIN disabled: the module asks no PIN; the lockout message (PAM_ERROR_MSG 'PIN disabled after" \
          "$DENY failed attempts...'), then pam_unix's Password:")" \
        all 'wait_until "$TIMEOUT" said "^prompt Password: ?$"' '! said "^prompt PIN"' \
            "said_in_order '^error PIN disabled after $DENY failed attempts' '^prompt Password: ?\$'"
    check "$(words "PIN disabled: the greeter shows the lockout message in its message bar at Password:" \
          "(screenshot pin-disabled.png)")" \
        bar_at_prompt "^PIN disabled after $DENY failed attempts"
    type_answer "$PASSWORD"
    check "PIN disabled: the password typed at Password: starts the session as $TEST_USER" \
        all 'wait_until "$TIMEOUT" session_started' "marker_is '$session'"
    check "PIN disabled: the password is not a PIN: the PIN stays disabled (failures $DENY)" \
        all pin_disabled "failures_are $DENY"
    touch "$RELEASE"

    COMPLETE=1
}

e2e_main
