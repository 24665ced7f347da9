#!/usr/bin/env bash
# Tests/e2e/polkit-agent.sh — end-to-end test of the PIN through a graphical polkit agent:
# polkit-gnome-authentication-agent-1 (on Debian 12; mate-polkit's on later releases) on
# Xvfb, registered for a real systemd-logind session, answered by xdotool, in a booted
# Debian container (systemd-nspawn).
#
# What it proves
#   * a graphical agent needs the caller's login session: it registers for the session
#     sd_pid_get_session names, and polkitd asks that session's agent. Here the session is
#     real: systemd is PID 1 of the container, systemd-logind opens the session for the
#     test user srpolkit (pam_systemd in Debian's PAM service login, started as a unit
#     with PAMName=login), and polkitd's journal says the agent registered for it;
#   * pkexec (`pkexec --disable-internal-agent /usr/bin/id -u`, run in that session) makes
#     polkitd ask the agent; its dialog runs Debian's setuid polkit-agent-helper-1, which
#     runs the PAM service polkit-1 = `@include common-auth-pin` (the module's absolute
#     path, helper= naming no file) before the stack polkitd ships;
#   * what the dialog shows is read from its accessibility tree (AT-SPI, at-spi2-core;
#     Tests/e2e/atspi-dialog.py): the exact prompt and message texts, no screenshot;
#   * the right PIN: the dialog's prompt is the module's "PIN: ", polkitd says
#     "successfully authenticated", pkexec runs the program as root (prints 0, exit 0),
#     nothing is counted;
#   * a wrong PIN: counted (failures 1); the module's message ("Incorrect PIN. 2 attempts
#     left before the PIN is disabled.") shows in the dialog under pam_unix's "Password:";
#     a wrong password brings the agent's "Authentication Failure" and a new "PIN: ";
#     Cancel ends pkexec ("Request dismissed", exit 126), and nothing more is counted;
#   * Enter at "PIN: " skips the PIN (not counted, the module's "The PIN must be exactly 4
#     digits" shows) and the password authenticates;
#   * lockout (deny=3, no delays): three distinct wrong PINs, each shown and counted, each
#     attempt cancelled at "Password:"; then the dialog asks for the password at once, with
#     the module's lockout message, and the password still authenticates;
#   * with SR_E2E_RELEASE=forky (polkit 128 and mate-polkit, polkit-gnome's fork), polkit
#     runs polkit-agent-helper-1 as the sandboxed polkit-agent-helper@.service: without
#     the package's drop-in (pam/polkit-agent-helper.conf) the module cannot count there
#     (read-only state directory) and the right PIN does not open; with it every case
#     above holds, and the journal shows the PIN checked inside that service (on Debian
#     12: inside the setuid helper in the user's session);
#   * nothing outside the container changed (no test user, no leftover nspawn state or
#     processes, the work directory gone).
#
# How
#   The outer run (root, lib.sh) makes the container's root in $T/root from a Debian root
#   image: mmdebstrap of the release (the host's, or SR_E2E_RELEASE) with systemd,
#   libpam-systemd, dbus, polkitd, pkexec, a graphical agent, xvfb, xdotool,
#   at-spi2-core and python3-pyatspi, and the libraries the module and tool link, kept
#   as a tarball under $SR_E2E_IMAGES (default <repo>/.build/e2e-images; named by a
#   digest of release, mirror and package list, so a changed list makes a new one).
#   Into that root it installs the module where the package puts it (and the package's
#   drop-in, where polkit has the helper service), and writes the test user (a real
#   SHA-512 password), /etc/pam.d/polkit-1 and common-auth-pin,
#   /etc/security/secureroom.conf (the default state directory, cheap argon2, deny=3,
#   schedule= empty), the polkit rule (fixtures/polkit/60-secureroom-e2e.rules), polkitd
#   at log level info (124 and later log less by default) and a unit that runs this
#   script's inner run at boot and powers the container off when it ends. Then
#   `systemd-nspawn --boot` (private network, --register=no --keep-unit: no machined or
#   host systemd needed; the unified cgroup hierarchy, which systemd 256 and later need),
#   with $T bound read-write and the checkout read-only at their own paths; the inner
#   run's output is $T/inner.log, shown after.
#   The inner run (root in the container) sets the PIN, opens srpolkit's session
#   (systemd-run --uid=srpolkit -p PAMName=login, session type x11), in which Xvfb, a
#   D-Bus session bus (dbus-run-session) and the agent start and pkexec runs on each
#   request written to a fifo; it types with xdotool and reads the dialog with
#   atspi-dialog.py as srpolkit on that session bus. Counters come from `secureroom
#   status --json`, polkitd's words from its journal.
#
# Usage (root):  Tests/e2e/polkit-agent.sh
#   SECUREROOM_MODULE, SECUREROOM_CLI   as for the other e2e tests (lib.sh)
#   SR_E2E_TIMEOUT   seconds to wait for each dialog state, registration or exit (default 15)
#   SR_E2E_IMAGES    where the root image is kept (default <repo>/.build/e2e-images)
#   SR_E2E_RELEASE   the container's Debian release (default: the host's; scripts/test
#                    runs it again with forky, and with --package with trixie)
#   SR_E2E_MIRROR    the Debian mirror (default http://deb.debian.org/debian)
#   Needs systemd-nspawn (systemd-container), mmdebstrap (and the network, the first time
#   in a month, unless the image is there), python3 or openssl (the password's hash) and
#   lib.sh's tools; nothing of the container's packages on the host.
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

FIXTURES=$REPO/Tests/e2e/fixtures/polkit
# shellcheck source=Tests/e2e/fixtures/polkit/cases.sh
. "$FIXTURES/cases.sh"
DIALOG=Authenticate              # the agent's dialog's title
DISPLAY_NUMBER=:7
STATE=/var/lib/secureroom         # the module's default dir=, in the container
# The Debian release the container runs: the host's, or another (SR_E2E_RELEASE) such as
# forky, whose polkit (128) runs its agent helper as a sandboxed service.
HOST_RELEASE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
RELEASE=${SR_E2E_RELEASE:-$HOST_RELEASE}
IMAGE_KIND=polkit-agent
# What the root image holds: the container's init and login session, the bus, polkit and
# a graphical agent, the X server and the test's tools, and the libraries the module and
# tool need. Debian 12 has polkit-gnome; later releases dropped it for its fork
# mate-polkit. passwd (useradd) is named: Debian 13's login no longer pulls it in.
IMAGE_PACKAGES=systemd,systemd-sysv,libpam-systemd,login,passwd,dbus,dbus-user-session,polkitd,pkexec,xvfb,xdotool,at-spi2-core,python3-pyatspi,libargon2-1,libsqlite3-0,libkeyutils1,procps
case $RELEASE in
    bookworm)
        IMAGE_PACKAGES+=,policykit-1-gnome,libssl3
        AGENT=/usr/lib/policykit-1-gnome/polkit-gnome-authentication-agent-1
        AGENT_FAILURE="Authentication Failure" ;;
    *)
        IMAGE_PACKAGES+=,mate-polkit,libssl3t64
        AGENT=/usr/libexec/polkit-mate-authentication-agent-1
        AGENT_FAILURE="Your authentication attempt was unsuccessful. Please try again." ;;
esac
AGENT_NAME=${AGENT##*/}           # its AT-SPI application name
# Where polkit 127 and later run polkit-agent-helper-1, and the drop-in the package ships
# for it (pam/polkit-agent-helper.conf).
HELPER_UNIT=polkit-agent-helper@.service
DROP_IN=/usr/lib/systemd/system/$HELPER_UNIT.d/secureroom.conf

E2E_PREFIX=sr-polkit-agent
E2E_ROOT_REASON="it boots a container with systemd-nspawn"
E2E_INNER_WHERE="the container"
E2E_TOOLS+=(systemd-nspawn mmdebstrap tar timeout)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
# What the container's root replaces (a path gone wrong would write the host's instead).
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/security/secureroom.conf /etc/pam.d/polkit-1
         /etc/pam.d/common-auth-pin /etc/polkit-1/rules.d/60-secureroom-e2e.rules)
GUARDED_DIRS=(/etc/pam.d /etc/security /etc/polkit-1 /etc/systemd/system)
E2E_GUARDED_DESC="${#GUARDED[@]} files; pam.d, security, polkit-1, systemd/system dirs"
E2E_LEFTOVERS_OK="no work directory, container root or nspawn state left behind"
E2E_LEFTOVERS_BAD="the work directory %s or nspawn state left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
MACHINE="sr-polkit-agent-$$"

outer_prerequisites() {
    need_password_hashing
    [ -f "$FIXTURES/60-secureroom-e2e.rules" ] || die "$FIXTURES/60-secureroom-e2e.rules not found"
    [ -f "$REPO/pam/common-auth-pin" ] || die "pam/common-auth-pin not found"
    [ -n "$RELEASE" ] || die "no release: /etc/os-release names no VERSION_CODENAME (set SR_E2E_RELEASE)"
    [ -f "$REPO/pam/polkit-agent-helper.conf" ] || die "pam/polkit-agent-helper.conf not found"
    image_path
}
# Processes of the test: those of the test user's uid (the container shares the host's
# uids). The container's own (systemd, journald, polkitd) end with its PID namespace.
test_processes() {
    namespace_processes "$TEST_UID"
    return 0
}
outer_checks() {
    tally_none_left "no process of the test user (Xvfb, agent, pkexec) left running" \
                    "processes of the container's session left running"
}

# The container's root: the image, the module where the package puts it (and, where
# polkit runs its helper as a service, the package's drop-in for it), the test user, the
# PAM stacks, the policy, the rule, and the unit that runs the inner run.
make_root() {
    local root=$T/root base
    unpack_image "$root"
    [ -x "$root$AGENT" ] || die "the image has no $AGENT"
    install_module "$root"
    if [ -f "$root/usr/lib/systemd/system/$HELPER_UNIT" ]; then
        install -D -m 0644 "$REPO/pam/polkit-agent-helper.conf" "$root$DROP_IN" || die "could not install the drop-in"
    fi
    # polkitd 124 and later log at level notice unless told otherwise; the checks read the
    # lines 122 logs by default (an agent registered, an operator authenticated).
    if grep -q -- '--log-level=' "$root/usr/lib/systemd/system/polkit.service"; then
        install -d -m 0755 "$root/etc/systemd/system/polkit.service.d" || die "no polkit.service.d"
        sed -n 's/^ExecStart=\(.*\)--log-level=[a-z]*\(.*\)$/[Service]\nExecStart=\nExecStart=\1--log-level=info\2/p' \
            "$root/usr/lib/systemd/system/polkit.service" > "$root/etc/systemd/system/polkit.service.d/e2e-log-level.conf"
    fi
    chroot "$root" useradd --create-home --uid "$TEST_UID" --comment "SecureRoom e2e (polkit agent)" \
        --shell /bin/bash "$TEST_USER" || die "useradd $TEST_USER in the container's root failed"
    chroot "$root" usermod --password "$(hash_password "$PASSWORD")" "$TEST_USER" \
        || die "usermod --password $TEST_USER in the container's root failed"

    printf '%s\n' "# generated by $E2E_NAME (container only)" \
        "tpm = off" "argon2_memory = 256" "argon2_time = 1" "argon2_lanes = 1" \
        "argon2_below_floor" "deny = $DENY" "schedule =" > "$root/etc/security/secureroom.conf"
    install -d -m 0755 "$T/bin"
    MODULE=${PAM_DIR#"$root"}/pam_secureroom.so \
        stack_file common-auth-pin "$root/etc/pam.d/common-auth-pin" "$T/bin/not-a-helper"
    base=$root/usr/lib/pam.d/polkit-1
    [ -f "$root/etc/pam.d/polkit-1" ] && base=$root/etc/pam.d/polkit-1
    {
        echo "#%PAM-1.0"
        echo "# generated by $E2E_NAME (container only): the PIN, then ${base#"$root"}"
        echo "@include common-auth-pin"
        grep -vx '#%PAM-1.0' "$base"
    } > "$root/etc/pam.d/polkit-1.new"
    mv "$root/etc/pam.d/polkit-1.new" "$root/etc/pam.d/polkit-1"
    chmod 0644 "$root/etc/pam.d/polkit-1"
    # 0644 whatever the umask: polkitd reads its rules as the user polkitd.
    sed -e "s|@TEST_USER@|$TEST_USER|g" -e "s|@PROGRAM@|$PROGRAM|g" \
        "$FIXTURES/60-secureroom-e2e.rules" > "$root/etc/polkit-1/rules.d/60-secureroom-e2e.rules" \
        || die "could not write the polkit rule"
    chmod 0644 "$root/etc/polkit-1/rules.d/60-secureroom-e2e.rules"
    # The AT-SPI reader, where srpolkit can run it whatever the checkout's modes.
    install -m 0755 "$REPO/Tests/e2e/atspi-dialog.py" "$T/bin/atspi-dialog.py"

    inner_unit "$root" "Environment=SR_E2E_RELEASE=$RELEASE"
}

outer_launch() {
    make_image
    make_root
    # Each inner wait is TIMEOUT at most.
    boot_container $((TIMEOUT * 40))
}

# ---------------------------------------------------------------------------------------
# Inner run (root in the booted container).
# ---------------------------------------------------------------------------------------
SESSION= BUS= LOG_MARK=0 ATTEMPT_START=0 OUT= RC= STEPS=0 SHOWN=()

# journal ARGS...: the journal's lines without prefixes (journalctl's own ARGS: a unit, --grep).
journal() { journalctl --quiet --no-pager -o cat "$@" 2>/dev/null || true; }
polkitd_log() { journal -u polkit.service; }
# polkitd_says RE: a line of polkitd's since the attempt began (after its first LOG_MARK lines).
polkitd_says() {
    local lines
    lines=$(polkitd_log | tail -n "+$((LOG_MARK + 1))")
    grep -qE -- "$1" <<< "$lines"
}

# The dialog as AT-SPI shows it (lines "label<TAB>TEXT", "entry<TAB>(in)sensitive").
dialog() {
    [ -n "$BUS" ] || return 0
    timeout 5 setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env DBUS_SESSION_BUS_ADDRESS="$BUS" DISPLAY="$DISPLAY_NUMBER" \
        "$T/bin/atspi-dialog.py" "$AGENT_NAME" "$DIALOG" 2>/dev/null || true
}
x() { DISPLAY=$DISPLAY_NUMBER XAUTHORITY= timeout 5 xdotool "$@"; }

# The session: Xvfb, a session bus, the agent, and pkexec for each line "NAME" in the fifo.
session_script() {
    cat <<SCRIPT
Xvfb $DISPLAY_NUMBER -screen 0 1024x768x24 -nolisten tcp > $T/io/xvfb.log 2>&1 &
export DISPLAY=$DISPLAY_NUMBER
for i in \$(seq $((TIMEOUT * 10))); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
echo "\$XDG_SESSION_ID" > $T/io/session
exec dbus-run-session -- bash -c '
echo "\$DBUS_SESSION_BUS_ADDRESS" > $T/io/bus.new && mv $T/io/bus.new $T/io/bus
$AGENT > $T/io/agent.log 2>&1 &
while read -r name; do
    pkexec --disable-internal-agent $PROGRAM -u > $T/io/\$name.out 2> $T/io/\$name.err
    echo \$? > $T/io/\$name.rc.new && mv $T/io/\$name.rc.new $T/io/\$name.rc
done < $T/io/requests'
SCRIPT
}

start_session() {
    local i
    install -d -m 1777 "$T/io"
    mkfifo -m 0622 "$T/io/requests"
    chown "$TEST_UID:$TEST_UID" "$T/io/requests"
    session_script > "$T/session.sh"
    chmod 0644 "$T/session.sh"
    systemd-run --quiet --unit=secureroom-e2e-session --uid="$TEST_UID" --property=PAMName=login \
        --setenv=XDG_SESSION_TYPE=x11 --setenv=XDG_SESSION_CLASS=user /bin/bash "$T/session.sh" \
        || die "systemd-run of $TEST_USER's session failed"
    exec 9<>"$T/io/requests"     # read-write: opening never waits for the session's reader
    local deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ]; do
        [ -s "$T/io/bus" ] && [ -n "$(journal -u polkit.service --grep 'Registered Authentication Agent for unix-session:')" ] \
            && break
        sleep 0.1
    done
    SESSION=$(cat "$T/io/session" 2>/dev/null || true)
    BUS=$(cat "$T/io/bus" 2>/dev/null || true)
}

# A real logind session of the test user, of type x11 and class user, active.
# (That systemd is PID 1, inner_main has made sure of.)
session_is_real() {
    systemctl is-active --quiet systemd-logind.service && [ -n "$SESSION" ] \
        && [ "$(loginctl show-session "$SESSION" -p Name -p Type -p Class -p Active | sort)" \
             = "$(printf '%s\n' Active=yes Class=user "Name=$TEST_USER" Type=x11)" ]
}
agent_registered() {
    [ -n "$(journal -u polkit.service --grep "Registered Authentication Agent for unix-session:$SESSION .*\\[$AGENT\\]")" ]
}

# ---- one pkexec through the agent's dialog -----------------------------------------------
# attempt NAME PROMPT ANSWER [PROMPT ANSWER...]: pkexec in the session; for each pair, waits
# (up to TIMEOUT) until the dialog waits for input at PROMPT ("PIN: ", "Password:") in a
# state other than the last one, keeps that state in SHOWN[k], then types ANSWER and Enter
# (CANCEL: Escape, the dialog's Cancel). Then waits for pkexec's exit status (RC; "timeout"
# if it does not end, after which the dialog is cancelled). STEPS counts the prompts met.
attempt() {
    local name=$1 previous= state deadline
    shift
    OUT=$T/io/$name.out RC=timeout STEPS=0 SHOWN=()
    LOG_MARK=$(polkitd_log | wc -l) ATTEMPT_START=$(date +%s)
    echo "$name" >&9
    while [ $# -ge 2 ]; do
        state= deadline=$((SECONDS + TIMEOUT))
        while [ "$SECONDS" -lt "$deadline" ]; do
            state=$(dialog)
            if grep -qxF "label	$1" <<< "$state" && grep -qx 'entry	sensitive' <<< "$state" \
                    && [ "$state" != "$previous" ]; then
                break
            fi
            state=
            sleep 0.1
        done
        [ -n "$state" ] || break
        SHOWN+=("$state") previous=$state STEPS=$((STEPS + 1))
        x search --name "^$DIALOG\$" windowfocus --sync >/dev/null 2>&1 || true
        if [ "$2" = CANCEL ]; then
            x key Escape
        else
            [ -z "$2" ] || x type --delay 20 -- "$2"
            x key Return
        fi
        shift 2
    done
    deadline=$((SECONDS + TIMEOUT))
    while [ "$SECONDS" -lt "$deadline" ] && [ ! -f "$T/io/$name.rc" ]; do sleep 0.1; done
    if [ -f "$T/io/$name.rc" ]; then
        RC=$(cat "$T/io/$name.rc")
    else
        x search --name "^$DIALOG\$" windowfocus key Escape >/dev/null 2>&1 || true
    fi
}

# shown K LINE: the dialog at prompt K (1-based) showed the label LINE, exactly.
shown() { [ "$STEPS" -ge "$1" ] && grep -qxF "label	$2" <<< "${SHOWN[$(($1 - 1))]}"; }
# checked_in UNIT_PATTERN: the module's last "PIN accepted" line came from a process of a
# unit matching UNIT_PATTERN (the journal's _SYSTEMD_UNIT).
checked_in() {
    local unit
    unit=$(journalctl --quiet --no-pager -o verbose --grep "PIN accepted for $TEST_USER" 2>/dev/null \
        | sed -n 's/^ *_SYSTEMD_UNIT=//p' | tail -n 1)
    # shellcheck disable=SC2053  # a glob, on purpose
    [ -n "$unit" ] && [[ $unit == $1 ]]
}
# module_logged RE: a line of the module in the journal since the attempt began.
module_logged() {
    [ -n "$(journal --since "@$ATTEMPT_START" --grep "pam_secureroom.*$1")" ]
}
# systemd applies the drop-in to the helper's instances (its paths in their properties).
drop_in_applied() {
    local properties
    properties=$(systemctl show "${HELPER_UNIT/@/@e2e}" --property=ReadWritePaths,BindPaths,DeviceAllow,DropInPaths)
    grep -qF "$DROP_IN" <<< "$properties" && grep -qF /var/lib/secureroom <<< "$properties" \
        && grep -qF /run/secureroom <<< "$properties" && grep -qF /dev/tpmrm0 <<< "$properties"
}
polkit_version() { dpkg-query -W -f='${Version}' polkitd 2>/dev/null || echo '?'; }
# err_is TEXT: pkexec's standard error in the last attempt (beside OUT) is TEXT.
err_is() { [ "$(cat "${OUT%.out}.err" 2>/dev/null)" = "$1" ]; }
steps_are() { [ "$STEPS" = "$1" ]; }
authenticated() {
    polkitd_says "Operator of unix-session:$SESSION successfully authenticated as unix-user:$TEST_USER to gain ONE-SHOT authorization for action $ACTION"
}
dismissed() { all 'rc_is 126' out_empty "err_is 'Error executing command as another user: Request dismissed'"; }

check_diagnostics() {
    local k
    local status
    status=$(status_json | tr -d '\n')
    echo "#   rc=$RC steps=$STEPS out=$(head -c 40 "$OUT" 2>/dev/null || true)"
    echo "#   status: $status"
    for (( k = 0; k < ${#SHOWN[@]}; k++ )); do
        echo "#   --- dialog at prompt $((k + 1)) ---"
        printf '%s\n' "${SHOWN[$k]}" | sed 's/^/#   | /'
    done
    echo "#   --- dialog now ---"
    dialog | sed 's/^/#   | /'
    echo "#   --- polkitd (last lines) ---"
    polkitd_log | tail -n 6 | sed 's/^/#   | /'
    echo "#   --- the module's journal lines (last) ---"
    journalctl --quiet --no-pager -o short --grep=secureroom 2>/dev/null | tail -n 6 | sed 's/^/#   | /'
}

inner_stop() {
    systemctl stop secureroom-e2e-session.service >/dev/null 2>&1 || true
}

inner_main() {
    [ "$(cat /proc/1/comm)" = systemd ] && [ -d /run/systemd/system ] \
        || die "the inner run belongs in the booted container (PID 1 is $(cat /proc/1/comm))"
    CLI_CONF=/etc/security/secureroom.conf
    set_pin "$PIN"
    start_session
    local k d name

    check "a real systemd-logind session: $TEST_USER's session ${SESSION:-?} (type x11, class user, active), systemd PID 1" \
        session_is_real
    check "the graphical agent ($AGENT_NAME) registered with polkitd for unix-session:${SESSION:-?}" agent_registered

    # --- z. polkit's sandboxed helper without the package's drop-in ------------------------
    if [ -f "$DROP_IN" ]; then
        mv "$DROP_IN" "$T/drop-in.conf" && systemctl daemon-reload
        attempt z "PIN: " "$PIN" "Password:" CANCEL
        d="polkit's sandboxed $HELPER_UNIT without the package's drop-in: the state directory is read-only there"
        check "$d (the module logs 'Read-only file system'), so the right PIN cannot be counted and does not open" \
            all 'steps_are 2' 'shown 2 "Password:"' 'module_logged "Read-only file system"' dismissed \
                'failures_are 0' '! success_recorded'
        mv "$T/drop-in.conf" "$DROP_IN" && systemctl daemon-reload
    fi

    # --- a. the right PIN ---------------------------------------------------------------
    attempt a "PIN: " "$PIN"
    check "right PIN: the dialog asks 'PIN: ' (the module's prompt); polkitd: successfully authenticated" \
        all 'steps_are 1' 'shown 1 "PIN: "' authenticated
    check "right PIN: pkexec runs $PROGRAM as root (prints 0, exit 0); nothing counted, last_success recorded" \
        all 'rc_is 0' 'out_is 0' 'failures_are 0' success_recorded
    if [ -f "$DROP_IN" ]; then
        check "right PIN: checked inside polkit's sandboxed $HELPER_UNIT (polkit $(polkit_version)), with the package's drop-in" \
            all 'checked_in "polkit-agent-helper@*.service"' drop_in_applied
    else
        check "right PIN: checked in the setuid polkit-agent-helper-1 the agent runs in session $SESSION (polkit $(polkit_version))" \
            checked_in "session-$SESSION.scope"
    fi

    # --- b. a wrong PIN, a wrong password, Cancel -----------------------------------------
    attempt b "PIN: " "$WRONG_PIN" "Password:" "$WRONG_PASSWORD" "PIN: " CANCEL
    check "wrong PIN: counted (failures 1); the dialog shows '$(incorrect_pin_text 1)' under pam_unix's 'Password:'" \
        all 'steps_are 3' "shown 2 \"\$(incorrect_pin_text 1)\"" 'failures_are 1'
    check "wrong password: the agent's '$AGENT_FAILURE' and a new 'PIN: '; Cancel: pkexec 'Request dismissed' (126)" \
        all 'shown 3 "$AGENT_FAILURE"' dismissed 'failures_are 1'

    # --- c. Enter at PIN: skips the PIN; the password authenticates -----------------------
    attempt c "PIN: " "" "Password:" "$PASSWORD"
    d="Enter at 'PIN: ': not counted, the module's 'The PIN must be exactly 4 digits' shows"
    check "$d; the password authenticates and pkexec runs $PROGRAM as root" \
        all 'steps_are 2' 'shown 2 "The PIN must be exactly 4 digits (0-9)."' authenticated 'rc_is 0' 'out_is 0' \
            'failures_are 1'

    # --- d. lockout -------------------------------------------------------------------------
    reset_pin
    for (( k = 1; k <= DENY; k++ )); do
        attempt "d$k" "PIN: " "${LOCKOUT_PINS[$((k - 1))]}" "Password:" CANCEL
        check "lockout: wrong PIN $k/$DENY counted (failures $k), '$(incorrect_pin_text "$k")' shown; Cancel at Password:" \
            all 'steps_are 2' "failures_are $k" "shown 2 \"\$(incorrect_pin_text $k)\"" dismissed
    done
    check "lockout: status --json shows the PIN disabled after $DENY failures" pin_disabled

    attempt e "Password:" "$PASSWORD"
    d="PIN disabled: the dialog asks for the password at once, with"
    check "$d 'PIN disabled after $DENY failed attempts; ask an administrator.'" \
        all 'steps_are 1' "shown 1 \"PIN disabled after $DENY failed attempts; ask an administrator.\"" \
            "! shown 1 'PIN: '"
    check "PIN disabled: the password still authenticates (pkexec runs $PROGRAM, exit 0); nothing counted" \
        all authenticated 'rc_is 0' 'out_is 0' "failures_are $DENY" pin_disabled

    COMPLETE=1
}

e2e_main
