#!/usr/bin/env bash
# Tests/e2e/kde.sh — end-to-end test of the PIN at KDE Plasma's lock screen: Plasma 6.3's
# kscreenlocker_greet (Debian 13 "trixie", libkscreenlocker6) on Xvfb, typed into with
# xdotool, read through its accessibility tree (AT-SPI), in a booted Debian container
# (systemd-nspawn). The greeter runs PAM as the user, so the PIN is checked by the setuid
# secureroom-helper; the stack is the one field of `pin_or_password`.
#
# What it proves
#   * the administrator's file wins: /etc/pam.d/kde (a copy of the /usr/lib/pam.d/kde
#     that libkscreenlocker6 ships, its `@include common-auth` replaced by the four lines
#     of the shipped pam/kde) is what the greeter's service kde runs (Linux-PAM 1.7
#     reads /etc/pam.d before /usr/lib/pam.d): its first prompt is the module's "PIN or
#     password: ", /usr/lib/pam.d/kde is left as the package shipped it (dpkg --verify),
#     and no package owns /etc/pam.d/kde;
#   * the right PIN unlocks with one Enter: one prompt, `kscreenlocker_greet --testing`
#     exits 0, the module logs "PIN accepted" (through the helper), nothing is counted and
#     pam_unix logs nothing;
#   * the password typed in the same field unlocks with one Enter too (one prompt, the
#     module hands it to pam_unix as PAM_AUTHTOK: nothing counted, no PIN check logged).
#     The helper, which the module starts before it prompts, then ends without a PIN; it
#     logs that the request was withdrawn (info), never a refusal;
#   * a wrong password: the greeter's own "Unlocking failed", nothing counted, and
#     pam_unix logs its "authentication failure" for the user (so the journal does show
#     pam_unix's refusals here: the checks below that it logged none mean it did not run);
#   * a wrong PIN: refused with one Enter, counted once (failures 1); the greeter shows
#     the module's "Incorrect PIN. 2 attempts left before the PIN is disabled." above
#     its "Unlocking failed", stays up, and asks again; the module logs the wrong PIN and
#     pam_unix logs nothing (auth_err=die: never tried as the password); then the
#     password unlocks with one Enter, the count stays;
#   * Enter on the empty field: the module lets it pass (nothing counted), pam_unix asks
#     its own "Password: " in the same attempt, with nothing new on screen; the password
#     then unlocks;
#   * lockout (deny=3, schedule= empty): three distinct wrong PINs, each counted and each
#     message shown (the third: "Incorrect PIN. PIN disabled after 3 failed attempts;
#     ask an administrator."); then the module no longer asks: the greeter shows "PIN
#     disabled after 3 failed attempts; ask an administrator." and the prompt is
#     pam_unix's "Password: "; the right PIN typed there is refused by pam_unix (logged)
#     and not counted; the password unlocks; the PIN stays disabled;
#   * what the user sees, for the documentation: the field's only text is its placeholder
#     "Password", whatever the prompt ("PIN or password: " or "Password: ": the greeter
#     logs it, never shows it); error and info messages show above the field; after a
#     failure the field is disabled for about 3 s (the greeter's grace timer) before the
#     next attempt;
#   * nothing outside the container changed (no test user, no leftover nspawn state or
#     processes, the work directory gone).
#
# How
#   The outer run (root, lib.sh) makes the container's root in $T/root from a Debian 13
#   root image: mmdebstrap with systemd, libpam-systemd, dbus, libkscreenlocker6 (the
#   greeter), plasma-workspace and plasma-desktop (the Breeze lock screen's QML, in
#   /usr/share/plasma/shells/org.kde.plasma.desktop; without it the greeter falls back to
#   its built-in theme), Mesa's software GL, xvfb, xdotool, at-spi2-core,
#   python3-pyatspi, x11-apps and the libraries the module and tool link, without
#   recommends (about 1.4 GB), kept as a tarball under $SR_E2E_IMAGES (named by a digest of
#   release, mirror, package list and month). Into that root it installs the module, its
#   core and the setuid helper where the package puts them (/usr/lib/<triplet>/security,
#   ../secureroom, /usr/sbin/secureroom-helper 4755), the test user srkde (a real SHA-512
#   password), /etc/pam.d/kde as above, /etc/security/secureroom.conf (the default state
#   directory, cheap argon2, deny=3, schedule= empty) and a unit that runs this script's
#   inner run at boot and powers the container off when it ends. Then `systemd-nspawn
#   --boot` (as Tests/e2e/polkit-agent.sh does) with $T bound read-write and the checkout
#   read-only; the inner run's output is $T/inner.log, shown after.
#   The inner run (root in the container) sets the PIN and opens srkde's session
#   (systemd-run --uid=srkde -p PAMName=login): Xvfb, a D-Bus session bus with the
#   accessibility bus started, and `kscreenlocker_greet --testing` (the greeter without
#   the locker daemon; exits 0 once unlocked) for each name written to a fifo, with
#   QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (its tree on AT-SPI) and its debug log on
#   (QT_LOGGING_RULES=kscreenlocker_greet.debug=true: each conversation item, "Echo-off
#   prompt: ...", "Error message: ...", "Authentication done, result code: N"). Before each
#   answer the script waits for the greeter's next prompt in that log and for the field to
#   be enabled (AT-SPI), since the greeter drops an answer given while no prompt waits;
#   then `xdotool type` and Return. What the screen shows comes from
#   Tests/e2e/atspi-dialog.py --fields (as srkde on that bus); counters from `secureroom status
#   --json`; the module's and pam_unix's lines from the journal.
#   "# time:" lines give the figures: the image (made once), unpacking the root, the boot
#   and the whole inner run, each greeter's start and each answer's outcome.
#   Helpers of its own (lib.sh is shared, not changed): image_path/make_image/make_root
#   the container hooks (container.sh), now_ms/elapsed (timings), greeter_open,
#   wake, await_prompt, answer, outcome, greeter_pids/greeter_close, screen/wait_screen,
#   journal_mark/journal_new/pam_unix_ran/pin_checked/helper_note, screenshot.
#
# Usage (root):  Tests/e2e/kde.sh
#   SECUREROOM_MODULE, SECUREROOM_CLI   as for the other e2e tests (lib.sh)
#   SECUREROOM_HELPER  setuid helper, installed in the container (default
#                      <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each greeter state, prompt or exit (default 15)
#   SR_E2E_IMAGES      where the root image is kept (default <repo>/.build/e2e-images)
#   SR_E2E_MIRROR      the Debian mirror (default http://deb.debian.org/debian)
#   SR_E2E_SCREENSHOTS a directory to keep screenshots in (PNG; needs ImageMagick's convert)
#   Needs systemd-nspawn (systemd-container), mmdebstrap (and the network, the first time in
#   a month, unless the image is there), python3 or openssl (the password's hash), /tmp
#   without nosuid, and lib.sh's tools; nothing of KDE on the host.
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=Tests/e2e/container.sh
. "$(dirname "$0")/container.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
PIN=6193                          # passes the CLI's policy (not a sequence, not blocklisted)
PASSWORD='Harbour-Violet-47q'     # srkde's real password (inside the container only)
WRONG_PASSWORD='not-the-password'
WRONG_PIN=1357
LOCKOUT_PINS=(2468 8024 9150)     # distinct, and not WRONG_PIN: a repeated wrong PIN is not counted
DENY=3
TEST_USER=srkde
TEST_UID=4320                     # not used by another e2e test (they may run at the same time)
DISPLAY_NUMBER=:7
STATE=/var/lib/secureroom         # the module's default dir=, in the container
SERVICE_HELPER=/usr/sbin/secureroom-helper   # where the package puts the helper
RELEASE=trixie                    # Plasma 6.3
IMAGE_KIND=kde
IMAGE_PACKAGES=systemd,systemd-sysv,libpam-systemd,login,dbus,dbus-user-session,libkscreenlocker6,plasma-workspace,plasma-desktop,libgl1-mesa-dri,xvfb,xdotool,at-spi2-core,python3-pyatspi,x11-apps,libargon2-1,libsqlite3-0,libkeyutils1,libssl3t64,procps
GREETER_PACKAGE=libkscreenlocker6
GREETER_NAME=kscreenlocker_greet
# The greeter's debug line for each prompt of the service kde (not of its fingerprint and
# smartcard services, which it runs alongside).
PROMPT_MARK='[PAM worker kde] Message: Echo-off prompt: '

E2E_PREFIX=sr-kde
E2E_ROOT_REASON="it boots a container with systemd-nspawn"
E2E_INNER_WHERE="the container"
E2E_TOOLS+=(systemd-nspawn mmdebstrap tar timeout findmnt)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
# What the container's root replaces (a path gone wrong would write the host's instead).
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/security/secureroom.conf /etc/pam.d/kde /usr/lib/pam.d/kde
         /usr/sbin/secureroom-helper)
GUARDED_DIRS=(/etc/pam.d /etc/security /etc/systemd/system)
E2E_GUARDED_DESC="${#GUARDED[@]} files; pam.d, security, systemd/system dirs"
E2E_LEFTOVERS_OK="no work directory, container root or nspawn state left behind"
E2E_LEFTOVERS_BAD="the work directory %s or nspawn state left behind"

# now_ms: milliseconds since the epoch; elapsed START_MS: seconds since then ("1.234").
now_ms() { date +%s%3N; }
elapsed() { local d=$(( $(now_ms) - $1 )); printf '%d.%03d' $((d / 1000)) $((d % 1000)); }

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
MACHINE="sr-kde-$$"
OUTER_START=$(now_ms)

outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
    [ -f "$REPO/Tests/e2e/atspi-dialog.py" ] || die "Tests/e2e/atspi-dialog.py not found"
    image_path
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    container_header
}
# Processes of the test: those of the test user's uid (the container shares the host's
# uids). The container's own end with its PID namespace.
test_processes() {
    namespace_processes "$TEST_UID"
    return 0
}
outer_checks() {
    tally_none_left "no process of the test user (Xvfb, greeter, buses) left running" \
                    "processes of the container's session left running"
    # Screenshots (xwd, made in the container) as PNG, if asked for.
    local f
    if [ -n "${SR_E2E_SCREENSHOTS:-}" ] && [ -d "$SR_E2E_SCREENSHOTS" ] && command -v convert >/dev/null; then
        for f in "$T"/shots/*.xwd; do
            [ -f "$f" ] || continue
            convert "xwd:$f" "png:$SR_E2E_SCREENSHOTS/kde-$(basename "$f" .xwd).png" 2>/dev/null || true
        done
    fi
    echo "# time: $(elapsed "$OUTER_START") s from the start to the outer checks (then the container root is removed)"
}

# The container's root: the image, the module, its core and the helper where the package
# puts them, the test user, /etc/pam.d/kde as an administrator writes it, the policy, the
# AT-SPI reader, and the unit that runs the inner run.
make_root() {
    local root=$T/root start
    start=$(now_ms)
    unpack_image "$root"
    [ -f "$root/usr/lib/pam.d/kde" ] || die "the image has no /usr/lib/pam.d/kde ($GREETER_PACKAGE)"
    grep -qx '@include common-auth' "$root/usr/lib/pam.d/kde" \
        || die "/usr/lib/pam.d/kde has no '@include common-auth' line"
    [ -d "$root/usr/share/plasma/shells/org.kde.plasma.desktop/contents/lockscreen" ] \
        || die "the image has no Breeze lock screen (plasma-desktop)"
    install_module "$root"
    install -m 4755 -o root -g root "$SECUREROOM_HELPER" "$root$SERVICE_HELPER" \
        || die "could not install the helper into the container's root"
    chroot "$root" useradd --create-home --uid "$TEST_UID" --comment "SecureRoom e2e (KDE lock screen)" \
        --shell /bin/bash "$TEST_USER" || die "useradd $TEST_USER in the container's root failed"
    chroot "$root" usermod --password "$(hash_password "$PASSWORD")" "$TEST_USER" \
        || die "usermod --password $TEST_USER in the container's root failed"

    printf '%s\n' "# generated by $E2E_NAME (container only)" \
        "tpm = off" "argon2_memory = 256" "argon2_time = 1" "argon2_lanes = 1" \
        "argon2_below_floor" "deny = $DENY" "schedule =" > "$root/etc/security/secureroom.conf"
    # What the administrator does: the shipped pam/kde, which is /usr/lib/pam.d/kde with
    # its "@include common-auth" replaced by the one field's lines (checked: the image's
    # file, comments left out, is the shipped one with those lines put back as the
    # include), copied to /etc/pam.d/kde. The module lies where pam_unix.so does and the
    # helper at its default path, so the file works as shipped.
    local base=$root/usr/lib/pam.d/kde shipped=$REPO/pam/kde
    [ -f "$base" ] && [ "$(grep -cx '@include common-auth' "$base")" = 1 ] \
        || die "the image's /usr/lib/pam.d/kde has no single '@include common-auth' line"
    diff <(grep -vE '^[[:space:]]*#' "$base") \
        <(sed '/pam_secureroom\.so pin_or_password/,/pam_permit\.so/c\@include common-auth' "$shipped" \
            | grep -vE '^[[:space:]]*#') >/dev/null \
        || die "pam/kde is not the image's /usr/lib/pam.d/kde with the one field for its @include common-auth"
    install -m 0644 "$shipped" "$root/etc/pam.d/kde"
    # The AT-SPI reader, where srkde can run it whatever the checkout's modes.
    install -d -m 0755 "$T/bin"
    install -m 0755 "$REPO/Tests/e2e/atspi-dialog.py" "$T/bin/atspi-dialog.py"

    inner_unit "$root" "Environment=\"SR_E2E_SCREENSHOTS=${SR_E2E_SCREENSHOTS:-}\""
    echo "# time: container root unpacked and set up in $(elapsed "$start") s ($(du -sm "$root" | cut -f1) MB;" \
        "image $(( $(stat -c %s "$IMAGE") / 1048576 )) MB)"
}

outer_launch() {
    make_image
    make_root
    # Each inner wait is TIMEOUT at most.
    boot_container $((TIMEOUT * 60))
}

# ---------------------------------------------------------------------------------------
# Inner run (root in the booted container).
# ---------------------------------------------------------------------------------------
SESSION='' BUS='' NAME='' GLOG='' OUTCOME='' RC='' SCREEN='' CURSOR='' STEP_START=0
PROMPTS=0 FAILS=0 PROMPT=''
GREETER=

journal() { journalctl --quiet --no-pager "$@" 2>/dev/null || true; }
# journal_mark: remember the journal's end; journal_new: its lines since then (with the
# identifier: "pam_unix(kde:auth): ...", "secureroom-helper[PID]: ...").
journal_mark() { CURSOR=$(journal -n 0 --show-cursor | sed -n 's/^-- cursor: //p'); }
journal_new() {
    sleep 0.3   # a datagram to journald just sent
    if [ -n "$CURSOR" ]; then journal -o short --after-cursor="$CURSOR"; else journal -o short; fi
}
journal_has() { journal_new | grep -E -- "$1" >/dev/null; }
# pam_unix_ran: pam_unix or its unix_chkpwd logged something since the mark.
pam_unix_ran() { journal_has 'pam_unix\(kde:auth\)|unix_chkpwd'; }
module_logged() { journal_has "secureroom.*$1"; }
# pin_checked: the module or the helper logged a PIN check since the mark.
pin_checked() { journal_has 'secureroom.*(PIN accepted|wrong PIN|authentication failure)'; }
# helper_note: the helper's own lines since the mark, shown as a note (with pin_or_password
# the module starts the helper before it prompts; an answer that is not a PIN ends that
# helper without one, which it logs as withdrawn).
helper_note() {
    local lines
    lines=$(journal_new | grep -E 'secureroom-helper\[' | sed 's/^.*secureroom-helper\[[0-9]*\]: //' | sort -u)
    [ -z "$lines" ] || printf '# note: %s: the helper logged: %s\n' "$NAME" "$lines"
}

x() { DISPLAY=$DISPLAY_NUMBER XAUTHORITY='' timeout 5 xdotool "$@"; }
# screen: the greeter as AT-SPI shows it (lines "label<TAB>TEXT", "field<TAB>...").
screen() {
    [ -n "$BUS" ] || return 0
    timeout 5 setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DBUS_SESSION_BUS_ADDRESS="$BUS" DISPLAY="$DISPLAY_NUMBER" \
        "$T/bin/atspi-dialog.py" --fields "$GREETER_NAME" 2>/dev/null || true
}
# wait_screen RE: until a line of the screen matches RE (up to TIMEOUT); SCREEN keeps it.
wait_screen() {
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        SCREEN=$(screen)
        grep -qE -- "$1" <<< "$SCREEN" && return 0
        sleep 0.2
    done
    return 1
}
# shows TEXT: the last screen kept had the label TEXT, exactly.
shows() { grep -qxF "label	$1" <<< "$SCREEN"; }
field_is() { grep -qxF "field	$1" <<< "$SCREEN"; }
# screenshot NAME: the display as $T/shots/NAME.xwd (PNG in SR_E2E_SCREENSHOTS, after; the
# inner run only reads whether that is set).
screenshot() {
    [ -n "${SR_E2E_SCREENSHOTS:-}" ] || return 0
    install -d -m 0755 "$T/shots"
    DISPLAY=$DISPLAY_NUMBER XAUTHORITY='' timeout 10 xwd -root -silent > "$T/shots/$1.xwd" 2>/dev/null || true
}

# The session: Xvfb, a session bus with the accessibility bus, and a greeter for each
# line "NAME" in the fifo (its log $T/io/NAME.log, its status $T/io/NAME.rc).
session_script() {
    cat <<SCRIPT
Xvfb $DISPLAY_NUMBER -screen 0 1024x768x24 -nolisten tcp > $T/io/xvfb.log 2>&1 &
export DISPLAY=$DISPLAY_NUMBER
for i in \$(seq $((TIMEOUT * 10))); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
echo "\$XDG_SESSION_ID" > $T/io/session
exec dbus-run-session -- bash -c '
dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress > $T/io/a11y 2>&1
echo "\$DBUS_SESSION_BUS_ADDRESS" > $T/io/bus.new && mv $T/io/bus.new $T/io/bus
export LANG=C.UTF-8 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_LOGGING_RULES=kscreenlocker_greet.debug=true
while read -r name; do
    $GREETER --testing > $T/io/\$name.log 2>&1
    echo \$? > $T/io/\$name.rc.new && mv $T/io/\$name.rc.new $T/io/\$name.rc
done < $T/io/requests'
SCRIPT
}

start_session() {
    local deadline
    install -d -m 1777 "$T/io"
    mkfifo -m 0622 "$T/io/requests"
    chown "$TEST_UID:$TEST_UID" "$T/io/requests"
    session_script > "$T/session.sh"
    chmod 0644 "$T/session.sh"
    systemd-run --quiet --unit=secureroom-e2e-session --uid="$TEST_UID" --property=PAMName=login \
        --setenv=XDG_SESSION_TYPE=x11 --setenv=XDG_SESSION_CLASS=user /bin/bash "$T/session.sh" \
        || die "systemd-run of $TEST_USER's session failed"
    exec 9<>"$T/io/requests"     # read-write: opening never waits for the session's reader
    deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ] && [ ! -s "$T/io/bus" ]; do sleep 0.1; done
    SESSION=$(cat "$T/io/session" 2>/dev/null || true)
    BUS=$(cat "$T/io/bus" 2>/dev/null || true)
}

# ---- the greeter -----------------------------------------------------------------------
log_count() { grep -cF -- "$1" "$GLOG" 2>/dev/null || true; }
greeter_rc() { cat "$T/io/$NAME.rc" 2>/dev/null || true; }
greeter_running() { [ -z "$(greeter_rc)" ]; }
greeter_window() { x search --onlyvisible --class "$GREETER_NAME" 2>/dev/null | tail -n 1; }

# greeter_open NAME: a new greeter; waits (up to TIMEOUT) for its window and its tree, and
# wakes its UI (a key; the lock screen hides the field until then).
greeter_open() {
    NAME=$1 GLOG=$T/io/$1.log PROMPTS=0 FAILS=0 OUTCOME='' RC='' PROMPT='' SCREEN=''
    STEP_START=$(now_ms)
    journal_mark
    echo "$NAME" >&9
    wait_screen '^label	' || true
    wake
    wait_screen '^field	' || true
    echo "# time: $NAME: greeter up, field shown after $(elapsed "$STEP_START") s"
}

# wake: a Shift (types nothing) into the greeter's window: it shows its field on a key,
# and hides it again 10 s after (the lock screen's fade-out).
wake() {
    local window
    window=$(greeter_window)
    [ -n "$window" ] && x windowfocus --sync "$window" >/dev/null 2>&1 || true
    x key shift >/dev/null 2>&1 || true
}

# await_prompt: waits (up to TIMEOUT) for the greeter's next prompt (its log's next
# "Echo-off prompt: TEXT"; PROMPT = TEXT) and for the field to be enabled and empty.
await_prompt() {
    local deadline=$((SECONDS + TIMEOUT)) n
    while [ "$SECONDS" -lt "$deadline" ]; do
        n=$(log_count "$PROMPT_MARK")
        if [ "$n" -gt "$PROMPTS" ]; then
            SCREEN=$(screen)
            if grep -qE '^field	.*	sensitive	0$' <<< "$SCREEN"; then
                PROMPTS=$n
                PROMPT=$(grep -F -- "$PROMPT_MARK" "$GLOG" | sed -n "${n}p")
                PROMPT=${PROMPT#*"$PROMPT_MARK"}
                return 0
            fi
            grep -q '^field	' <<< "$SCREEN" || wake
        fi
        greeter_running || return 1
        sleep 0.1
    done
    return 1
}

# answer TEXT: at the next prompt, TEXT (if any) and Return, then the outcome: unlocked
# (the greeter exited 0), exited (another status), refused (the greeter's "Failure from
# interactive authenticator"), asked (another prompt in the same attempt) or timeout.
# SCREEN: the greeter after a refusal (once its "Unlocking failed" shows).
answer() {
    local start window
    if ! await_prompt; then OUTCOME=noprompt; return 0; fi
    start=$(now_ms)
    window=$(greeter_window)
    [ -n "$window" ] && x windowfocus --sync "$window" >/dev/null 2>&1 || true
    [ -z "$1" ] || x type --delay 20 -- "$1"
    x key Return
    outcome
    if [ "$OUTCOME" = refused ]; then wait_screen '^label	Unlocking failed$' || true; fi
    echo "# time: $NAME: answer #$PROMPTS to '$PROMPT' -> $OUTCOME in $(elapsed "$start") s"
}
outcome() {
    local deadline=$((SECONDS + TIMEOUT)) failures
    OUTCOME=timeout
    while [ "$SECONDS" -lt "$deadline" ]; do
        RC=$(greeter_rc)
        if [ -n "$RC" ]; then
            OUTCOME=exited
            [ "$RC" = 0 ] && grep -q '^Unlocked' "$GLOG" && OUTCOME=unlocked
            return 0
        fi
        failures=$(log_count "Failure from interactive authenticator")
        if [ "$failures" -gt "$FAILS" ]; then FAILS=$failures OUTCOME=refused; return 0; fi
        if [ "$(log_count "$PROMPT_MARK")" -gt "$PROMPTS" ]; then OUTCOME=asked; return 0; fi
        sleep 0.1
    done
}
# greeter_close: ends a greeter still up (a failed case) and waits for its status.
greeter_close() {
    local deadline=$((SECONDS + TIMEOUT))
    greeter_running || return 0
    local pid
    for pid in $(greeter_pids); do kill -TERM "$pid" 2>/dev/null || true; done
    while [ "$SECONDS" -lt "$deadline" ] && greeter_running; do sleep 0.1; done
}

outcome_is() { [ "$OUTCOME" = "$1" ]; }
prompts_are() { [ "$PROMPTS" = "$1" ]; }
prompt_is() { [ "$PROMPT" = "$1" ]; }
still_up() { sleep 0.5; greeter_running && [ -n "$(greeter_window)" ]; }
# logged TEXT: the greeter logged the conversation item TEXT ("Error message: ...").
logged() { grep -qF -- "[PAM worker kde] Message: $1" "$GLOG" 2>/dev/null; }

# greeter_pids: the greeters running (as srkde: by the program they run).
greeter_pids() {
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/exe" 2>/dev/null)" = "$GREETER" ] && echo "${p#/proc/}"
    done
    return 0
}
# The greeter runs as srkde (the helper checks the PIN, not the greeter).
greeter_runs_as_user() {
    local pid
    pid=$(greeter_pids | head -n 1)
    [ -n "$pid" ] && [ "$(awk '/^Uid:/ { print $2 $3 }' "/proc/$pid/status")" = "$TEST_UID$TEST_UID" ]
}
# The administrator's /etc/pam.d/kde, and the package's /usr/lib/pam.d/kde unchanged.
admin_file_in_place() {
    [ -f /etc/pam.d/kde ] && ! dpkg-query -S /etc/pam.d/kde >/dev/null 2>&1 \
        && [ -f /usr/lib/pam.d/kde ] && dpkg-query -S /usr/lib/pam.d/kde 2>/dev/null | grep -q "^$GREETER_PACKAGE:" \
        && [ -z "$(dpkg --verify "$GREETER_PACKAGE" 2>&1 | grep -F /usr/lib/pam.d/kde)" ]
}

check_diagnostics() {
    echo "#   greeter=$NAME outcome=$OUTCOME rc=${RC:-} prompts=$PROMPTS prompt='$PROMPT'"
    echo "#   status: $(status_json | tr -d '\n')"
    echo "#   --- greeter at the last look ---"
    printf '%s\n' "$SCREEN" | sed 's/^/#   | /'
    echo "#   --- greeter's conversation (its log) ---"
    grep -E 'Message: |result code|Unlocked' "$GLOG" 2>/dev/null | tail -n 12 | sed 's/^/#   | /' || true
    echo "#   --- journal since the greeter started (pam, secureroom) ---"
    journal_new | grep -E 'pam_|secureroom|unix_chkpwd' | tail -n 8 | sed 's/^/#   | /' || true
}

inner_stop() {
    systemctl stop secureroom-e2e-session.service >/dev/null 2>&1 || true
}

inner_main() {
    [ "$(cat /proc/1/comm)" = systemd ] && [ -d /run/systemd/system ] \
        || die "the inner run belongs in the booted container (PID 1 is $(cat /proc/1/comm))"
    local k d start told
    start=$(now_ms)
    GREETER=$(dpkg-query -L "$GREETER_PACKAGE" | grep "/$GREETER_NAME\$" | head -n 1)
    [ -x "$GREETER" ] || die "no $GREETER_NAME in $GREETER_PACKAGE"
    CLI_CONF=/etc/security/secureroom.conf
    set_pin "$PIN"
    start_session
    echo "# $GREETER_PACKAGE $(dpkg-query -W -f='${Version}' "$GREETER_PACKAGE"), plasma-desktop" \
        "$(dpkg-query -W -f='${Version}' plasma-desktop), linux-pam $(dpkg-query -W -f='${Version}' libpam0g)"
    echo "# time: session (Xvfb, buses) up in $(elapsed "$start") s after boot"

    # --- a. the right PIN ------------------------------------------------------------------
    greeter_open a
    d="the greeter shows only the placeholder 'Password' in its field, no prompt text"
    check "$d ($GREETER_NAME --testing as $TEST_USER, session ${SESSION:-?}, on Xvfb; read through AT-SPI)" \
        all 'field_is "Password	sensitive	0"' '! grep -qi "PIN" <<< "$SCREEN"' greeter_runs_as_user
    answer "$PIN"
    d="the service kde runs the administrator's /etc/pam.d/kde (no package owns it; /usr/lib/pam.d/kde unchanged)"
    check "$d: first prompt 'PIN or password: '" \
        all 'prompt_is "PIN or password: "' admin_file_in_place
    check "right PIN: one prompt, one Enter, the greeter unlocks (exits 0)" \
        all 'outcome_is unlocked' 'prompts_are 1'
    check "right PIN: checked through the setuid helper ('PIN accepted' logged), nothing counted, pam_unix not run" \
        all 'module_logged "PIN accepted for $TEST_USER"' 'failures_are 0' success_recorded '! pam_unix_ran'
    greeter_close

    # --- c. the password in the same field ----------------------------------------------------
    greeter_open c
    answer "$PASSWORD"
    check "password in the field: one prompt ('PIN or password: '), one Enter, the greeter unlocks (exits 0)" \
        all 'outcome_is unlocked' 'prompts_are 1' 'prompt_is "PIN or password: "'
    check "password in the field: nothing counted, no PIN check logged (no 'PIN accepted', 'wrong PIN' or failure)" \
        all 'failures_are 0' '! module_logged "$TEST_USER"' '! pin_checked'
    check "password in the field: the helper logged its request withdrawn, no refusal" \
        all 'journal_has "secureroom-helper.*withdrew before sending a PIN"' '! journal_has "secureroom-helper.*refused"'
    helper_note
    greeter_close

    # --- e. a wrong password (what pam_unix's refusal looks like, here) -----------------------
    greeter_open e
    answer "$WRONG_PASSWORD"
    screenshot wrong-password
    check "wrong password: refused; the greeter shows its own 'Unlocking failed' only, and stays up" \
        all 'outcome_is refused' 'shows "Unlocking failed"' '! grep -q "^label	Incorrect PIN" <<< "$SCREEN"' still_up
    check "wrong password: not counted; pam_unix logs its refusal for $TEST_USER (the journal shows pam_unix's runs)" \
        all 'failures_are 0' 'journal_has "pam_unix\\(kde:auth\\): authentication failure.*user=$TEST_USER"'
    helper_note
    answer "$PASSWORD"
    check "after a wrong password: the password unlocks with one Enter" \
        all 'outcome_is unlocked' 'prompts_are 2'
    greeter_close

    # --- b. a wrong PIN, then the password ------------------------------------------------------
    greeter_open b
    answer "$WRONG_PIN"
    screenshot wrong-pin
    told=$(incorrect_pin_text 1)
    check "wrong PIN: refused with one Enter; the greeter shows '$told', then 'Unlocking failed'" \
        all 'outcome_is refused' 'prompts_are 1' 'shows "$told"' 'shows "Unlocking failed"' \
            'logged "Error message: $told"'
    check "wrong PIN: counted once (failures 1), logged by the module; never tried as the password (pam_unix not run)" \
        all 'failures_are 1' 'module_logged "wrong PIN"' '! pam_unix_ran'
    journal_mark
    answer "$PASSWORD"
    d="wrong PIN: the greeter stayed up and asked again ('PIN or password: ')"
    check "$d; the password unlocks with one Enter" \
        all 'outcome_is unlocked' 'prompts_are 2' 'prompt_is "PIN or password: "'
    check "after a wrong PIN, the password: nothing more counted (failures 1)" failures_are 1
    helper_note
    greeter_close

    # --- f. Enter on the empty field ----------------------------------------------------------
    greeter_open f
    answer ""
    check "Enter on the empty field: nothing counted; pam_unix asks its own 'Password: ' in the same attempt" \
        all 'outcome_is asked' 'failures_are 1' '! module_logged "$TEST_USER"'
    SCREEN=$(screen)
    check "Enter on the empty field: the greeter shows no message, only the field 'Password'" \
        all '! grep -q "^label	.*PIN" <<< "$SCREEN"' 'field_is "Password	sensitive	0"'
    answer "$PASSWORD"
    check "Enter on the empty field: then the password unlocks (second Enter)" \
        all 'outcome_is unlocked' 'prompts_are 2' 'prompt_is "Password: "'
    greeter_close

    # --- d. lockout ------------------------------------------------------------------------------
    reset_pin
    greeter_open d
    for (( k = 1; k <= DENY; k++ )); do
        told=$(incorrect_pin_text "$k")
        journal_mark
        answer "${LOCKOUT_PINS[$((k - 1))]}"
        check "lockout: wrong PIN $k/$DENY refused, counted (failures $k), '$told' shown, pam_unix not run" \
            all 'outcome_is refused' "failures_are $k" 'shows "$told"' '! pam_unix_ran' still_up
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled
    journal_mark
    await_prompt || true
    wait_screen "^label	PIN disabled after $DENY failed attempts; ask an administrator.\$" || true
    screenshot lockout-message
    d="PIN disabled: the greeter shows 'PIN disabled after $DENY failed attempts; ask an administrator.'"
    check "$d; the prompt is pam_unix's 'Password: ' (field still 'Password')" \
        all 'shows "PIN disabled after $DENY failed attempts; ask an administrator."' 'prompt_is "Password: "' \
            'field_is "Password	sensitive	0"'
    PROMPTS=$((PROMPTS - 1))      # answer that same prompt
    answer "$PIN"
    check "PIN disabled: the right PIN is refused by pam_unix (logged), not counted (failures $DENY)" \
        all 'outcome_is refused' "failures_are $DENY" pin_disabled \
            'journal_has "pam_unix\\(kde:auth\\): authentication failure.*user=$TEST_USER"'
    answer "$PASSWORD"
    check "PIN disabled: the password unlocks with one Enter; the PIN stays disabled" \
        all 'outcome_is unlocked' pin_disabled "failures_are $DENY"
    greeter_close

    COMPLETE=1
}

e2e_main
