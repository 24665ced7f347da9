# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/e2e/lib.sh — the harness shared by the end-to-end tests (su-sudo.sh, sshd.sh,
# screen-locker.sh). Sourced, never run. Each test keeps its own setup and cases; this
# file holds what they do alike (and container.sh what the tests that run in a Debian
# container do alike).
#
# The shape of a test
#   The script runs twice. The outer run (root, `outer_main`) checks prerequisites,
#   records a digest of the files it guards, makes a work directory $T (root 0755 under
#   /tmp), re-executes the script inside `scripts/lib/sandbox "${E2E_SANDBOX[@]}"` and, once that
#   inner run has finished, reads its counters from $T/results, removes $T and checks
#   that nothing outside changed: the digest, no test user, no mount left. The inner run
#   (`inner_main`, written by the test) sets up its private copies with the helpers
#   below and runs its cases with `check`. A test ends with `e2e_main`, which picks the
#   run. Output: TAP-like lines ("ok N - ...", "not ok N - ...", "1..N"), then
#   "N passed, M failed"; exit 0 all passed, 1 some failed, 2 could not run (`die`).
#
# What the caller sets (after sourcing, before e2e_main)
#   E2E_NAME          name in `die` messages (default: the script's file name)
#   E2E_PREFIX        names the work dir (/tmp/PREFIX.XXXXXX), the tmux socket (PREFIX-PID)
#                     and any tmpfs the test mounts; a mount naming it is a leftover
#   E2E_SANDBOX       array: scripts/lib/sandbox's options: () for a private mount
#                     namespace, (--net) for a private network namespace too
#   E2E_ROOT_REASON   why root is needed (in the "must run as root (...)" message)
#   E2E_INNER_WHERE   "the namespace" or "the namespaces" (the "aborted" message)
#   E2E_TOOLS         array: commands that must exist
#   E2E_USERS         array: test users, which must not exist outside (before and after)
#   E2E_UIDS          array: their uids, likewise
#   GUARDED           array: files whose sha256 (or absence) must not change
#   GUARDED_DIRS      array: directories whose listings (mode, size, mtime) must not change
#   E2E_GUARDED_DESC  words for the digest check (default "N files, M dirs")
#   E2E_LEFTOVERS_OK  the "no mounts left" check's description
#   E2E_LEFTOVERS_BAD its failure text, a printf format whose %s is the work directory
#   TEST_USER         the user whose PIN status_json, failures_of, reset_pin look at
#   and the variables below have defaults the environment may override:
#   MODULE (SECUREROOM_MODULE), CLI (SECUREROOM_CLI), TIMEOUT (SR_E2E_TIMEOUT, 15 s).
#
# Hooks (functions the caller may redefine after sourcing; the defaults do nothing)
#   outer_prerequisites  more checks after the tools (die on a missing one)
#   outer_snapshot       record more "before" state, right after the digest
#   outer_header         more "# ..." lines after "# module:" and "# cli:"
#   outer_launch         run the inner run; its status is the inner run's (default: this
#                        script inside scripts/lib/sandbox "${E2E_SANDBOX[@]}", with the
#                        SR_E2E_* variables e2e_main reads; polkit-agent.sh boots a container)
#   outer_on_abort       diagnostics when the inner run did not finish
#   outer_checks         the test's own outer checks (with `tally`), before the cleanup
#   outer_cleanup        stop what the test may have left (also run by the EXIT trap)
#   outer_leftovers      0 if nothing else is left (besides mounts and $T)
#   inner_main           the inner run (required): setup and cases; set COMPLETE=1 at the end
#   inner_stop           stop the test's daemons when the inner run ends (EXIT trap)
#   check_diagnostics    what `check` prints after a "not ok" line
#
# Functions
#   die MSG                    "NAME: MSG" on stderr, exit 2
#   tally OK BAD CMD...        run CMD; count one check; "ok N - OK" or "not ok N - BAD";
#                              returns CMD's status (so: tally ... || diagnostics)
#   check DESC CMD...          tally with one description, check_diagnostics on failure;
#                              always returns 0
#   all 'COND' ...             every COND (a predicate call, as one string) holds
#   system_digest, mount_points
#   tally_none_left OK BAD     wait up to 3 s for `test_processes` (the caller's) to print
#                              nothing; count one check; on failure show them with ps
#   require_private_ns mnt|net WHAT   die unless the inner run has its own namespace of that kind
#   enter_namespaces [NET_WHAT]  both checks (net only given NET_WHAT; then $T/netns and lo
#                              up), then mount --make-rprivate /
#   bind_over SRC DST          bind-mount SRC over DST (dies if DST is not a mount point then)
#   add_user NAME UID HASH GECOS   a user (own group, home $T/home/NAME 0700, shadow lastchg
#                              today) in private copies of passwd/shadow/group/gshadow
#   bind_users                 bind those copies over /etc and check the users resolve
#   hash_password PASSWORD     a SHA-512 crypt hash (python3 crypt, else openssl passwd -6)
#   quiet_default_conf         a private config (tpm = off) over /etc/security/secureroom.conf,
#                              if it exists; CLI_CONF names it for the admin tool
#   need_password_hashing, need_setuid_helper   outer prerequisites (python3 or openssl;
#                              $HELPER executable, /tmp not nosuid)
#   helper_policy UID USER LINE...  the setuid helper in $T/bin and a private /etc/security
#                              whose secureroom.conf (STATE, cheap argon2, LINE...) it reads
#   sink_login_records         copies over /var/log/{wtmp,btmp,lastlog}
#   stack_file SRC DST HELPER  the shipped stack pam/SRC as DST (0644, readable by PAM in
#                              a user's process whatever the umask) with the module's
#                              absolute path and helper=HELPER on its auth line
#   namespace_processes UID    pids in the network namespace recorded in $T/netns, or of
#                              real uid UID (the test's processes, for the leftover checks)
#   vprompt_tap_lines          gdb commands for a breakpoint at libpam's pam_vprompt(pamh,
#                              style, response, fmt, va_list): "SR-TAP style=N" and, for the
#                              "%s" format, "SR-TAP text=..." read from the va_list (x86-64)
#   start_system_bus POLICY... a private system bus (fixtures/system-bus.conf with each
#                              POLICY, a service's shipped bus policy file, included) at the
#                              standard socket; the caller made /run/dbus private first. Its
#                              log $T/log/bus.log; sets BUS_PID; dies unless it answers
#   system_bus_call METHOD ARG...  a call to that bus's own org.freedesktop.DBus
#   set_pin PIN [SET OPTIONS...] in STATE (default $T/state): secureroom init, set TEST_USER's PIN, check
#   status_json [USER], failures_of [USER], failures_are N, pin_disabled, success_recorded, reset_pin
#   incorrect_pin_text K       the module's message after wrong PIN K of DENY in a row
#   tmux_ ARGS...              tmux on the test's private server (tmux -L $SOCK)
#   start_tmux                 its session; panes stay after their command exits
#   open_window NAME UID CMD   CMD (bash, then a "__RC=<status>__" line) as UID (setpriv, no
#                              PAM) in a new window; sets PANE
#   read_rc                    RC = the exit status from PANE's marker line (if shown)
#   capture PANE, pane_has PANE RE, wait_for PANE RE, type_line PANE TEXT, done_pane
#   predicates: rc_is, rc_failed, out_is, out_empty, shows, not_shows (on RC, OUT, PANE)
#   locker_alive, locker_reap, stop_locker   a locker started in a session of its own,
#                              LOCKER_PID: whether it runs; reap it (LOCKER_RC its status);
#                              end its session and reap it
#
# Variables it sets: REPO, SELF, T (work dir), SOCK (tmux socket), STATE (enrol), N, PASS,
# FAIL, COMPLETE, PANE, RC, OUT (the file the case's command writes; set by the caller).

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SELF=$(readlink -f "$0")
MODULE=${SECUREROOM_MODULE:-$REPO/.build/release/pam_secureroom.so}
CLI=${SECUREROOM_CLI:-$REPO/.build/release/secureroom}
TIMEOUT=${SR_E2E_TIMEOUT:-15}

E2E_NAME=$(basename "$0")
E2E_SANDBOX=()
E2E_ROOT_REASON="it bind-mounts over /etc inside a private mount namespace"
E2E_INNER_WHERE="the namespace"
E2E_TOOLS=(unshare tmux setpriv sha256sum mount mountpoint getent)
E2E_USERS=() E2E_UIDS=() GUARDED=() GUARDED_DIRS=() E2E_ADDED=()
E2E_LEFTOVERS_OK="no bind mounts or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts or %s left behind"

N=0 PASS=0 FAIL=0 COMPLETE=0 STATE=

outer_prerequisites() { :; }
outer_snapshot() { :; }
outer_header() { :; }
outer_on_abort() { :; }
outer_checks() { :; }
outer_cleanup() { :; }
outer_leftovers() { :; }
inner_stop() { :; }
check_diagnostics() { :; }

die() { echo "$E2E_NAME: $*" >&2; exit 2; }

tally() {
    local ok=$1 bad=$2; shift 2
    N=$((N + 1))
    if "$@"; then
        PASS=$((PASS + 1)); echo "ok $N - $ok"; return 0
    fi
    FAIL=$((FAIL + 1)); echo "not ok $N - $bad"; return 1
}

check() {
    local desc=$1; shift
    tally "$desc" "$desc" "$@" || check_diagnostics
    return 0
}

all() { local c; for c in "$@"; do eval "$c" || return 1; done; }

# A digest of every guarded file (or "absent") and of the guarded directories' listings.
system_digest() {
    local f
    for f in "${GUARDED[@]}"; do
        if [ -e "$f" ]; then sha256sum "$f"; else echo "absent $f"; fi
    done
    for f in "${GUARDED_DIRS[@]}"; do
        if [ -d "$f" ]; then find "$f" -printf '%p %m %s %T@\n' | sort; else echo "absent $f"; fi
    done
    return 0
}

# Mount points of this mount namespace.
mount_points() { awk '{ print $5 }' /proc/self/mountinfo | sort; }

tally_none_left() {
    local left i
    for (( i = 0; i < 30; i++ )); do
        left=$(test_processes | tr '\n' ' ')
        [ -z "$left" ] && break
        sleep 0.1
    done
    tally "$1" "$2: $left" test -z "$left" && return 0
    # shellcheck disable=SC2086
    ps -o pid,user,args -p "$(echo $left | tr ' ' ',')" 2>/dev/null | sed 's/^/#   /' || true
}

# ---------------------------------------------------------------------------------------
# Outer run: prerequisites, namespace, before/after comparison.
# ---------------------------------------------------------------------------------------
users_absent() {
    local u
    for u in "${E2E_USERS[@]}" "${E2E_UIDS[@]}"; do
        if getent passwd "$u" >/dev/null; then return 1; fi
    done
    return 0
}

nothing_left() {
    [ "$E2E_MOUNTS_BEFORE" = "$(mount_points)" ] && ! grep -qF -- "$E2E_PREFIX" /proc/self/mountinfo \
        && [ ! -e "$T" ] && outer_leftovers
}

outer_main() {
    [ "$(id -u)" -eq 0 ] || die "must run as root ($E2E_ROOT_REASON)"
    local tool u
    for tool in "${E2E_TOOLS[@]}"; do
        command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found"
    done
    outer_prerequisites
    [ -f "$MODULE" ] || die "module not found: $MODULE (build it, or set SECUREROOM_MODULE)"
    [ -x "$CLI" ] || die "CLI not found or not executable: $CLI (build it, or set SECUREROOM_CLI)"
    MODULE=$(readlink -f "$MODULE")
    CLI=$(readlink -f "$CLI")
    case "$MODULE" in *[[:space:]]*) die "module path must not contain spaces (pam.d syntax): $MODULE";; esac
    for u in "${E2E_USERS[@]}"; do
        if getent passwd "$u" >/dev/null; then die "user $u already exists on this system"; fi
    done
    for u in "${E2E_UIDS[@]}"; do
        if getent passwd "$u" >/dev/null; then die "uid $u already exists on this system"; fi
    done

    local before after
    before=$(system_digest)
    outer_snapshot
    E2E_MOUNTS_BEFORE=$(mount_points)

    # Work directory: root-owned 0755 under sticky /tmp, so it is an acceptable ancestor
    # of the module's state directory and traversable by the test users.
    T=$(mktemp -d "/tmp/$E2E_PREFIX.XXXXXX")
    chmod 0755 "$T"
    SOCK="$E2E_PREFIX-$$"
    export TMUX_TMPDIR="$T"          # keep tmux's socket inside $T, not /tmp/tmux-0
    unset TMUX
    trap 'outer_cleanup; tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true; rm -rf "$T"' EXIT

    echo "# module: $MODULE"
    echo "# cli:    $CLI"
    # Copies the test users can load and run wherever the checkout is (a 0700 home, /root).
    install -d -m 0755 "$T/artifacts"
    install -m 0644 "$MODULE" "$T/artifacts/pam_secureroom.so"
    # The module's core, which it loads from beside itself (the build tree) or from
    # ../secureroom/ (installed).
    local core
    for core in "${MODULE%/*}/pam_secureroom_core.so" "${MODULE%/*}/../secureroom/pam_secureroom_core.so"; do
      [ -e "$core" ] && { install -m 0644 "$core" "$T/artifacts/pam_secureroom_core.so"; break; }
    done
    install -m 0755 "$CLI" "$T/artifacts/secureroom"
    MODULE=$T/artifacts/pam_secureroom.so CLI=$T/artifacts/secureroom
    outer_header
    local rc=0
    outer_launch || rc=$?

    # Counters written by the inner run (absent if it died early).
    local complete=0
    [ -f "$T/results" ] && read -r PASS FAIL N complete < "$T/results"
    if [ "$complete" != 1 ]; then
        N=$((N + 1)); FAIL=$((FAIL + 1))
        echo "not ok $N - inner run (inside $E2E_INNER_WHERE) aborted before finishing (exit $rc)"
        outer_on_abort
    fi
    outer_checks

    # Nothing outside the namespace changed.
    outer_cleanup
    tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true
    rm -rf "$T"
    trap - EXIT
    after=$(system_digest)
    tally "system files unchanged outside the namespace (${E2E_GUARDED_DESC:-${#GUARDED[@]} files, ${#GUARDED_DIRS[@]} dirs})" \
          "system files changed outside the namespace" test "$before" = "$after" \
        || diff <(echo "$before") <(echo "$after") | sed 's/^/#   /' || true
    if [ "${#E2E_USERS[@]}" -eq 1 ]; then
        tally "test user ${E2E_USERS[0]} does not exist outside the namespace" \
              "test user ${E2E_USERS[0]} leaked outside the namespace" users_absent || true
    else
        tally "test users $(IFS=/; echo "${E2E_USERS[*]}") do not exist outside the namespace" \
              "test users leaked outside the namespace" users_absent || true
    fi
    # shellcheck disable=SC2059
    tally "$E2E_LEFTOVERS_OK" "$(printf "$E2E_LEFTOVERS_BAD" "$T")" nothing_left || true

    echo "1..$N"
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}

# The inner run: this script again, inside scripts/lib/sandbox, told by its environment.
outer_launch() {
    SR_E2E_INNER=1 SR_E2E_T="$T" SR_E2E_SOCK="$SOCK" SR_E2E_OUTER_PID=$$ \
        SECUREROOM_MODULE="$MODULE" SECUREROOM_CLI="$CLI" \
        "$REPO/scripts/lib/sandbox" "${E2E_SANDBOX[@]}" -- /bin/bash "$SELF"
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private namespaces).
# ---------------------------------------------------------------------------------------
tmux_() { tmux -L "$SOCK" -f /dev/null "$@"; }

inner_cleanup() {
    tmux_ kill-server >/dev/null 2>&1 || true
    inner_stop
    echo "$PASS $FAIL $N $COMPLETE" > "$T/results" 2>/dev/null || true
}

# require_private_ns mnt|net WHAT: refuse to touch anything unless this run really is in a
# namespace of its own (not the outer run's).
require_private_ns() {
    local kind=$1 what=$2 word=mount
    [ "$kind" = net ] && word=network
    [ "$(readlink "/proc/self/ns/$kind")" != "$(readlink "/proc/$SR_E2E_OUTER_PID/ns/$kind")" ] \
        || die "inner run is not in a private $word namespace; refusing to $what"
}

# enter_namespaces [NET_WHAT]: check the private mount namespace (and, given NET_WHAT, the
# private network namespace: its link goes to $T/netns and its loopback comes up), then
# make every mount private.
enter_namespaces() {
    require_private_ns mnt bind-mount
    [ $# -eq 0 ] || require_private_ns net "$1"
    mount --make-rprivate /
    [ $# -eq 0 ] && return 0
    readlink /proc/self/ns/net > "$T/netns"
    ip link set lo up || die "ip link set lo up failed"
}

# Bind-mount a private copy of FILE (made by the caller) over FILE.
bind_over() {
    local src=$1 dst=$2
    mount --bind "$src" "$dst"
    mountpoint -q "$dst" || die "bind mount over $dst failed"
}

add_user() {
    local name=$1 uid=$2 hash=$3 gecos=$4 f
    local day=$(( $(date +%s) / 86400 ))
    install -d -m 0755 "$T/etc" "$T/home"
    if [ ! -e "$T/etc/passwd" ]; then
        for f in passwd shadow group gshadow; do
            if [ -e "/etc/$f" ]; then cp -p "/etc/$f" "$T/etc/$f"; fi
        done
    fi
    install -d -m 0700 -o "$uid" -g "$uid" "$T/home/$name"
    printf '%s:x:%s:%s:%s:%s:/bin/bash\n' "$name" "$uid" "$uid" "$gecos" "$T/home/$name" >> "$T/etc/passwd"
    # lastchg = today (0 would force a password change in the account stack).
    printf '%s:%s:%s:0:99999:7:::\n' "$name" "$hash" "$day" >> "$T/etc/shadow"
    printf '%s:x:%s:\n' "$name" "$uid" >> "$T/etc/group"
    if [ -e "$T/etc/gshadow" ]; then printf '%s:!::\n' "$name" >> "$T/etc/gshadow"; fi
    E2E_ADDED+=("$name:$uid")
}

bind_users() {
    local f u
    for f in passwd shadow group gshadow; do
        if [ -e "$T/etc/$f" ]; then bind_over "$T/etc/$f" "/etc/$f"; fi
    done
    for u in "${E2E_ADDED[@]}"; do
        [ "$(getent passwd "${u%%:*}" | cut -d: -f3)" = "${u#*:}" ] \
            || die "${u%%:*} not visible after bind mount (nscd?)"
    done
}

hash_password() {
    local h=
    if command -v python3 >/dev/null 2>&1; then
        h=$(python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_SHA512)))' \
            "$1" 2>/dev/null) || h=
    fi
    if [[ "$h" != '$6$'* ]] && command -v openssl >/dev/null 2>&1; then
        h=$(openssl passwd -6 "$1")
    fi
    [[ "$h" == '$6$'* ]] || die "could not hash the test password (python3 crypt, openssl passwd -6)"
    printf '%s\n' "$h"
}

# The module's default config file must not influence the test: a private one that only
# says tpm = off (no test spends a real TPM's counter), over it if it exists, and given to
# the admin tool as --config either way.
quiet_default_conf() {
    install -d -m 0755 "$T/etc"
    echo "tpm = off" > "$T/etc/secureroom.conf"
    CLI_CONF="$T/etc/secureroom.conf"
    if [ -e /etc/security/secureroom.conf ]; then
        bind_over "$T/etc/secureroom.conf" /etc/security/secureroom.conf
    fi
}

# need_password_hashing, need_setuid_helper: outer-run prerequisites of the tests that
# give users a real password (hash_password) or run the setuid helper ($HELPER, exported
# as an absolute SECUREROOM_HELPER; /tmp, where it is copied, must allow setuid).
need_password_hashing() {
    command -v python3 >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 \
        || die "need python3 (or openssl) to hash the test password"
}
need_setuid_helper() {
    [ -x "$HELPER" ] || die "helper not found or not executable: $HELPER (build it, or set SECUREROOM_HELPER)"
    export SECUREROOM_HELPER; SECUREROOM_HELPER=$(readlink -f "$HELPER")
    case ",$(findmnt -no OPTIONS -T /tmp)," in
        *,nosuid,*) die "/tmp is mounted nosuid: the helper copied there could not be setuid" ;;
    esac
}

# stack_file SRC DST HELPER: see the list at the top.
stack_file() {
    sed "s|^\(auth[[:space:]].*[[:space:]]\)pam_secureroom\.so|\1$MODULE helper=$3|" "$REPO/pam/$1" > "$2"
    chmod 0644 "$2"
    grep -qF "$MODULE helper=$3" "$2" || die "could not put the module's path into pam/$1's line"
}

# namespace_processes UID: see the list at the top.
namespace_processes() {
    local uid=$1 ns= p pid
    [ -n "${T:-}" ] && [ -f "$T/netns" ] && read -r ns < "$T/netns"
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = $$ ] && continue
        if { [ -n "$ns" ] && [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ]; } \
           || [ "$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null)" = "$uid" ]; then
            echo "$pid"
        fi
    done
    return 0
}

# vprompt_tap_lines: see the list at the top. The va_list's fields: gp_offset, fp_offset,
# overflow_arg_area, reg_save_area.
vprompt_tap_lines() {
    cat <<'GDB'
printf "SR-TAP style=%d\n", $rsi
if *(char *)$rcx == '%' && *((char *)$rcx + 1) == 's' && *((char *)$rcx + 2) == 0
if *(unsigned int *)$r8 < 48
printf "SR-TAP text=%s\n", *(char **)(*(long *)($r8 + 16) + *(unsigned int *)$r8)
else
printf "SR-TAP text=%s\n", *(char **)(*(long *)($r8 + 8))
end
end
GDB
}

# start_system_bus POLICY...: see the list at the top.
start_system_bus() {
    local policy i
    install -d -m 0755 "$T/bus" "$T/log"
    while IFS= read -r line; do
        if [[ $line == *"<!-- POLICIES"* ]]; then
            for policy in "$@"; do
                [ -f "$policy" ] || die "bus policy $policy not found"
                echo "  <include>$policy</include>"
            done
        else
            echo "$line"
        fi
    done < "$REPO/Tests/e2e/fixtures/system-bus.conf" > "$T/bus/system.conf"
    # As init would start it: umask 022, so the socket is usable by every user.
    ( umask 022; exec dbus-daemon --config-file="$T/bus/system.conf" --nofork --nopidfile ) \
        > "$T/log/bus.log" 2>&1 &
    BUS_PID=$!
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        system_bus_call GetId >/dev/null && return 0
        kill -0 "$BUS_PID" 2>/dev/null || die "dbus-daemon exited at start: $(cat "$T/log/bus.log")"
        sleep 0.1
    done
    die "the private system bus did not answer within ${TIMEOUT}s"
}

system_bus_call() {
    timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        "org.freedesktop.DBus.$1" "${@:2}" 2>/dev/null
}

# helper_policy UID USER LINE...: the setuid helper copied to $T/bin (root 4755, on a
# filesystem without nosuid: checked to run setuid for UID) and a private /etc/security
# whose secureroom.conf is the only policy the helper reads: STATE=$T/state, tpm off,
# cheap argon2, then LINE...; bind-mounted over /etc/security. Sets STATE and CLI_CONF.
helper_policy() {
    local uid=$1 user=$2; shift 2
    install -d -m 0755 "$T/bin"
    install -m 4755 -o root -g root "$SECUREROOM_HELPER" "$T/bin/secureroom-helper"
    setpriv --reuid="$uid" --regid="$uid" --init-groups test -u "$T/bin/secureroom-helper" \
        || die "$T/bin/secureroom-helper is not setuid for $user"
    STATE="$T/state"
    cp -a /etc/security "$T/security"
    printf '%s\n' "# generated by $E2E_NAME (private mount namespace only)" \
        "dir = $STATE" "tpm = off" "argon2_memory = 256" "argon2_time = 1" "argon2_lanes = 1" \
        "argon2_below_floor" "$@" > "$T/security/secureroom.conf"
    chown root:root "$T/security/secureroom.conf"; chmod 0644 "$T/security/secureroom.conf"
    bind_over "$T/security" /etc/security
    CLI_CONF=/etc/security/secureroom.conf
}

# Login records su and sshd write (failures to btmp): private copies.
sink_login_records() {
    local f
    install -d -m 0755 "$T/log"
    for f in wtmp btmp lastlog; do
        if [ -f "/var/log/$f" ]; then
            cp -p "/var/log/$f" "$T/log/$f"
            bind_over "$T/log/$f" "/var/log/$f"
        fi
    done
}

# incorrect_pin_text K: see the list at the top (the test sets DENY).
incorrect_pin_text() {
    local left=$((DENY - $1))
    case $left in
        0) echo "Incorrect PIN. PIN disabled after $DENY failed attempts; ask an administrator." ;;
        1) echo "Incorrect PIN. 1 attempt left before the PIN is disabled." ;;
        *) echo "Incorrect PIN. $left attempts left before the PIN is disabled." ;;
    esac
}

# set_pin PIN [SET OPTIONS...]: the state directory (STATE, default $T/state) and TEST_USER's PIN.
set_pin() {
    local pin=$1; shift
    STATE=${STATE:-$T/state}
    "$CLI" init --dir "$STATE" --config "$CLI_CONF" >/dev/null || die "secureroom init --dir $STATE failed"
    printf '%s\n' "$pin" | "$CLI" set "$TEST_USER" --stdin --dir "$STATE" --config "$CLI_CONF" "$@" >/dev/null \
        || die "secureroom set $TEST_USER failed"
    status_json | grep -qE '"enrolled"[[:space:]]*:[[:space:]]*true' \
        || die "$TEST_USER not enrolled after set: $(status_json)"
}

status_json() { "$CLI" status "${1:-$TEST_USER}" --json --dir "$STATE" --config "$CLI_CONF" 2>&1 || true; }
failures_of() { status_json "${1:-$TEST_USER}" | sed -nE 's/.*"failures"[[:space:]]*:[[:space:]]*([0-9]+).*/\1/p'; }
failures_are() { [ "$(failures_of)" = "$1" ]; }
# TEST_USER's PIN is disabled; a success is on record (grep without -q: no SIGPIPE under pipefail).
pin_disabled() { status_json | grep -E '"disabled"[[:space:]]*:[[:space:]]*true' >/dev/null; }
success_recorded() { status_json | grep -E '"last_success"[[:space:]]*:[[:space:]]*"' >/dev/null; }

# Clear TEST_USER's lockout so one case's wrong PINs do not affect the next.
reset_pin() {
    "$CLI" reset "$TEST_USER" --dir "$STATE" --config "$CLI_CONF" >/dev/null 2>&1 \
        || echo "# note: secureroom reset $TEST_USER failed: $("$CLI" reset "$TEST_USER" --dir "$STATE" --config "$CLI_CONF" 2>&1 || true)"
}

# ---- tmux driving ----------------------------------------------------------------------
RC_RE='^__RC=[0-9]+__$'

start_tmux() {
    tmux_ new-session -d -s e2e -x 200 -y 50 "exec sleep 100000"
    tmux_ set-option -g remain-on-exit on >/dev/null
}

open_window() {
    local name=$1 uid=$2 cmd=$3
    install -d -m 0755 "$T/cases"
    printf '%s\n' "$cmd" 'echo "__RC=$?__"' > "$T/cases/$name.sh"
    chmod 0644 "$T/cases/$name.sh"
    PANE=$(tmux_ new-window -d -P -F '#{pane_id}' -n "$name" \
        "exec setpriv --reuid=$uid --regid=$uid --init-groups --reset-env /bin/bash --noprofile --norc $T/cases/$name.sh")
}

read_rc() { RC=$(capture "$PANE" | sed -nE 's/^__RC=([0-9]+)__$/\1/p' | tail -n 1); }

capture() { tmux_ capture-pane -p -J -t "$1" -S - -E - 2>/dev/null || true; }
pane_has() { capture "$1" | grep -qE -- "$2"; }

# wait_for PANE REGEX: poll (every 0.1 s, up to $TIMEOUT s) until the pane shows REGEX.
wait_for() {
    local pane=$1 re=$2 i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        pane_has "$pane" "$re" && return 0
        sleep 0.1
    done
    return 1
}

type_line() { tmux_ send-keys -t "$1" -l -- "$2"; tmux_ send-keys -t "$1" Enter; }
done_pane() { tmux_ kill-window -t "$PANE" >/dev/null 2>&1 || true; }

# ---- a locker in a session of its own (LOCKER_PID, LOCKER_RC) ------------------------------
locker_alive() { [ -n "$LOCKER_PID" ] && kill -0 "$LOCKER_PID" 2>/dev/null; }
stop_locker() {
    [ -n "$LOCKER_PID" ] || return 0
    kill -- "-$LOCKER_PID" 2>/dev/null || true
    locker_reap
}
locker_reap() { LOCKER_RC=0; wait "$LOCKER_PID" 2>/dev/null || LOCKER_RC=$?; LOCKER_PID=; }

# Predicates used with check.
rc_is()     { [ "$RC" = "$1" ]; }
rc_failed() { [[ "$RC" =~ ^[0-9]+$ ]] && [ "$RC" -ne 0 ]; }
out_is()    { [ -f "$OUT" ] && [ "$(cat "$OUT")" = "$1" ]; }
out_empty() { [ ! -s "$OUT" ]; }
shows()     { pane_has "$PANE" "$1"; }
not_shows() { ! pane_has "$PANE" "$1"; }

e2e_main() {
    if [ "${SR_E2E_INNER:-}" = 1 ]; then
        T=$SR_E2E_T SOCK=${SR_E2E_SOCK:-}
        trap inner_cleanup EXIT
        inner_main
    else
        outer_main
    fi
}
