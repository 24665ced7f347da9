#!/usr/bin/env bash
# Tests/e2e/gnome.sh — end-to-end test of the one field (pin_or_password) at GNOME's
# unlock: GDM 48's gdm-session-worker running the gdm-password stack as root, reached
# over GDM's reauthentication channel, and GNOME Shell 48's unlock dialog on X11, in a
# booted Debian 13 (trixie) container (systemd-nspawn).
#
# What it proves
#   * GNOME's unlock path: GNOME Shell's unlock dialog asks GDM, which runs the PAM
#     service gdm-password as root in gdm-session-worker; with the module's one-field
#     line in it (pin_or_password, [success=done auth_err=die default=ignore], before
#     pam_unix with try_first_pass; the rest of Debian's file kept), the module checks
#     the PIN itself, no helper (its "PIN accepted" line comes from gdm-session-worker,
#     uid 0). Driven as the dialog drives it: through GDM's
#     org.gnome.DisplayManager.UserVerifier on the private address
#     OpenReauthenticationChannel gives (Tests/e2e/gnome-unlock.py verify), from a real
#     systemd-logind session of the test user srgnome;
#   * the right PIN: the first prompt GDM relays is the module's "PIN or password: ",
#     answered once: VerificationComplete, nothing counted;
#   * a wrong PIN: VerificationFailed after that one prompt, counted once, the module's
#     "Incorrect PIN. 2 attempts left before the PIN is disabled." relayed (then GDM's own
#     "Sorry, password authentication didn't work. Please try again."), and pam_unix
#     never ran (auth_err=die: no pam_unix(gdm-password:auth) line in the journal);
#   * the password in the same field: handed to pam_unix (PAM_AUTHTOK, try_first_pass):
#     VerificationComplete after that one prompt, nothing counted; also right after a
#     wrong PIN, which stays counted. Enter in the empty field skips the PIN (not
#     counted), pam_unix asks "Password: " and the password completes;
#   * lockout (deny=3, no delays): three distinct wrong PINs, each refused, counted and
#     told; the PIN disabled (status --json); then GDM relays the module's "PIN disabled
#     after 3 failed attempts; ask an administrator." and pam_unix's "Password: " at once:
#     the right PIN typed there is refused and counts nothing, the password completes;
#   * the real dialog: GDM's automatic login gives srgnome a GNOME session on X11 (GNOME
#     Shell 48 under gnome-session, on Xvfb); `loginctl lock-session` locks it (logind's
#     LockedHint yes); a key raises the unlock dialog, whose password entry has the
#     module's prompt as its placeholder, "PIN or password" (AT-SPI: the entry is
#     described by St's hint label), and waits (sensitive, focused); xdotool types in it:
#     the right PIN unlocks (LockedHint no; checked in gdm-session-worker; nothing
#     counted); a wrong PIN keeps it locked, is counted, never reaches pam_unix, and the
#     module's "Incorrect PIN. ..." shows in the dialog (an AT-SPI event; GDM's "Sorry..."
#     replaces it once the failure delay is over, then a new prompt); the password typed
#     in the same field then unlocks;
#   * nothing outside the container changed (no test user, no process of its uid, no
#     nspawn state of this machine, the work directory gone).
#
# How
#   The outer run (root, lib.sh) makes the container's root in $T/root from a root image:
#   mmdebstrap of trixie (no recommends) with systemd, libpam-systemd, dbus, gdm3,
#   gnome-shell, gnome-session, libpam-gnome-keyring, xvfb, xdotool, at-spi2-core,
#   python3-pyatspi, python3-gi and the libraries the module and tool link, kept as a
#   tarball under $SR_E2E_IMAGES (default <repo>/.build/e2e-images; named by a digest of
#   release, mirror, package list and month). Into that root it installs the module
#   where the package puts it (and its core in ../secureroom/), writes the test user (a
#   real SHA-512 password), /etc/pam.d/gdm-password (the shipped pam/gdm-password:
#   trixie's, its `@include common-auth` replaced by the one-field lines; checked against
#   the image's file), /etc/security/secureroom.conf (the
#   default state directory, cheap argon2, deny=3, schedule= empty), GDM's automatic
#   login for srgnome on X11 (WaylandEnable=false), and fills the two gaps a container
#   leaves: an X session file (trixie ships only Wayland ones, and GDM gives up without
#   one) and /usr/bin/Xorg, a wrapper that runs Xvfb without the options of a server on
#   a VT (there is no graphics device: GDM falls back to X11 after waiting 10 s for one).
#   A gschema override keeps the session from locking or blanking by itself. A unit runs
#   this script's inner run at boot and powers the container off when it ends. Then
#   `systemd-nspawn --boot` (private network, --register=no --keep-unit, the unified
#   cgroup hierarchy), with $T bound read-write and the checkout read-only at their own
#   paths; the inner run's output is $T/inner.log, shown after.
#   The inner run (root in the container) sets the PIN and opens srgnome's driver
#   session (systemd-run --uid=srgnome -p PAMName=login), which runs gnome-unlock.py
#   verify for each request written to a fifo (the answers in a file, never on a command
#   line). Then it waits for the automatic login's session and GNOME Shell, and for each
#   dialog case locks the session, types with xdotool (on the shell's DISPLAY, with its
#   XAUTHORITY) and reads the dialog as srgnome on the session's bus with gnome-unlock.py
#   texts (polled) and watch (AT-SPI events, for the message the dialog shows briefly).
#   Counters come from `secureroom status --json`, pam_unix's and the module's lines from
#   the journal. Each step's time is printed in a "# timings:" line.
#
# Usage (root):  Tests/e2e/gnome.sh
#   SECUREROOM_MODULE, SECUREROOM_CLI   as for the other e2e tests (lib.sh); the module's
#                    core, pam_secureroom_core.so, must lie beside the module
#   SR_E2E_TIMEOUT   seconds to wait for each verification, dialog state or lock change
#                    (default 15; GDM and the shell get 8 times that to come up)
#   SR_E2E_IMAGES    where the root image is kept (default <repo>/.build/e2e-images)
#   SR_E2E_MIRROR    the Debian mirror (default http://deb.debian.org/debian)
#   SR_E2E_GNOME_HOLD=1  (debugging) the inner run waits at its end until $T/release
#                    exists, within the container's time limit (40 TIMEOUTs): enter it
#                    with nsenter -t PID -a (PID: the container's systemd)
#   Needs systemd-nspawn (systemd-container), mmdebstrap (and the network, the first time
#   in a month, unless the image is there), python3 or openssl (the password's hash) and
#   lib.sh's tools; nothing of the container's packages on the host. The container is
#   trixie whatever the host runs: GNOME 49 and later have no X11 session.
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

PIN=6193                          # passes the CLI's policy (not a sequence, not blocklisted)
PASSWORD='Harbour-Amber-38q'      # srgnome's real password (inside the container only)
WRONG_PINS=(1357 2468)            # the wrong-PIN cases' (distinct: a repeat is not counted again)
LOCKOUT_PINS=(8024 9150 3071)     # the lockout's, distinct from the others too
DIALOG_WRONG_PIN=4826
DENY=3
TEST_USER=srgnome
TEST_UID=4310                     # not used by another e2e test (they may run at the same time)
SERVICE=gdm-password
PROMPT="PIN or password: "        # the module's one-field prompt
PLACEHOLDER="PIN or password"     # the same as the shell's entry shows it (": " removed)
LOCKED_TEXT="PIN disabled after $DENY failed attempts; ask an administrator."
SORRY="Sorry, password authentication didn"  # GDM's after any failure (then a curly apostrophe)
STATE=/var/lib/secureroom         # the module's default dir=, in the container
RELEASE=trixie                    # GNOME 48, the last with an X11 session
IMAGE_KIND=gnome
# The container's init and login sessions, the buses, GDM and GNOME Shell with
# gnome-session, the X server GDM's Xorg wrapper runs, the test's tools, and the libraries
# the module and tool need.
IMAGE_PACKAGES=systemd,systemd-sysv,libpam-systemd,login,dbus,dbus-user-session,gdm3,gnome-shell,gnome-session,libpam-gnome-keyring,xvfb,xdotool,at-spi2-core,python3-pyatspi,python3-gi,libgl1-mesa-dri,fonts-cantarell,libargon2-1,libsqlite3-0,libkeyutils1,libssl3t64,procps

E2E_PREFIX=sr-gnome
E2E_ROOT_REASON="it boots a container with systemd-nspawn"
E2E_INNER_WHERE="the container"
E2E_TOOLS+=(systemd-nspawn mmdebstrap tar timeout)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
# What the container's root replaces (a path gone wrong would write the host's instead).
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/security/secureroom.conf /etc/pam.d/gdm-password
         /etc/gdm3/daemon.conf /usr/bin/Xorg)
GUARDED_DIRS=(/etc/pam.d /etc/security /etc/systemd/system /usr/share/xsessions)
E2E_GUARDED_DESC="${#GUARDED[@]} files; pam.d, security, systemd/system, xsessions dirs"
E2E_LEFTOVERS_OK="no work directory, container root or nspawn state left behind"
E2E_LEFTOVERS_BAD="the work directory %s or nspawn state left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
MACHINE="sr-gnome-$$"

outer_prerequisites() {
    need_password_hashing
    [ -f "${MODULE%/*}/pam_secureroom_core.so" ] \
        || die "pam_secureroom_core.so not found beside $MODULE (build it, or set SECUREROOM_MODULE)"
    [ -f "$REPO/Tests/e2e/gnome-unlock.py" ] || die "Tests/e2e/gnome-unlock.py not found"
    image_path
}
# Processes of the test: those of the test user's uid (the container shares the host's
# uids). The container's own (systemd, GDM) end with its PID namespace.
test_processes() {
    namespace_processes "$TEST_UID"
    return 0
}
outer_checks() {
    tally_none_left "no process of the test user (GNOME session, Xvfb, driver) left running" \
                    "processes of the container's sessions left running"
}

# The container's root: the image, the module where the package puts it, the test user,
# the PAM stack, the policy, GDM's automatic login on X11 and the gaps it needs filled,
# and the unit that runs the inner run.
make_root() {
    local root=$T/root
    unpack_image "$root"
    [ -x "$root/usr/sbin/gdm3" ] && [ -x "$root/usr/bin/gnome-shell" ] && [ -x "$root/usr/bin/Xvfb" ] \
        || die "the image has no gdm3, gnome-shell or Xvfb"
    install_module "$root"

    chroot "$root" useradd --create-home --uid "$TEST_UID" --comment "SecureRoom e2e (GNOME)" \
        --shell /bin/bash "$TEST_USER" || die "useradd $TEST_USER in the container's root failed"
    chroot "$root" usermod --password "$(hash_password "$PASSWORD")" "$TEST_USER" \
        || die "usermod --password $TEST_USER in the container's root failed"
    printf '%s\n' "# generated by $E2E_NAME (container only)" \
        "tpm = off" "argon2_memory = 256" "argon2_time = 1" "argon2_lanes = 1" \
        "argon2_below_floor" "deny = $DENY" "schedule =" > "$root/etc/security/secureroom.conf"

    # gdm-password: the shipped pam/gdm-password, which is trixie's with its `@include
    # common-auth` replaced by the one field's lines (checked: the image's file, the
    # comments left out, is the shipped one with those lines put back as the include).
    # The module lies where pam_unix.so does, so the file's bare module name finds it.
    local base=$root/etc/pam.d/gdm-password shipped=$REPO/pam/gdm-password
    [ -f "$base" ] && [ "$(grep -cx '@include common-auth' "$base")" = 1 ] \
        || die "the image's /etc/pam.d/gdm-password has no single '@include common-auth' line"
    diff <(grep -vE '^[[:space:]]*#' "$base") \
        <(sed '/pam_secureroom\.so pin_or_password/,/pam_permit\.so/c\@include common-auth' "$shipped" \
            | grep -vE '^[[:space:]]*#') >/dev/null \
        || die "pam/gdm-password is not the image's gdm-password with the one field for its @include common-auth"
    install -m 0644 "$shipped" "$base"
    grep -q "^auth.*\[success=done auth_err=die default=ignore\].*pam_secureroom\.so pin_or_password" "$base" \
        || die "could not install pam/gdm-password as the container's gdm-password"

    # GDM: automatic login of the test user, on X11 (the container has no graphics).
    printf '%s\n' "# generated by $E2E_NAME (container only)" "[daemon]" "WaylandEnable=false" \
        "AutomaticLoginEnable=true" "AutomaticLogin=$TEST_USER" "" "[security]" "" "[xdmcp]" "" \
        "[chooser]" "" "[debug]" > "$root/etc/gdm3/daemon.conf"
    install -d -m 0755 "$root/usr/share/xsessions" "$root/var/lib/AccountsService/users"
    printf '%s\n' "[Desktop Entry]" "Name=GNOME on Xorg" "Comment=$E2E_NAME: GNOME on X11" \
        "Exec=/usr/bin/gnome-session" "TryExec=/usr/bin/gnome-session" "Type=Application" \
        "DesktopNames=GNOME" "X-GDM-SessionRegisters=true" > "$root/usr/share/xsessions/gnome-xorg.desktop"
    printf '%s\n' "[User]" "Session=gnome-xorg" "XSession=gnome-xorg" "SystemAccount=false" \
        > "$root/var/lib/AccountsService/users/$TEST_USER"
    chmod 0600 "$root/var/lib/AccountsService/users/$TEST_USER"
    # GDM's X server (gdm-x-session runs /usr/bin/Xorg as the user): Xvfb, without the
    # options of a server on a VT.
    cat > "$root/usr/bin/Xorg" <<'XORG'
#!/bin/bash
# generated by Tests/e2e/gnome.sh (container only): the X server GDM starts, as Xvfb.
args=()
while [ $# -gt 0 ]; do
    case $1 in
        vt[0-9]*|-keeptty|-novtswitch|-sharevts) ;;
        -verbose|-logverbose|-logfile) shift ;;
        *) args+=("$1") ;;
    esac
    shift
done
exec /usr/bin/Xvfb "${args[@]}" -screen 0 1280x800x24
XORG
    chmod 0755 "$root/usr/bin/Xorg"
    # The session neither locks nor blanks by itself; the shell's accessibility is on.
    printf '%s\n' "[org.gnome.desktop.session]" "idle-delay=uint32 0" "" \
        "[org.gnome.desktop.screensaver]" "idle-activation-enabled=false" "lock-enabled=true" "" \
        "[org.gnome.desktop.interface]" "toolkit-accessibility=true" \
        > "$root/usr/share/glib-2.0/schemas/90-secureroom-e2e.gschema.override"
    chroot "$root" glib-compile-schemas /usr/share/glib-2.0/schemas \
        || die "glib-compile-schemas in the container's root failed"

    install -d -m 0755 "$T/bin"
    install -m 0755 "$REPO/Tests/e2e/gnome-unlock.py" "$T/bin/gnome-unlock.py"
    inner_unit "$root" "Environment=SR_E2E_GNOME_HOLD=${SR_E2E_GNOME_HOLD:-0}"
}

outer_launch() {
    local start=$SECONDS
    make_image
    make_root
    echo "# container root ready in $((SECONDS - start)) s: $(du -sh "$T/root" | cut -f1)"
    boot_container $((TIMEOUT * 40))
}

# ---------------------------------------------------------------------------------------
# Inner run (root in the booted container).
# ---------------------------------------------------------------------------------------
DRIVER_SESSION= OUT= RC= CURSOR= ELAPSED=
GNOME_SESSION= SHELL_PID= X_DISPLAY= X_AUTH= USER_BUS= WATCH_PID= WATCH_MARK=0

journal() { journalctl --quiet --no-pager -o cat "$@" 2>/dev/null || true; }
# mark_journal: CURSOR = the journal's end now; since_mark ARGS...: its lines after it.
mark_journal() { CURSOR=$(journalctl --quiet -n 1 -o cat --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'); }
since_mark() { if [ -n "$CURSOR" ]; then journal --after-cursor="$CURSOR" "$@"; else journal "$@"; fi; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- the driver: srgnome's own logind session, running gnome-unlock.py verify ----------
driver_script() {
    cat <<SCRIPT
echo "\$XDG_SESSION_ID" > $T/io/driver-session
while read -r name; do
    python3 $T/bin/gnome-unlock.py verify --timeout $TIMEOUT $TEST_USER $T/io/\$name.answers \
        > $T/io/\$name.out 2> $T/io/\$name.err
    echo \$? > $T/io/\$name.rc.new && mv $T/io/\$name.rc.new $T/io/\$name.rc
done < $T/io/requests
SCRIPT
}

start_driver() {
    local deadline
    install -d -m 1777 "$T/io"
    mkfifo -m 0622 "$T/io/requests"
    chown "$TEST_UID:$TEST_UID" "$T/io/requests"
    driver_script > "$T/driver.sh"
    chmod 0644 "$T/driver.sh"
    systemd-run --quiet --unit=secureroom-e2e-driver --uid="$TEST_UID" --property=PAMName=login \
        --setenv=XDG_SESSION_CLASS=user /bin/bash "$T/driver.sh" \
        || die "systemd-run of $TEST_USER's driver session failed"
    exec 9<>"$T/io/requests"     # read-write: opening never waits for the session's reader
    deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ] && [ ! -s "$T/io/driver-session" ]; do sleep 0.1; done
    DRIVER_SESSION=$(cat "$T/io/driver-session" 2>/dev/null || true)
}

driver_session_is_real() {
    [ -n "$DRIVER_SESSION" ] \
        && [ "$(loginctl show-session "$DRIVER_SESSION" -p Name -p Class -p Active | sort)" \
             = "$(printf '%s\n' Active=yes Class=user "Name=$TEST_USER")" ]
}

gdm_on_bus() {
    busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        NameHasOwner s org.gnome.DisplayManager 2>/dev/null | grep -qx 'b true'
}
wait_for_gdm() {
    local deadline=$((SECONDS + TIMEOUT * 4))
    while [ "$SECONDS" -lt "$deadline" ]; do
        gdm_on_bus && return 0
        sleep 0.2
    done
    return 1
}

# verify NAME ANSWER...: one verification through GDM's UserVerifier, each prompt answered
# with the next ANSWER; OUT its event lines, RC its exit status, ELAPSED its seconds.
verify() {
    local name=$1 start deadline
    shift
    OUT=$T/io/$name.out RC=timeout
    printf '%s\n' "$@" > "$T/io/$name.answers"
    chmod 0644 "$T/io/$name.answers"
    mark_journal
    start=$(now)
    echo "$name" >&9
    deadline=$((SECONDS + TIMEOUT + 5))
    while [ "$SECONDS" -lt "$deadline" ] && [ ! -f "$T/io/$name.rc" ]; do sleep 0.05; done
    [ -f "$T/io/$name.rc" ] && RC=$(cat "$T/io/$name.rc")
    ELAPSED=$(since "$start")
    TIMINGS+=("verify $name: ${ELAPSED}s")
}

# Predicates on the last verification's event lines (OUT).
events() { cat "$OUT" 2>/dev/null || true; }
event_is() { [ "$(events | sed -n "${1}p")" = "$2" ]; }        # line K is exactly TEXT
has_event() { events | grep -qxF -- "$1"; }
no_event_like() { ! events | grep -qE -- "$1"; }
prompts_are() {                                                   # the prompts, in order
    [ "$(events | sed -n 's/^secret\t//p; s/^query\t//p' | paste -sd'|' -)" = "$(IFS='|'; echo "$*")" ]
}
first_prompt_is() { [ "$(events | sed -n 's/^secret\t//p; s/^query\t//p' | head -n 1)" = "$1" ]; }
completed() { all 'rc_is 0' 'has_event complete'; }
refused() { all 'rc_is 1' 'has_event failed'; }
# told TEXT: GDM relayed TEXT as a Problem or an Info.
told() { has_event "problem	$1" || has_event "info	$1"; }
# The module's "PIN accepted" line since the attempt began came from GDM's
# gdm-session-worker, as root: the PIN was checked there, by the module itself.
pin_checked_by_worker() {
    local entry
    entry=$(journalctl --quiet --no-pager -o verbose ${CURSOR:+--after-cursor="$CURSOR"} \
        --grep "pam_secureroom\\($SERVICE:auth\\): PIN accepted for $TEST_USER" 2>/dev/null || true)
    grep -qx ' *_COMM=gdm-session-wor' <<< "$entry" && grep -qx ' *_UID=0' <<< "$entry"
}
# pam_unix ran (logged anything for gdm-password's auth) since the attempt began.
pam_unix_ran() {
    [ -n "$(since_mark --grep "pam_unix\\($SERVICE:auth\\)")" ]
}

check_diagnostics() {
    echo "#   rc=$RC elapsed=${ELAPSED}s status: $(status_json | tr -d '\n')"
    if [ -n "$OUT" ] && [ -f "$OUT" ]; then
        echo "#   --- events ---"
        sed 's/^/#   | /' "$OUT"
        sed 's/^/#   stderr: /' "${OUT%.out}.err" 2>/dev/null || true
    fi
    echo "#   --- journal since the attempt (gdm, pam) ---"
    since_mark --grep 'pam_|gdm|secureroom' | tail -n 12 | sed 's/^/#   | /'
}

# ---- the real dialog: the automatic login's GNOME session ------------------------------
as_user() {
    setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env HOME="/home/$TEST_USER" XDG_RUNTIME_DIR="/run/user/$TEST_UID" \
            DBUS_SESSION_BUS_ADDRESS="$USER_BUS" DISPLAY="$X_DISPLAY" XAUTHORITY="$X_AUTH" "$@"
}
x() { DISPLAY=$X_DISPLAY XAUTHORITY=$X_AUTH timeout 5 xdotool "$@"; }
shell_env() { tr '\0' '\n' < "/proc/$SHELL_PID/environ" 2>/dev/null | sed -n "s/^$1=//p"; }

# The automatic login's session (x11, class user, srgnome's, GDM's) and GNOME Shell in it,
# up to 8 TIMEOUTs (GDM waits 10 s for graphics before it falls back to X11).
wait_for_gnome() {
    local deadline=$((SECONDS + TIMEOUT * 8)) s
    while [ "$SECONDS" -lt "$deadline" ]; do
        if [ -z "$GNOME_SESSION" ]; then
            for s in $(loginctl list-sessions --no-legend 2>/dev/null | awk '{ print $1 }'); do
                if [ "$(loginctl show-session "$s" -p Name -p Type -p Service 2>/dev/null | sort | paste -sd' ' -)" \
                        = "Name=$TEST_USER Service=gdm-autologin Type=x11" ]; then
                    GNOME_SESSION=$s
                fi
            done
        fi
        SHELL_PID=$(pgrep -u "$TEST_UID" -x gnome-shell | head -n 1 || true)
        if [ -n "$GNOME_SESSION" ] && [ -n "$SHELL_PID" ]; then
            X_DISPLAY=$(shell_env DISPLAY) X_AUTH=$(shell_env XAUTHORITY)
            USER_BUS=$(shell_env DBUS_SESSION_BUS_ADDRESS)
            [ -n "$X_DISPLAY" ] && x getdisplaygeometry >/dev/null 2>&1 \
                && [ -n "$(as_user python3 "$T/bin/gnome-unlock.py" texts 2>/dev/null)" ] && return 0
        fi
        sleep 0.5
    done
    return 1
}

locked_hint() { loginctl show-session "$GNOME_SESSION" -p LockedHint --value 2>/dev/null; }
# wait_locked yes|no: logind's LockedHint for the GNOME session becomes that (TIMEOUT).
wait_locked() {
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        [ "$(locked_hint)" = "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
texts() { as_user timeout 10 python3 "$T/bin/gnome-unlock.py" texts 2>/dev/null || true; }
# wait_texts RE: the shell's showing texts match RE (grep -E), within TIMEOUT; SHOWN = them.
SHOWN=
wait_texts() {
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        SHOWN=$(texts)
        grep -qE -- "$1" <<< "$SHOWN" && return 0
        sleep 0.2
    done
    return 1
}
start_watch() {
    as_user python3 -u "$T/bin/gnome-unlock.py" watch > "$T/io/atspi-events.log" 2>&1 &
    WATCH_PID=$!
}
mark_watch() { WATCH_MARK=$(wc -l < "$T/io/atspi-events.log"); }
# watched TEXT: since the mark, an AT-SPI event of the shell carried TEXT (a label's new
# name or an inserted text).
watched() { tail -n "+$((WATCH_MARK + 1))" "$T/io/atspi-events.log" | grep -qF -- "$1"; }
wait_watched() {
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        watched "$1" && return 0
        sleep 0.1
    done
    return 1
}

# The unlock dialog waits for an answer: its empty password entry shows the placeholder,
# is sensitive and has the keyboard (keys typed before that are lost).
READY_RE="^entry	password text	$PLACEHOLDER		sensitive,focused\$"
# lock_and_raise: lock the session, then a key that raises the unlock dialog's prompt
# (again while no prompt shows: a key pressed during the lock's animation may be lost;
# never while it shows, where Escape would cancel it).
lock_and_raise() {
    local deadline pressed=0
    loginctl lock-session "$GNOME_SESSION"
    wait_locked yes || return 1
    deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        SHOWN=$(texts)
        grep -qE -- "$READY_RE" <<< "$SHOWN" && return 0
        if ! grep -q '^entry	password text' <<< "$SHOWN" && [ $((SECONDS - pressed)) -ge 2 ]; then
            x key Escape
            pressed=$SECONDS
        fi
        sleep 0.2
    done
    return 1
}
# type_answer TEXT: TEXT and Enter into the focused entry.
type_answer() {
    [ -z "$1" ] || x type --delay 40 -- "$1"
    x key Return
}

dialog_diagnostics() {
    echo "#   LockedHint=$(locked_hint) status: $(status_json | tr -d '\n')"
    echo "#   --- the shell's texts now ---"
    texts | sed 's/^/#   | /'
    echo "#   --- AT-SPI events since the mark (last) ---"
    tail -n "+$((WATCH_MARK + 1))" "$T/io/atspi-events.log" 2>/dev/null | grep -v 'text-changed' | tail -n 15 | sed 's/^/#   | /'
    echo "#   --- journal (gdm, pam) ---"
    since_mark --grep 'pam_|gdm|secureroom' | tail -n 8 | sed 's/^/#   | /'
}

inner_stop() {
    if [ -n "$WATCH_PID" ]; then kill "$WATCH_PID" 2>/dev/null || true; fi
    systemctl stop secureroom-e2e-driver.service >/dev/null 2>&1 || true
    # The session GDM logged in ends with the container.
}

TIMINGS=()
inner_main() {
    [ "$(cat /proc/1/comm)" = systemd ] && [ -d /run/systemd/system ] \
        || die "the inner run belongs in the booted container (PID 1 is $(cat /proc/1/comm))"
    local k d boot_start=$SECONDS t0
    BOOTED=$(ps -o etimes= -p 1 | tr -d ' ')
    CLI_CONF=/etc/security/secureroom.conf
    set_pin "$PIN"
    t0=$(now)
    wait_for_gdm || true
    TIMINGS+=("GDM on the system bus: $(since "$t0")s after the inner run began")
    start_driver

    d="GDM ($(dpkg-query -W -f='${Version}' gdm3 2>/dev/null)) on the system bus"
    check "$d; the driver in a real logind session of $TEST_USER (${DRIVER_SESSION:-?}, class user, active)" \
        all gdm_on_bus driver_session_is_real

    # --- 1. the right PIN ---------------------------------------------------------------------
    verify right "$PIN"
    check "UserVerifier: the first prompt GDM relays for $SERVICE is the module's '$PROMPT'" \
        first_prompt_is "$PROMPT"
    check "UserVerifier: the right PIN, answered once: VerificationComplete; nothing counted" \
        all completed "prompts_are '$PROMPT'" 'failures_are 0' success_recorded
    d="UserVerifier: the right PIN was checked by the module in GDM's gdm-session-worker, as root"
    check "$d (the journal's 'PIN accepted')" pin_checked_by_worker

    # --- 2. a wrong PIN ---------------------------------------------------------------------------
    verify wrong "${WRONG_PINS[0]}"
    check "UserVerifier: a wrong PIN: VerificationFailed after the one prompt, counted once (failures 1)" \
        all refused "prompts_are '$PROMPT'" 'failures_are 1'
    check "UserVerifier: a wrong PIN: GDM relays '$(incorrect_pin_text 1)'" told "$(incorrect_pin_text 1)"
    check "UserVerifier: a wrong PIN never reaches pam_unix (auth_err=die; no pam_unix($SERVICE:auth) line)" \
        all '! pam_unix_ran'

    # --- 3. the password in the same field ---------------------------------------------------
    reset_pin
    verify password "$PASSWORD"
    d="UserVerifier: the password in the same field: handed to pam_unix"
    check "$d, VerificationComplete after one prompt; nothing counted" \
        all completed "prompts_are '$PROMPT'" 'failures_are 0'

    # --- 4. the password after a wrong PIN ---------------------------------------------------
    verify wrong2 "${WRONG_PINS[1]}"
    verify password2 "$PASSWORD"
    d="UserVerifier: the password after a wrong PIN (a new verification): VerificationComplete"
    check "$d; the wrong PIN stays counted (failures 1)" \
        all completed "prompts_are '$PROMPT'" 'failures_are 1'

    # --- Enter in the empty field ---------------------------------------------------------------
    reset_pin
    verify empty "" "$PASSWORD"
    d="UserVerifier: Enter in the empty field skips the PIN (not counted)"
    check "$d; pam_unix asks 'Password: ' and the password completes" \
        all completed "prompts_are '$PROMPT' 'Password: '" 'failures_are 0'

    # --- 5. lockout -------------------------------------------------------------------------------
    reset_pin
    for (( k = 1; k <= DENY; k++ )); do
        verify "lockout$k" "${LOCKOUT_PINS[$((k - 1))]}"
        d="UserVerifier: lockout: wrong PIN $k/$DENY refused, counted (failures $k)"
        check "$d, '$(incorrect_pin_text "$k")' relayed" \
            all refused "prompts_are '$PROMPT'" "failures_are $k" "told \"\$(incorrect_pin_text $k)\""
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled
    verify disabled-pin "$PIN"
    d="UserVerifier: PIN disabled: GDM relays '$LOCKED_TEXT' and pam_unix's 'Password: ' at once"
    check "$d; the right PIN typed there is refused and counts nothing" \
        all "told '$LOCKED_TEXT'" "prompts_are 'Password: '" refused "failures_are $DENY" pin_disabled

    # --- 6. the password unlocks a disabled PIN's user -----------------------------------------
    verify disabled-password "$PASSWORD"
    d="UserVerifier: PIN disabled: the password at 'Password: ' completes"
    check "$d; nothing counted, the PIN stays disabled" \
        all completed "told '$LOCKED_TEXT'" "prompts_are 'Password: '" "failures_are $DENY" pin_disabled

    # --- the real dialog ----------------------------------------------------------------------------
    reset_pin
    t0=$(now)
    if wait_for_gnome; then
        d="$(ps -o etimes= -p 1 | tr -d ' ')s after the container's systemd started"
        TIMINGS+=("GNOME session and shell ready (AT-SPI answering): $d, $(since "$t0")s after the D-Bus cases")
    fi
    d="GDM's automatic login: $TEST_USER's x11 session ${GNOME_SESSION:-?}"
    dialog_check "$d with GNOME Shell ($(dpkg-query -W -f='${Version}' gnome-shell 2>/dev/null)) on ${X_DISPLAY:-?} (Xvfb), read through AT-SPI" \
        test -n "$X_DISPLAY"
    if [ -n "$X_DISPLAY" ]; then
        start_watch
        dialog_cases
    fi
    if [ "${SR_E2E_GNOME_HOLD:-0}" = 1 ]; then
        echo "# holding: touch $T/release to end"
        while [ ! -e "$T/release" ]; do sleep 1; done
    fi
    echo "# timings: $(IFS=';'; echo "${TIMINGS[*]}" | sed 's/;/; /g')"
    echo "# the inner run: began $BOOTED s after the container's systemd, took $((SECONDS - boot_start)) s"
    COMPLETE=1
}

dialog_check() { tally "$1" "$1" "${@:2}" || dialog_diagnostics; return 0; }

dialog_cases() {
    local t0 d
    # --- the right PIN unlocks -------------------------------------------------------------------
    mark_journal; t0=$(now)
    mark_watch
    lock_and_raise || true
    d="dialog: loginctl lock-session locks (LockedHint yes); a key raises the unlock dialog"
    dialog_check "$d, its entry's placeholder '$PLACEHOLDER', waiting (sensitive, focused)" \
        all "[ \"\$(locked_hint)\" = yes ]" "grep -qE \"\$READY_RE\" <<< \"\$SHOWN\""
    TIMINGS+=("dialog: lock and raise: $(since "$t0")s")
    t0=$(now)
    type_answer "$PIN"
    wait_locked no || true
    TIMINGS+=("dialog: right PIN to unlocked: $(since "$t0")s")
    d="dialog: the right PIN typed in the field unlocks (LockedHint no)"
    dialog_check "$d, checked in gdm-session-worker; nothing counted" \
        all "[ \"\$(locked_hint)\" = no ]" 'failures_are 0' pin_checked_by_worker

    # --- a wrong PIN: counted, told, still locked -------------------------------------------------
    mark_journal
    lock_and_raise || true
    mark_watch
    t0=$(now)
    type_answer "$DIALOG_WRONG_PIN"
    wait_watched "$(incorrect_pin_text 1)" || true
    TIMINGS+=("dialog: wrong PIN to its message: $(since "$t0")s")
    # Then GDM's own "Sorry, password authentication didn't work. Please try again." and a
    # new prompt, once the failure delay is over.
    wait_watched "$SORRY" || true
    wait_texts "$READY_RE" || true
    TIMINGS+=("dialog: wrong PIN to the next prompt: $(since "$t0")s")
    d="dialog: a wrong PIN: still locked, counted (failures 1), the module's '$(incorrect_pin_text 1)' shown (AT-SPI)"
    dialog_check "$d, then GDM's '$SORRY…' and a new prompt; pam_unix never ran" \
        all "[ \"\$(locked_hint)\" = yes ]" 'failures_are 1' "watched '$(incorrect_pin_text 1)'" 'watched "$SORRY"' \
            "grep -qE \"\$READY_RE\" <<< \"\$SHOWN\"" '! pam_unix_ran'

    # --- the password in the same field unlocks ------------------------------------------------
    t0=$(now)
    type_answer "$PASSWORD"
    wait_locked no || true
    TIMINGS+=("dialog: password to unlocked: $(since "$t0")s")
    d="dialog: then the password typed in the same field unlocks (LockedHint no)"
    dialog_check "$d; the wrong PIN stays counted (failures 1)" \
        all "[ \"\$(locked_hint)\" = no ]" 'failures_are 1'
}

e2e_main
