#!/usr/bin/env bash
# Tests/e2e/swaylock.sh — end-to-end test of the one field (pin_or_password) with a REAL
# Wayland locker: Debian's swaylock under a headless sway, keys typed with wtype, the PIN
# checked by the setuid secureroom-helper because swaylock runs PAM as the user; on the
# host's release (its packages) or another one (SR_E2E_RELEASE=trixie: swaylock 1.8.2,
# sway 1.10) in a root image under systemd-nspawn; with swaylock as released (it answers
# EVERY prompt of a pam_authenticate with the typed text) and as upstream's swaylock
# answers since commit 97d81d2 ("pam: only send the password once per conversation",
# not in any release yet: the first prompt gets the text, a later one no answer).
#
# What it proves
#   * with the shipped pam/screen-locker as /etc/pam.d/swaylock (the one field: the PIN's
#     line with pin_or_password and auth_err=die, then pam_unix with try_first_pass; the
#     module's path, nodelay and the mark added by the test): the right PIN unlocks; the
#     password unlocks with one Enter and counts nothing; a wrong PIN is refused, counted
#     once, and never reaches the password module (a pam_exec line before pam_unix marks
#     every run that gets there); a wrong password is refused and
#     counts nothing on the PIN; the password unlocks after a wrong PIN; once deny=3
#     wrong PINs disabled the PIN, the right PIN is refused (the module no longer asks,
#     so the typed digits go to pam_unix) and the password still unlocks;
#   * for contrast, with two prompts (a stack written here: pam/common-auth-pin's line,
#     "PIN:", then the password module's "Password:"): swaylock answers every prompt with
#     the typed text, so a wrong PIN is counted and also tried as the password (the mark;
#     with pam_faillock around pam_unix, "invalid credentials" and a faillock record);
#   * answering once per conversation (swaylock with Tests/e2e/swaylock-once.c preloaded,
#     or a swaylock built with 97d81d2: SR_E2E_SWAYLOCK_ONCE), with pam_faillock's
#     preauth/authfail/authsucc around pam_unix: one field: a wrong PIN is refused at
#     once (< 2 s; milliseconds), counted once, pam_unix never runs (no mark) and
#     pam_faillock's tally stays 0 (a wrong password, the control, makes it 1); the right
#     PIN and the password (one Enter) unlock. Two prompts: a wrong PIN is counted, and
#     pam_unix's prompt gets no answer, so pam_unix verifies nothing (swaylock says
#     "unknown error (20)", PAM_AUTHTOK_ERR, not "invalid credentials") — but pam_unix's
#     failure still runs pam_faillock's authfail (tally 1) and its fail delay (2 s +-50%)
#     holds the refusal; the password cannot unlock there (it lands in "PIN:", pam_unix's
#     prompt gets nothing), the right PIN does;
#   * swaylock shows no PAM message: its log has the outcome only;
#   * nothing outside the test changed (digests of the guarded files, no test user, no
#     mounts, no sway or swaylock left running, no nspawn state of its container).
#
# How
#   The script runs twice (Tests/e2e/lib.sh): the outer run (root) checks prerequisites,
#   builds the shim once per source into SR_E2E_SWAYLOCK_ONCE_DIR (cc; about 0.1 s) and
#   re-executes itself inside scripts/lib/sandbox (a private mount namespace) or, for
#   another release, in a container: the root image (mmdebstrap of the release with sway,
#   swaylock, wtype, procps, util-linux, openssl, libpam-modules-bin and the libraries the
#   module links, kept as a tarball under SR_E2E_IMAGES, named by a digest of release,
#   mirror, architecture, package list and month) unpacked in $T/root with the module
#   beside pam_unix.so (its core in ../secureroom/) and the helper setuid at
#   /usr/sbin/secureroom-helper (the module's default helper=), run by `systemd-nspawn
#   --as-pid2` (not booted; /dev, /dev/shm, /proc and a tmpfs /run from nspawn; private
#   network; $T bound read-write, the checkout read-only, at their own paths). The
#   inner run adds the user srsway (uid 4270, a real SHA-512 password), installs the
#   helper's policy (deny=3, no delays; on the host the helper setuid in $T/bin), mounts
#   a private copy of /etc/pam.d, and starts sway as srsway with the headless wlroots
#   backend and the pixman renderer (no GPU, no input devices) on a runtime directory
#   of its own in $T. Each swaylock runs `swaylock -d` as srsway (LD_PRELOAD=the shim for
#   the once cases); wtype types through sway's virtual-keyboard protocol (after 150 ms,
#   30 ms a key: keys sent before sway handed swaylock the keyboard's keymap are lost); an
#   attempt ends when swaylock exits (unlocked) or logs "pam_authenticate failed: REASON"
#   (refused); its time is from wtype's Return to that. pam_faillock keeps its records in
#   $T/faillock (srsway's: swaylock's PAM runs as srsway), read with `faillock --dir`.
#   "# timing:" lines sum up each wrong PIN's refusal time.
#
# Usage (root):  Tests/e2e/swaylock.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each lock/unlock/refusal (default 15)
#   SR_E2E_RELEASE     the Debian release of sway and swaylock (default: the host's, with
#                      the host's packages; another one runs in the container; scripts/test
#                      runs it again with trixie)
#   SR_E2E_IMAGES      where the root image is kept (default <repo>/.build/e2e-images)
#   SR_E2E_MIRROR      the Debian mirror (default http://deb.debian.org/debian)
#   SR_E2E_SWAYLOCK_ONCE_DIR  where the shim is kept (default <repo>/.build/e2e-swaylock-once)
#   SR_E2E_SWAYLOCK_ONCE      a swaylock built with upstream's 97d81d2, used instead of the
#                      shim (it must run on the release's libraries)
#   Needs cc and libpam0g-dev (the shim), faillock (libpam-modules-bin) and, on the host's
#   release, sway, swaylock, wtype (scripts/setup installs them); for another release
#   systemd-nspawn (systemd-container), mmdebstrap, tar (and the network, the first time
#   in a month, unless the image is there), and none of sway, swaylock, wtype.
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
# The Debian release whose sway and swaylock run: the host's (its packages), or another
# (SR_E2E_RELEASE=trixie: swaylock 1.8.2, sway 1.10), in a root image under systemd-nspawn.
HOST_RELEASE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
RELEASE=${SR_E2E_RELEASE:-$HOST_RELEASE}
CONTAINER=0
[ "$RELEASE" = "$HOST_RELEASE" ] || CONTAINER=1
# (the inner run in the container, whose own release is RELEASE, is told)
[ "${SR_E2E_IN_CONTAINER:-}" != 1 ] || CONTAINER=1
IMAGE_KIND=swaylock
# What the root image holds: sway, swaylock, wtype (and a font), the tools of the inner
# run (setpriv, pgrep, faillock, openssl for the password's hash) and the libraries the
# module, helper and tool link.
IMAGE_PACKAGES=sway,swaylock,wtype,fonts-dejavu-core,procps,util-linux,mount,openssl,libpam-modules-bin,libargon2-1,libkeyutils1,libnettle8t64
# The shim that makes swaylock answer once per conversation (Tests/e2e/swaylock-once.c),
# built here once per source; or a swaylock built with upstream's commit 97d81d2.
ONCE_DIR=${SR_E2E_SWAYLOCK_ONCE_DIR:-$REPO/.build/e2e-swaylock-once}
ONCE_SWAYLOCK=${SR_E2E_SWAYLOCK_ONCE:-}
PIN=6193
PASSWORD='Harbour-Lime-52q'       # srsway's real password (namespace only)
WRONG_PINS=(1357 2468 8024)       # distinct: repeating a wrong PIN does not count again
DENY=3
TEST_USER=srsway
TEST_UID=4270

E2E_PREFIX=sr-sway
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside a private mount namespace"
E2E_TOOLS=(unshare setpriv sha256sum mount mountpoint getent pgrep setsid findmnt cc)
if [ "$CONTAINER" = 1 ]; then
    E2E_TOOLS+=(systemd-nspawn mmdebstrap tar)
    E2E_INNER_WHERE="the container"
else
    E2E_TOOLS+=(sway swaylock wtype faillock)
fi
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/pam.d/swaylock /etc/security/secureroom.conf)
GUARDED_DIRS=(/etc/pam.d /etc/security)
E2E_LEFTOVERS_OK="no bind mounts or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts or %s left behind"
if [ "$CONTAINER" = 1 ]; then
    E2E_ROOT_REASON="it runs a container with systemd-nspawn, its root holding a setuid helper"
    E2E_LEFTOVERS_OK="no bind mounts, work directory or nspawn state of the container left behind"
    E2E_LEFTOVERS_BAD="bind mounts, %s or the container's nspawn state left behind"
fi

outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
    [ -f "$REPO/Tests/e2e/swaylock-once.c" ] || die "Tests/e2e/swaylock-once.c not found"
    [ -z "$ONCE_SWAYLOCK" ] || [ -x "$ONCE_SWAYLOCK" ] || die "SR_E2E_SWAYLOCK_ONCE: not executable: $ONCE_SWAYLOCK"
    if [ "$CONTAINER" = 1 ]; then
        [ -n "$RELEASE" ] || die "no release: set SR_E2E_RELEASE"
        image_path
    fi
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    if [ "$CONTAINER" = 0 ]; then
        echo "# release: $RELEASE (the host's packages): sway $(dpkg-query -W -f='${Version}' sway 2>/dev/null || echo '?'), swaylock $(dpkg-query -W -f='${Version}' swaylock 2>/dev/null || echo '?')"
    else
        echo "# release: $RELEASE (a root image under systemd-nspawn): $IMAGE"
    fi
}
outer_checks() {
    local left
    left=$(pgrep -u "$TEST_UID" 2>/dev/null | paste -sd' ' - || true)
    tally "no sway or swaylock of the test left running" "processes of the test left running: $left" [ -z "$left" ]
}
outer_cleanup() {
    pkill -KILL -u "$TEST_UID" 2>/dev/null || true
    [ "$CONTAINER" = 1 ] || return 0
    container_cleanup
}

MACHINE="sr-sway-$$"

# The shim (Tests/e2e/swaylock-once.c), built once per source into ONCE_DIR, copied
# where the test user can read it (or the swaylock SR_E2E_SWAYLOCK_ONCE names).
make_once() {
    local src=$REPO/Tests/e2e/swaylock-once.c digest lib
    if [ -n "$ONCE_SWAYLOCK" ]; then
        install -m 0755 "$ONCE_SWAYLOCK" "$T/artifacts/swaylock-once"
        echo "# once per conversation: $ONCE_SWAYLOCK (a swaylock built with upstream's 97d81d2)"
        return 0
    fi
    digest=$( { cat "$src"; cc --version | head -n 1; } | sha256sum | cut -c1-12)
    lib=$ONCE_DIR/swaylock-once-$digest.so
    if [ ! -f "$lib" ]; then
        install -d -m 0755 "$ONCE_DIR"
        rm -f "$ONCE_DIR"/swaylock-once-*.so
        cc -Wall -Wextra -shared -fPIC -O2 -o "$lib.partial" "$src" -ldl \
            || die "could not build the shim from $src (cc, libpam0g-dev)"
        mv "$lib.partial" "$lib"
    fi
    install -m 0644 "$lib" "$T/artifacts/swaylock-once.so"
    echo "# once per conversation: swaylock with LD_PRELOAD=${lib#"$REPO/"} (Tests/e2e/swaylock-once.c)"
}

# The container's root: the image, with the module where the package puts it (beside
# pam_unix.so, its core in ../secureroom/) and the helper setuid at /usr/sbin, the
# module's default helper=.
make_root() {
    local root=$T/root
    unpack_image "$root"
    install_module "$root"
    install -m 4755 -o root -g root "$SECUREROOM_HELPER" "$root/usr/sbin/secureroom-helper" \
        || die "could not install the helper into the container's root"
    ROOT_MODULE=${PAM_DIR#"$root"}/pam_secureroom.so
    # No passwd package in the image, so no shadow files: empty ones as shadowconfig makes
    # them (root:shadow 0640, which pam_unix's setgid unix_chkpwd reads for srsway).
    local f shadow_gid
    shadow_gid=$(awk -F: '$1 == "shadow" { print $3 }' "$root/etc/group")
    [ -n "$shadow_gid" ] || die "the image has no group shadow"
    for f in shadow gshadow; do
        [ -e "$root/etc/$f" ] || install -m 0640 -o root -g "$shadow_gid" /dev/null "$root/etc/$f" \
            || die "could not make the container's /etc/$f"
    done
    echo "# container: sway $(chroot "$root" dpkg-query -W -f='${Version}' sway), swaylock $(chroot "$root" dpkg-query -W -f='${Version}' swaylock), image $(du -m "$IMAGE" | cut -f1) MB"
}

outer_launch() {
    make_once
    if [ "$CONTAINER" = 0 ]; then
        SR_E2E_INNER=1 SR_E2E_T="$T" SR_E2E_SOCK="$SOCK" SR_E2E_OUTER_PID=$$ \
            SECUREROOM_MODULE="$MODULE" SECUREROOM_CLI="$CLI" \
            "$REPO/scripts/lib/sandbox" "${E2E_SANDBOX[@]}" -- /bin/bash "$SELF"
        return
    fi
    make_image
    make_root
    # Not booted: the inner run is the container's only program (PID 2, under nspawn's
    # stub init); nspawn gives it /dev (with /dev/shm), /proc, /sys and a tmpfs /run. The
    # work directory and the checkout are bound at their own paths.
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 timeout --kill-after=10 $((TIMEOUT * 40)) systemd-nspawn --quiet \
        --directory="$T/root" --machine="$MACHINE" --register=no --keep-unit --private-network --as-pid2 \
        --console=pipe --bind="$T" --bind-ro="$(readlink -f "$REPO")" \
        --setenv=SR_E2E_INNER=1 --setenv=SR_E2E_IN_CONTAINER=1 --setenv=SR_E2E_T="$T" --setenv=SR_E2E_RELEASE="$RELEASE" \
        --setenv=SR_E2E_TIMEOUT="$TIMEOUT" --setenv=SECUREROOM_MODULE="$ROOT_MODULE" \
        --setenv=SECUREROOM_CLI="$CLI" --setenv=SECUREROOM_HELPER=/usr/sbin/secureroom-helper \
        /bin/bash "$SELF" 2> >(grep -v 'Attempted to remove disk file system under' >&2)
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount namespace).
# ---------------------------------------------------------------------------------------
SWAY_PID= LOCKER_PID= LOCKER_RC=
RUNTIME= STACK_HELPER= ONCE_CMD=() ONCE_WHAT= TIMINGS=()

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

# in_container: the inner run is the program of the non-booted container (nspawn says so
# in its environment), whose root, mounts and /run are its own.
in_container() { [ "${container:-}" = systemd-nspawn ] && [ "${SR_E2E_IN_CONTAINER:-}" = 1 ]; }

setup_namespace() {
    if in_container; then
        mount --make-rprivate /
    else
        enter_namespaces
    fi
    install -d -m 0755 "$T/etc" "$T/bin" "$T/log" "$T/home"
    install -d -m 1777 "$T/marks"

    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (swaylock)"
    bind_users
    helper_policy "$TEST_UID" "$TEST_USER" "deny = $DENY" "schedule ="
    # The helper the stack names: on the host a setuid copy in $T/bin; in the container
    # the one installed where the package puts it (the module's default helper=).
    STACK_HELPER=$T/bin/secureroom-helper
    if in_container; then
        STACK_HELPER=$SECUREROOM_HELPER
        setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups test -u "$STACK_HELPER" \
            || die "$STACK_HELPER is not setuid for $TEST_USER in the container"
    fi
    # pam_faillock's records (the variant stacks): a directory srsway can write, as
    # swaylock runs PAM as the user.
    install -d -m 0700 -o "$TEST_UID" -g "$TEST_UID" "$T/faillock"
    # swaylock answering once per conversation: the shim preloaded, or a rebuilt swaylock.
    if [ -x "$T/artifacts/swaylock-once" ]; then
        ONCE_CMD=("$T/artifacts/swaylock-once") ONCE_WHAT="swaylock rebuilt with 97d81d2"
    else
        ONCE_WHAT="swaylock with the LD_PRELOAD shim"
        [ -f "$T/artifacts/swaylock-once.so" ] || die "no $T/artifacts/swaylock-once.so"
        ONCE_CMD=(env "LD_PRELOAD=$T/artifacts/swaylock-once.so" swaylock)
    fi

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

# use_stack onefield|twoprompts [faillock]: /etc/pam.d/swaylock, with the mark before pam_unix.
#   onefield:   the shipped pam/screen-locker (pam/README.md "One field": the PIN's line
#               with pin_or_password and auth_err=die, then pam_unix try_first_pass),
#               its module line given the module's path, nodelay and (on the host) helper=.
#   twoprompts: pam/common-auth-pin's PIN line ("PIN:", [success=done default=ignore]),
#               then pam_unix, which asks "Password:".
#   faillock:   pam_faillock(8)'s lines around pam_unix (preauth before, authfail after
#               a failure, authsucc after a success; records in $T/faillock, deny=50 so
#               they never lock the account): its tally counts what pam_unix refused.
use_stack() {
    local pin_line helper=
    in_container || helper=" helper=$STACK_HELPER"
    if [ "$1" = onefield ]; then
        shipped_stack "$MODULE nodelay$helper" "${2:-}" > /etc/pam.d/swaylock
        chmod 0644 /etc/pam.d/swaylock
        return 0
    fi
    pin_line="auth [success=done default=ignore] $MODULE nodelay$helper"
    if [ "${2:-}" = faillock ]; then
        local fl="pam_faillock.so dir=$T/faillock deny=50"
        printf '%s\n' "# generated by Tests/e2e/swaylock.sh: $1, faillock" "$pin_line" \
            "auth required $fl preauth" \
            "auth optional pam_exec.so quiet $T/bin/mark" \
            "auth [success=1 default=bad] pam_unix.so nullok try_first_pass" \
            "auth [default=die] $fl authfail" \
            "auth sufficient $fl authsucc" \
            "auth required pam_deny.so" "account required pam_permit.so"
    else
        printf '%s\n' "# generated by Tests/e2e/swaylock.sh: $1" "$pin_line" \
            "auth optional pam_exec.so quiet $T/bin/mark" \
            "auth [success=1 default=ignore] pam_unix.so nullok try_first_pass" \
            "auth requisite pam_deny.so" "auth required pam_permit.so" "account required pam_permit.so"
    fi > /etc/pam.d/swaylock
    chmod 0644 /etc/pam.d/swaylock
}

# shipped_stack MODULE_ARGS [faillock]: pam/screen-locker's lines (no comments), the
# module's "pam_secureroom.so" replaced by MODULE_ARGS, the mark before pam_unix and, for
# faillock, pam_faillock's lines around pam_unix (whose default=ignore becomes default=bad,
# so that its failure reaches authfail). Dies if the shipped file's lines are not those
# of the one field.
shipped_stack() {
    local fl="pam_faillock.so dir=$T/faillock deny=50" line seen=0
    echo "# generated by Tests/e2e/swaylock.sh from pam/screen-locker${2:+, $2}"
    while IFS= read -r line; do
        case $line in
            ''|'#'*) continue ;;
            auth*pam_secureroom.so*pin_or_password*)
                seen=$((seen + 1)); printf '%s\n' "${line/pam_secureroom.so/$1}" ;;
            auth*pam_unix.so*try_first_pass*)
                seen=$((seen + 1))
                if [ "$2" = faillock ]; then
                    printf '%s\n' "auth required $fl preauth" "auth optional pam_exec.so quiet $T/bin/mark" \
                        "${line/default=ignore/default=bad}" "auth [default=die] $fl authfail" \
                        "auth sufficient $fl authsucc"
                else
                    printf '%s\n' "auth optional pam_exec.so quiet $T/bin/mark" "$line"
                fi ;;
            *) printf '%s\n' "$line" ;;
        esac
    done < "$REPO/pam/screen-locker"
    [ "$seen" = 2 ] || die "pam/screen-locker has not the one field's two lines (pin_or_password; pam_unix try_first_pass)"
}

# start_locker NAME [once]: `swaylock -d` as srsway (once: answering once per
# conversation, ONCE_CMD); waits until its PAM child is ready.
start_locker() {
    local cmd=(swaylock)
    [ "${2:-}" != once ] || cmd=("${ONCE_CMD[@]}")
    stop_locker
    LOG=$T/log/$1.swaylock
    : > "$LOG"
    setsid setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env XDG_RUNTIME_DIR="$RUNTIME" WAYLAND_DISPLAY=wayland-1 HOME="$T/home/$TEST_USER" LANG=C.UTF-8 \
        "${cmd[@]}" -d > "$LOG" 2>&1 &
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
# The reason swaylock logged for its last refusal ("invalid credentials", "unknown error (N)").
last_reason() { sed -n 's/.*pam_authenticate failed: //p' "$LOG" 2>/dev/null | tail -n 1; }
# The conversations the shim aborted (a later prompt of one pam_authenticate).
aborted() { grep -c '^\[swaylock-once\]' "$LOG" 2>/dev/null || true; }
# pam_faillock's records of srsway (faillock(8) lists one line a failure under a header).
faillock_tally() { faillock --dir "$T/faillock" --user "$TEST_USER" 2>/dev/null | awk 'NR > 2 && NF' | wc -l; }
faillock_is() { [ "$(faillock_tally)" = "$1" ]; }
faillock_reset() { faillock --dir "$T/faillock" --user "$TEST_USER" --reset 2>/dev/null || true; }
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
    echo "#   faillock records: $(faillock_tally); swaylock's last reason: $(last_reason); conversations aborted: $(aborted)"
    echo "#   --- swaylock -d ---"
    tail -n 6 "$LOG" 2>/dev/null | sed 's/^/#   | /'
}

unlocked() { [ "$OUTCOME" = unlocked ] && [ "$LOCKER_RC" = 0 ]; }
refused() { [ "$OUTCOME" = refused ] && locker_alive; }
marked() { [ "$MARKS" = "$1" ]; }
took_under() { [ "$ELAPSED_MS" -lt "$1" ]; }
took_at_least() { [ "$ELAPSED_MS" -ge "$1" ]; }
reason_is() { [ "$(last_reason)" = "$1" ]; }
# timed LABEL: keep this attempt's time for the summary.
timed() { TIMINGS+=("$1: ${ELAPSED_MS} ms"); }
# no_pam_message: swaylock's log has no text of the module's (it shows none).
no_pam_message() { ! grep -qE 'Incorrect PIN|PIN disabled|PIN or password' "$LOG"; }

inner_main() {
    setup_namespace
    local k

    # --- 1. the one field ------------------------------------------------------------------
    use_stack onefield
    start_locker a || true
    check "swaylock -d as $TEST_USER locks the headless sway session (PAM service swaylock: the shipped pam/screen-locker, one field)" locker_alive
    type_secret "${WRONG_PINS[0]}"; timed "every prompt, one field, wrong PIN"
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
    type_secret "${WRONG_PINS[0]}"; timed "every prompt, two prompts, wrong PIN"
    check "two prompts (pam/common-auth-pin's PIN line before pam_unix): a wrong PIN is counted and also tried as the password" \
        all refused 'failures_are 1' 'marked 1'
    type_secret "$PASSWORD"
    check "two prompts: the password unlocks (the module refuses it as no PIN, pam_unix takes it)" \
        all unlocked 'failures_are 1'
    reset_pin

    # --- 4. once per conversation (upstream 97d81d2), the one field, pam_faillock around pam_unix
    use_stack onefield faillock
    start_locker f once || true
    check "once per conversation ($ONCE_WHAT): swaylock locks the session (one-field stack with pam_faillock)" locker_alive
    type_secret "${WRONG_PINS[0]}"; timed "once, one field, wrong PIN"
    check "once, one field, wrong PIN: refused in ${ELAPSED_MS} ms (< 2 s), counted once; pam_unix never ran (no mark), pam_faillock's tally unchanged (0)" \
        all refused 'failures_are 1' 'marked 0' 'faillock_is 0' 'took_under 2000'
    type_secret "not-the-password"
    check "once, one field, wrong password (the control): pam_unix refuses it, pam_faillock records it (tally 1), nothing counted on the PIN" \
        all refused 'marked 1' 'faillock_is 1' 'failures_are 1'
    type_secret "$PASSWORD"
    check "once, one field, the password: unlocks with one Enter (pam_unix takes it as PAM_AUTHTOK, no second prompt); swaylock shows no PAM message" \
        all unlocked 'marked 1' 'failures_are 1' no_pam_message
    start_locker g once || true
    type_secret "$PIN"
    check "once, one field, right PIN: unlocks; the count cleared; pam_unix never ran; no conversation aborted" \
        all unlocked 'failures_are 0' 'marked 0' 'faillock_is 0' "[ \"\$(aborted)\" = 0 ]"

    # --- 5. once per conversation, two prompts, pam_faillock around pam_unix ----------------
    # pam_unix's prompt gets no answer: pam_get_authtok fails, pam_unix returns
    # PAM_AUTHTOK_ERR (swaylock: "unknown error (20)") without verifying anything, after
    # its fail delay (2 s +-50%, as it has no nodelay); being a failure of pam_unix, it
    # still runs pam_faillock's authfail.
    use_stack twoprompts faillock
    faillock_reset
    start_locker h once || true
    type_secret "${WRONG_PINS[1]}"; timed "once, two prompts, wrong PIN"
    check "once, two prompts, wrong PIN: refused, counted once; pam_unix ran (the mark) but its prompt got no answer, so it verified nothing (swaylock: '$(last_reason)' = PAM_AUTHTOK_ERR, not 'invalid credentials')" \
        all refused 'failures_are 1' 'marked 1' "reason_is 'unknown error (20)'"
    check "once, two prompts, wrong PIN (observation): pam_faillock's authfail still records a failure (tally 1: pam_unix failed, for want of a password), and the refusal waits pam_unix's fail delay (${ELAPSED_MS} ms; 2 s +-50%, so >= 1 s)" \
        all 'faillock_is 1' 'took_at_least 900'
    type_secret "$PASSWORD"; timed "once, two prompts, the password"
    check "once, two prompts, the password (observation): refused — it lands in the module's 'PIN:' (not 4 digits: not counted) and pam_unix's 'Password:' gets nothing (swaylock: '$(last_reason)'); pam_faillock records it (tally 2)" \
        all refused 'failures_are 1' 'marked 1' 'faillock_is 2' "reason_is 'unknown error (20)'"
    type_secret "$PIN"
    check "once, two prompts, right PIN: unlocks (the first prompt is the PIN's); the count cleared, pam_unix never ran" \
        all unlocked 'failures_are 0' 'marked 0' 'faillock_is 2'

    # --- 6. for contrast: the same stack with swaylock answering every prompt -------------
    faillock_reset
    start_locker i || true
    type_secret "${WRONG_PINS[2]}"; timed "every prompt, two prompts + faillock, wrong PIN"
    check "for contrast, Debian's swaylock (every prompt), two prompts with pam_faillock: a wrong PIN is counted AND verified as the password: 'invalid credentials', pam_faillock's tally 1 (${ELAPSED_MS} ms)" \
        all refused 'failures_are 1' 'marked 1' 'faillock_is 1' "reason_is 'invalid credentials'"
    type_secret "$PASSWORD"
    check "every prompt, two prompts with pam_faillock: the password unlocks" unlocked
    stop_locker

    local t
    for t in "${TIMINGS[@]}"; do echo "# timing: $t"; done
    COMPLETE=1
}

e2e_main
