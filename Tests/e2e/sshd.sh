#!/usr/bin/env bash
# Tests/e2e/sshd.sh — end-to-end test of pam_secureroom.so inside the REAL OpenSSH sshd.
#
# What it proves
#   * By default (no option, or remote=deny) a login over SSH never sees the module: the
#     first prompt is the stock "Password:" (keyboard-interactive) or the client's
#     "password:" (password authentication), never "PIN:"; the PIN typed there is refused
#     (it is not the password), the real password still logs in, and nothing is counted
#     against the PIN ("failures":0). With PAM_RHOST=127.0.0.1 only the service name
#     (sshd, in the default remote_services) makes it remote, so this tests that rule.
#   * remote_services= (empty) with a connection from a non-local address (198.51.100.7,
#     an alias on the namespace's own loopback) is still refused: PAM_RHOST alone makes
#     the transaction remote.
#   * remote_services= (empty) with a connection from 127.0.0.1 or ::1 is local
#     (127.0.0.0/8 and ::1 count as the local host), so the module prompts "PIN:" there:
#     the rule as documented, not an accident.
#   * remote=allow restores the old behaviour: "PIN:" over keyboard-interactive and the
#     PIN logs in; with password authentication sshd answers the PIN: prompt with the
#     typed password, so the PIN typed as the password logs in. This shows the harness
#     sees the module and would have caught a module that ignores remote=.
#   * Nothing outside the test changed (checksums of the system files, no test user, no
#     sshd left running, no bind mounts).
#
# How
#   The script runs twice. The outer run (root) checks prerequisites, records sha256sums
#   of the files it is going to shadow, and re-executes itself inside
#   `unshare --mount --net --propagation private`: a private mount namespace AND a
#   private network namespace that has nothing but its own loopback (brought up with
#   `ip link set lo up`, plus the alias 198.51.100.7/32), so the test's sshd cannot be
#   reached from anywhere else, not even from the host's own 127.0.0.1. The inner run
#   bind-mounts private copies of /etc/passwd, shadow, group, gshadow and pam.d/sshd,
#   a tmpfs over /run (sshd's privilege-separation dir /run/sshd, utmp) and copies over
#   /var/log/{wtmp,btmp,lastlog}, so every change vanishes with the namespace. It adds
#       srssh (uid 4250), with a real SHA-512 password and the PIN 7391,
#   generates an ed25519 host key and an sshd_config in the work directory, and runs
#   `/usr/sbin/sshd -D -e -f CONFIG` on 127.0.0.1:22022 (and 198.51.100.7, ::1) inside
#   the namespace. /etc/pam.d/sshd is the original file with, as its first line,
#       auth [success=done default=ignore] MODULE dir=STATE nodelay [remote options]
#   rewritten in place per case (sshd reads it at each connection). Each login runs
#   `ssh ... srssh@ADDR 'id -un > OUT'` as srssh (setpriv, no PAM) in its own tmux
#   window (private server: tmux -L sr-ssh-<pid>); the script polls capture-pane for
#   prompts, records each one (PIN: or password), types the next answer with send-keys,
#   and reads ssh's exit code from a marker line. sshd's log (-e, LogLevel VERBOSE) is
#   printed, prefixed '#   ', when a check fails. Back outside, the outer run compares
#   the checksums and checks that no sshd of the test is left.
#
# Usage (root):  Tests/e2e/sshd.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SR_E2E_TIMEOUT     seconds to wait for each prompt/exit (default 15)
#   Needs openssh-server, openssh-client, tmux, util-linux, iproute2, python3 (or openssl).
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
SELF=$(readlink -f "$0")
MODULE=${SECUREROOM_MODULE:-$REPO/.build/release/pam_secureroom.so}
CLI=${SECUREROOM_CLI:-$REPO/.build/release/secureroom}
TIMEOUT=${SR_E2E_TIMEOUT:-15}

PIN=7391                      # passes the CLI's policy (not a sequence, not blocklisted)
PASSWORD='Kettle-Orbit-52x'   # srssh's real password (namespace only)
TEST_USER=srssh
TEST_UID=4250
PORT=22022
LOCAL_ADDR=127.0.0.1
# A documentation address (TEST-NET-2, RFC 5737), added to the namespace's loopback
# only: connections from it carry a non-local PAM_RHOST without any real network.
REMOTE_ADDR=198.51.100.7
LOCAL_ADDR6=::1
SSHD=/usr/sbin/sshd

# Files the inner run shadows with bind mounts (or that sshd would write); the outer run
# checks they are unchanged.
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow
         /etc/pam.d/sshd /etc/ssh/sshd_config /etc/security/secureroom.conf
         /var/log/wtmp /var/log/btmp /var/log/lastlog /run/utmp)
# Directories whose listings must not change (sshd's privsep dir, host keys, root's ~/.ssh).
GUARDED_DIRS=(/run/sshd /etc/ssh /root/.ssh)

die() { echo "sshd.sh: $*" >&2; exit 2; }

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

# Mount points of this (the host's) mount namespace.
mount_points() { awk '{ print $5 }' /proc/self/mountinfo | sort; }

# PIDs of every process called sshd (the host's own, if any, included).
sshd_pids() { pgrep -x sshd 2>/dev/null | sort -n || true; }

# ---------------------------------------------------------------------------------------
# Outer run: prerequisites, namespaces, before/after comparison.
# ---------------------------------------------------------------------------------------
outer_main() {
    [ "$(id -u)" -eq 0 ] || die "must run as root (it bind-mounts over /etc inside private namespaces)"
    local tool
    for tool in unshare tmux setpriv sha256sum mount mountpoint getent ip ss ssh ssh-keygen pgrep; do
        command -v "$tool" >/dev/null 2>&1 || die "required tool '$tool' not found"
    done
    [ -x "$SSHD" ] || die "$SSHD not found (install openssh-server)"
    command -v python3 >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 \
        || die "need python3 (or openssl) to hash the test password"
    getent passwd sshd >/dev/null || die "sshd's privilege-separation user 'sshd' does not exist (openssh-server not set up?)"
    [ -f "$MODULE" ] || die "module not found: $MODULE (build it, or set SECUREROOM_MODULE)"
    [ -x "$CLI" ] || die "CLI not found or not executable: $CLI (build it, or set SECUREROOM_CLI)"
    MODULE=$(readlink -f "$MODULE")
    CLI=$(readlink -f "$CLI")
    case "$MODULE" in *[[:space:]]*) die "module path must not contain spaces (pam.d syntax): $MODULE";; esac
    getent passwd "$TEST_USER" >/dev/null && die "user $TEST_USER already exists on this system"
    getent passwd "$TEST_UID" >/dev/null && die "uid $TEST_UID already exists on this system"

    local before after sshd_before sshd_after mounts_before mounts_after
    before=$(system_digest)
    sshd_before=$(sshd_pids)
    mounts_before=$(mount_points)

    # Work directory: root-owned 0755 under sticky /tmp, so it is an acceptable ancestor
    # of the module's state directory and traversable by the test user.
    T=$(mktemp -d /tmp/sr-ssh.XXXXXX)
    chmod 0755 "$T"
    SOCK="sr-ssh-$$"
    export TMUX_TMPDIR="$T"          # keep tmux's socket inside $T, not /tmp/tmux-0
    unset TMUX
    trap 'kill_test_sshd; tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true; rm -rf "$T"' EXIT

    echo "# module: $MODULE"
    echo "# cli:    $CLI"
    echo "# sshd:   $("$SSHD" -V 2>&1 | head -n 1)"
    local rc=0
    SR_E2E_INNER=1 SR_E2E_T="$T" SR_E2E_SOCK="$SOCK" SR_E2E_OUTER_PID=$$ \
        SECUREROOM_MODULE="$MODULE" SECUREROOM_CLI="$CLI" \
        unshare --mount --net --propagation private -- /bin/bash "$SELF" || rc=$?

    # Counters written by the inner run (absent if it died early).
    local pass=0 fail=0 n=0 complete=0
    [ -f "$T/results" ] && read -r pass fail n complete < "$T/results"
    if [ "$complete" != 1 ]; then
        n=$((n + 1)); fail=$((fail + 1))
        echo "not ok $n - inner run (inside the namespaces) aborted before finishing (exit $rc)"
        [ -s "$T/sshd.log" ] && sed 's/^/#   /' "$T/sshd.log" | tail -n 40
    fi

    # Case 6: no sshd of the test left running (the inner run stops it; if it did not,
    # stop it here, by the pid it wrote, and report).
    local leaked i
    for (( i = 0; i < 30; i++ )); do      # a last per-connection child may still be exiting
        leaked=$(test_sshd_alive | sort -u | tr '\n' ' ')
        sshd_after=$(sshd_pids)
        [ -z "$leaked" ] && [ -z "$(comm -13 <(echo "$sshd_before") <(echo "$sshd_after"))" ] && break
        sleep 0.1
    done
    n=$((n + 1))
    if [ -z "$leaked" ] && [ -z "$(comm -13 <(echo "$sshd_before") <(echo "$sshd_after"))" ]; then
        pass=$((pass + 1)); echo "ok $n - no sshd left running (the test's sshd is gone, no new sshd on the host)"
    else
        fail=$((fail + 1)); echo "not ok $n - an sshd was left running"
        echo "#   test sshd: ${leaked:-none}; sshd before: ${sshd_before:-none}; after: ${sshd_after:-none}" | tr '\n' ' '; echo
        ps -o pid,ppid,stat,args -p "$(echo $sshd_after | tr ' ' ',')" 2>/dev/null | sed 's/^/#   /' || true
    fi

    # Case 6: nothing outside the namespaces changed.
    kill_test_sshd
    tmux -L "$SOCK" kill-server >/dev/null 2>&1 || true
    rm -rf "$T"
    trap - EXIT
    after=$(system_digest)
    n=$((n + 1))
    if [ "$before" = "$after" ]; then
        pass=$((pass + 1)); echo "ok $n - system files unchanged outside the namespace (${#GUARDED[@]} files, ${#GUARDED_DIRS[@]} dirs)"
    else
        fail=$((fail + 1)); echo "not ok $n - system files changed outside the namespace"
        diff <(echo "$before") <(echo "$after") | sed 's/^/#   /' || true
    fi
    n=$((n + 1))
    if ! getent passwd "$TEST_USER" >/dev/null && ! getent passwd "$TEST_UID" >/dev/null; then
        pass=$((pass + 1)); echo "ok $n - test user $TEST_USER does not exist outside the namespace"
    else
        fail=$((fail + 1)); echo "not ok $n - test user $TEST_USER leaked outside the namespace"
    fi
    n=$((n + 1))
    mounts_after=$(mount_points)
    if [ "$mounts_before" = "$mounts_after" ] && ! grep -qF sr-ssh /proc/self/mountinfo \
       && ! ip -o addr show 2>/dev/null | grep -qF "$REMOTE_ADDR" && [ ! -e "$T" ]; then
        pass=$((pass + 1)); echo "ok $n - no bind mounts, tmpfs, addresses or work directory left behind"
    else
        fail=$((fail + 1)); echo "not ok $n - bind mounts, tmpfs, the $REMOTE_ADDR alias or $T left behind"
    fi

    echo "1..$n"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# sshd processes in the network namespace NS (a "net:[inode]" link): only the test's
# sshd and its per-connection children can be there.
netns_sshd_pids() {
    local ns=$1 p
    [ -n "$ns" ] || return 0
    for p in $(pgrep -x sshd 2>/dev/null || true); do
        [ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$ns" ] && echo "$p"
    done
    return 0
}

# Prints the pids of the test's sshd processes still running (the listener from its
# PidFile, if its command line names this run's config, and every sshd in the test's
# network namespace, recorded by the inner run in $T/netns).
test_sshd_alive() {
    local pid ns=
    [ -n "${T:-}" ] && [ -d "$T" ] || return 0
    if [ -f "$T/sshd.pid" ] && read -r pid < "$T/sshd.pid" 2>/dev/null && [[ "$pid" =~ ^[0-9]+$ ]] \
       && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$T/sshd_config"; then
        echo "$pid"
    fi
    [ -f "$T/netns" ] && read -r ns < "$T/netns"
    netns_sshd_pids "$ns"
}

# Stops the test's sshd processes (only those: see test_sshd_alive), TERM then KILL.
kill_test_sshd() {
    local pids i
    pids=$(test_sshd_alive | sort -u)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do
        pids=$(test_sshd_alive | sort -u)
        [ -n "$pids" ] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount and network namespaces).
# ---------------------------------------------------------------------------------------
N=0 PASS=0 FAIL=0

tmux_() { tmux -L "$SOCK" -f /dev/null "$@"; }

COMPLETE=0
SSHD_PID=
inner_cleanup() {
    tmux_ kill-server >/dev/null 2>&1 || true
    if [ -n "$SSHD_PID" ]; then
        kill "$SSHD_PID" 2>/dev/null || true
        wait "$SSHD_PID" 2>/dev/null || true
    fi
    # Per-connection sshd processes finish on their own once their client has gone;
    # give them a few seconds, then stop whatever sshd is still in this namespace.
    local ns i
    ns=$(readlink /proc/self/ns/net)
    for (( i = 0; i < 50; i++ )); do
        [ -z "$(netns_sshd_pids "$ns")" ] && break
        sleep 0.1
    done
    # shellcheck disable=SC2046
    [ -z "$(netns_sshd_pids "$ns")" ] || kill -KILL $(netns_sshd_pids "$ns") 2>/dev/null || true
    echo "$PASS $FAIL $N $COMPLETE" > "$T/results" 2>/dev/null || true
}

# Bind-mount a private copy of FILE (made by the caller) over FILE.
bind_over() {
    local src=$1 dst=$2
    mount --bind "$src" "$dst"
    mountpoint -q "$dst" || die "bind mount over $dst failed"
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

setup_namespace() {
    # Refuse to touch anything unless we really are in new mount AND network namespaces.
    [ "$(readlink /proc/self/ns/mnt)" != "$(readlink "/proc/$SR_E2E_OUTER_PID/ns/mnt")" ] \
        || die "inner run is not in a private mount namespace; refusing to bind-mount"
    [ "$(readlink /proc/self/ns/net)" != "$(readlink "/proc/$SR_E2E_OUTER_PID/ns/net")" ] \
        || die "inner run is not in a private network namespace; refusing to start sshd"
    mount --make-rprivate /

    # --- network: only this namespace's loopback, plus a non-local-looking alias ---
    readlink /proc/self/ns/net > "$T/netns"
    ip link set lo up || die "ip link set lo up failed"
    ip addr add "$REMOTE_ADDR/32" dev lo || die "could not add $REMOTE_ADDR to the namespace's loopback"
    if ip -o link show | grep -vE '^[0-9]+: lo[:@]' | grep -q .; then
        die "the private network namespace has interfaces other than lo: $(ip -o link show | tr '\n' ' ')"
    fi

    install -d -m 0755 "$T/etc" "$T/pam" "$T/cases" "$T/log" "$T/home" "$T/ssh"
    install -d -m 1777 "$T/io"
    install -d -m 0700 -o "$TEST_UID" -g "$TEST_UID" "$T/home/$TEST_USER"

    # --- users: srssh with a real password ---
    local day=$(( $(date +%s) / 86400 )) f hash
    hash=$(hash_password "$PASSWORD")
    for f in passwd shadow group gshadow; do
        [ -e "/etc/$f" ] || continue
        cp -p "/etc/$f" "$T/etc/$f"
    done
    printf '%s:x:%s:%s:SecureRoom e2e (ssh):%s:/bin/bash\n' \
        "$TEST_USER" "$TEST_UID" "$TEST_UID" "$T/home/$TEST_USER" >> "$T/etc/passwd"
    # lastchg = today (0 would force a password change in the account stack).
    printf '%s:%s:%s:0:99999:7:::\n' "$TEST_USER" "$hash" "$day" >> "$T/etc/shadow"
    printf '%s:x:%s:\n' "$TEST_USER" "$TEST_UID" >> "$T/etc/group"
    [ -e "$T/etc/gshadow" ] && printf '%s:!::\n' "$TEST_USER" >> "$T/etc/gshadow"
    for f in passwd shadow group gshadow; do
        [ -e "$T/etc/$f" ] && bind_over "$T/etc/$f" "/etc/$f"
    done
    [ "$(getent passwd "$TEST_USER" | cut -d: -f3)" = "$TEST_UID" ] \
        || die "$TEST_USER not visible after bind mount (nscd?)"

    # --- pam.d/sshd: private copy, rewritten per case by write_stack ---
    cp /etc/pam.d/sshd "$T/pam/sshd.orig"
    cp -p /etc/pam.d/sshd "$T/pam/sshd"
    bind_over "$T/pam/sshd" /etc/pam.d/sshd

    # --- the module's default config file must not influence the test ---
    if [ -e /etc/security/secureroom.conf ]; then
        : > "$T/etc/secureroom.conf"
        bind_over "$T/etc/secureroom.conf" /etc/security/secureroom.conf
    fi

    # --- side-effect sinks: /run (sshd's /run/sshd, utmp) and the login records ---
    mount -t tmpfs -o mode=0755 sr-ssh /run
    install -d -m 0755 /run/sshd
    for f in wtmp btmp lastlog; do
        if [ -f "/var/log/$f" ]; then
            cp -p "/var/log/$f" "$T/log/$f"
            bind_over "$T/log/$f" "/var/log/$f"
        fi
    done

    # --- state directory and srssh's PIN ---
    STATE="$T/state"
    "$CLI" init --dir "$STATE" >/dev/null || die "secureroom init --dir $STATE failed"
    printf '%s\n' "$PIN" | "$CLI" set "$TEST_USER" --stdin --dir "$STATE" >/dev/null \
        || die "secureroom set $TEST_USER failed"
    status_json | grep -qE '"enrolled"[[:space:]]*:[[:space:]]*true' \
        || die "$TEST_USER not enrolled after set: $(status_json)"

    # --- sshd: host key, config, start, wait for both listeners ---
    ssh-keygen -q -t ed25519 -N '' -C sr-e2e -f "$T/ssh/host_ed25519" >/dev/null \
        || die "ssh-keygen failed"
    cat > "$T/sshd_config" <<EOF
# generated by Tests/e2e/sshd.sh (private network namespace only)
Port $PORT
ListenAddress $LOCAL_ADDR
ListenAddress $REMOTE_ADDR
ListenAddress $LOCAL_ADDR6
HostKey $T/ssh/host_ed25519
PidFile $T/sshd.pid
UsePAM yes
KbdInteractiveAuthentication yes
PasswordAuthentication yes
PermitEmptyPasswords no
PubkeyAuthentication no
HostbasedAuthentication no
AuthorizedKeysFile none
PermitRootLogin no
AllowUsers $TEST_USER
UseDNS no
StrictModes no
LogLevel VERBOSE
PrintMotd no
PrintLastLog no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
PermitTunnel no
MaxAuthTries 6
LoginGraceTime 60
EOF
    LOG=$T/sshd.log
    : > "$LOG"
    "$SSHD" -t -f "$T/sshd_config" 2>>"$LOG" || die "sshd -t rejects the generated config: $(cat "$LOG")"
    "$SSHD" -D -e -f "$T/sshd_config" 2>>"$LOG" &
    SSHD_PID=$!
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ "$(ss -Hltn "sport = :$PORT" | wc -l)" -ge 3 ] && break
        kill -0 "$SSHD_PID" 2>/dev/null || die "sshd exited at start: $(cat "$LOG")"
        sleep 0.1
    done
    [ "$(ss -Hltn "sport = :$PORT" | wc -l)" -ge 3 ] \
        || die "sshd is not listening on $LOCAL_ADDR, $REMOTE_ADDR and [$LOCAL_ADDR6] port $PORT after ${TIMEOUT}s: $(cat "$LOG")"
    [ "$(readlink "/proc/$SSHD_PID/ns/net")" = "$(readlink /proc/self/ns/net)" ] \
        || die "sshd is not in the test's network namespace"

    # --- tmux: private server; panes stay after their command exits so we can read them ---
    tmux_ new-session -d -s e2e -x 200 -y 50 "exec sleep 100000"
    tmux_ set-option -g remain-on-exit on >/dev/null
}

status_json() { "$CLI" status "$TEST_USER" --json --dir "$STATE" 2>&1 || true; }
failures_of() { status_json | sed -nE 's/.*"failures"[[:space:]]*:[[:space:]]*([0-9]+).*/\1/p'; }

# Clear srssh's failures so one case's attempts do not affect the next.
reset_pin() {
    "$CLI" reset "$TEST_USER" --dir "$STATE" >/dev/null 2>&1 \
        || echo "# note: secureroom reset $TEST_USER failed: $("$CLI" reset "$TEST_USER" --dir "$STATE" 2>&1 || true)"
}

# write_stack [REMOTE OPTIONS...]: /etc/pam.d/sshd = the documented fall-through line,
# then the original file. Written in place (same inode), so the bind mount shows it.
write_stack() {
    STACK_LINE="auth [success=done default=ignore] $MODULE dir=$STATE nodelay${*:+ $*}"
    { echo "$STACK_LINE"; cat "$T/pam/sshd.orig"; } > "$T/pam/sshd"
    cmp -s "$T/pam/sshd" /etc/pam.d/sshd || die "/etc/pam.d/sshd does not show the generated stack"
}

# ---- tmux driving ----------------------------------------------------------------------
# ssh shows PAM prompts as "(srssh@127.0.0.1) Password: " / "(srssh@127.0.0.1) PIN: "
# (keyboard-interactive) and its own "srssh@127.0.0.1's password: " (password auth).
PIN_PROMPT_RE='PIN:[[:space:]]*$'
PASSWORD_PROMPT_RE='[Pp]assword:[[:space:]]*$'
PROMPT_RE="$PIN_PROMPT_RE|$PASSWORD_PROMPT_RE"
RC_RE='^__RC=[0-9]+__$'

capture() { tmux_ capture-pane -p -J -t "$1" -S - -E - 2>/dev/null || true; }
pane_has() { capture "$1" | grep -qE -- "$2"; }
prompt_count() { capture "$1" | grep -cE -- "$PROMPT_RE" || true; }

# wait_prompt_or_exit PANE K: poll (every 0.1 s, up to $TIMEOUT s) until the pane shows
# more than K prompt lines or the exit marker. Returns 0 for a new prompt, 1 for the exit
# marker, 2 on timeout.
wait_prompt_or_exit() {
    local pane=$1 k=$2 i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ "$(prompt_count "$pane")" -gt "$k" ] && return 0
        pane_has "$pane" "$RC_RE" && return 1
        sleep 0.1
    done
    return 2
}

# kind of the K-th prompt line (1-based): pin | password
prompt_kind() {
    local line
    line=$(capture "$1" | grep -E -- "$PROMPT_RE" | sed -n "${2}p")
    if printf '%s\n' "$line" | grep -qE -- "$PIN_PROMPT_RE"; then echo pin; else echo password; fi
}

type_line() { tmux_ send-keys -t "$1" -l -- "$2"; tmux_ send-keys -t "$1" Enter; }

# ssh_attempt NAME ADDR METHOD ANSWER...
#   Runs `ssh -o PreferredAuthentications=METHOD srssh@ADDR 'id -un > $OUT'` as srssh in
#   a new tmux window and answers the prompts, in order, with ANSWER...; a prompt after
#   the last answer ends the attempt (RC=prompt). Sets PANE, OUT, RC (ssh's exit code,
#   "timeout" or "prompt"), PROMPTS (kind of each prompt seen: pin|password), TYPED
#   (answers typed) and LOG_MARK (sshd log lines before the attempt).
ssh_attempt() {
    local name=$1 addr=$2 method=$3; shift 3
    local -a answers=("$@")
    OUT=$T/io/$name.out
    rm -f "$OUT"
    LOG_MARK=$(wc -l < "$LOG")
    printf '%s\n' \
        "ssh -F /dev/null -p $PORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PreferredAuthentications=$method -o PubkeyAuthentication=no -o GSSAPIAuthentication=no -o IdentityAgent=none -o ConnectTimeout=10 -o NumberOfPasswordPrompts=3 $TEST_USER@$addr 'id -un > $OUT'" \
        'echo "__RC=$?__"' > "$T/cases/$name.sh"
    chmod 0644 "$T/cases/$name.sh"
    PANE=$(tmux_ new-window -d -P -F '#{pane_id}' -n "$name" \
        "exec setpriv --reuid=$TEST_UID --regid=$TEST_UID --init-groups --reset-env /bin/bash --noprofile --norc $T/cases/$name.sh")
    PROMPTS=() RC=timeout TYPED=0 DUMPED=0
    local k r
    for (( k = 0; k <= ${#answers[@]}; k++ )); do
        r=0; wait_prompt_or_exit "$PANE" "$k" || r=$?
        case $r in
            0)  PROMPTS+=("$(prompt_kind "$PANE" $((k + 1)))")
                if [ "$k" -lt "${#answers[@]}" ]; then
                    type_line "$PANE" "${answers[$k]}"; TYPED=$((k + 1))
                else
                    RC=prompt; tmux_ send-keys -t "$PANE" C-c; return 0
                fi ;;
            1)  RC=$(capture "$PANE" | sed -nE 's/^__RC=([0-9]+)__$/\1/p' | tail -n 1); return 0 ;;
            *)  RC=timeout; return 0 ;;
        esac
    done
}

# check DESCRIPTION CONDITION...: one TAP line; on failure dump the pane and sshd's log.
check() {
    local desc=$1; shift
    N=$((N + 1))
    if "$@"; then
        PASS=$((PASS + 1)); echo "ok $N - $desc"
    else
        FAIL=$((FAIL + 1)); echo "not ok $N - $desc"
        echo "#   rc=$RC prompts=(${PROMPTS[*]:-}) typed=$TYPED out=$(head -c 80 "$OUT" 2>/dev/null || true) failures=$(failures_of)"
        [ "$DUMPED" = 1 ] && return 0     # pane and log already shown for this attempt
        DUMPED=1
        echo "#   stack: $STACK_LINE"
        echo "#   --- pane ---"
        capture "$PANE" | sed -e '/^$/d' -e 's/^/#   | /'
        echo "#   --- sshd log ---"
        tail -n "+$((LOG_MARK + 1))" "$LOG" | sed 's/^/#   /'
    fi
}

done_pane() { tmux_ kill-window -t "$PANE" >/dev/null 2>&1 || true; }

# Predicates used with check.
rc_is()         { [ "$RC" = "$1" ]; }
out_is()        { [ -f "$OUT" ] && [ "$(cat "$OUT")" = "$1" ]; }
out_empty()     { [ ! -s "$OUT" ]; }
failures_are()  { [ "$(failures_of)" = "$1" ]; }
shows()         { pane_has "$PANE" "$1"; }
not_shows()     { ! pane_has "$PANE" "$1"; }
prompt_is()     { [ "${PROMPTS[$(($1 - 1))]:-none}" = "$2" ]; }   # prompt_is K KIND
no_pin_prompt() { [[ " ${PROMPTS[*]:-} " != *" pin "* ]]; }
typed()         { [ "$TYPED" = "$1" ]; }
# The answer typed at prompt K was refused: another password prompt followed, or ssh
# reported "Permission denied".
refused_after() { prompt_is $(($1 + 1)) password || shows 'Permission denied'; }
logged_in()     { rc_is 0 && out_is "$TEST_USER"; }
# all COND...: every COND (a predicate call, as one string) holds.
all()           { local c; for c in "$@"; do eval "$c" || return 1; done; }

# deny_case TAG DESC METHOD ADDR [REMOTE OPTIONS...]: PIN then password; the module must
# stay out of the way.
deny_case() {
    local tag=$1 desc=$2 method=$3 addr=$4; shift 4
    reset_pin; write_stack "$@"
    ssh_attempt "$tag" "$addr" "$method" "$PIN" "$PASSWORD"
    check "$desc: first prompt is the stock password prompt, no PIN: prompt" \
        all 'prompt_is 1 password' no_pin_prompt
    check "$desc: the PIN $PIN typed there is refused" \
        all 'refused_after 1' 'prompt_is 2 password'
    check "$desc: the real password then logs in (id -un = $TEST_USER)" \
        all 'typed 2' logged_in no_pin_prompt
    check "$desc: nothing counted against the PIN (status --json \"failures\":0)" \
        all 'failures_are 0' "status_json | grep -qE '\"failures\"[[:space:]]*:[[:space:]]*0[,}]'"
    done_pane
}

inner_main() {
    T=$SR_E2E_T SOCK=$SR_E2E_SOCK
    trap inner_cleanup EXIT
    setup_namespace
    local lo="$LOCAL_ADDR" far="$REMOTE_ADDR"

    # --- 1. default (remote=deny implied), keyboard-interactive, from 127.0.0.1 ---------
    deny_case c1 "default, keyboard-interactive" keyboard-interactive "$lo"

    # --- 2. default, password authentication ---------------------------------------------
    deny_case c2 "default, password auth" password "$lo"

    # --- 3. remote=deny written explicitly -----------------------------------------------
    reset_pin; write_stack remote=deny
    ssh_attempt c3 "$lo" keyboard-interactive "$PIN" "$PASSWORD"
    check "remote=deny: Password: prompt (no PIN:), the PIN is refused" \
        all 'prompt_is 1 password' no_pin_prompt 'refused_after 1'
    check "remote=deny: the password logs in, nothing counted" \
        all 'typed 2' logged_in 'failures_are 0'
    done_pane

    # --- 3b. remote_services= (empty): a non-local PAM_RHOST alone is remote ------------
    deny_case c3b "remote_services= from $far (non-local PAM_RHOST)" keyboard-interactive "$far" \
        remote=deny remote_services=

    # --- 4. remote=allow: the old behaviour, PIN over SSH --------------------------------
    reset_pin; write_stack remote=allow
    ssh_attempt c4 "$lo" keyboard-interactive "$PIN"
    check "remote=allow, keyboard-interactive: the prompt is the module's PIN:" \
        all 'prompt_is 1 pin'
    check "remote=allow: the PIN $PIN logs in (id -un = $TEST_USER), not echoed" \
        all 'typed 1' logged_in "not_shows '$PIN'" 'failures_are 0'
    done_pane

    # --- 4b. remote=allow, password auth: sshd answers PIN: with the typed password ------
    reset_pin; write_stack remote=allow
    ssh_attempt c4b "$lo" password "$PIN"
    check "remote=allow, password auth: the PIN typed as the password logs in (sshd feeds it to PIN:)" \
        all 'typed 1' logged_in

    done_pane

    # --- 5. remote_services= (empty) from 127.0.0.1: local, so the module prompts --------
    reset_pin; write_stack remote=deny remote_services=
    ssh_attempt c5 "$lo" keyboard-interactive "$PIN"
    check "remote=deny remote_services= from 127.0.0.1 (local PAM_RHOST): the prompt is PIN:" \
        all 'prompt_is 1 pin'
    check "remote=deny remote_services= from 127.0.0.1: the PIN logs in" \
        all 'typed 1' logged_in 'failures_are 0'
    done_pane

    # --- 5b. the same from ::1 (PAM_RHOST "::1" is the local host too) -----------------
    reset_pin; write_stack remote=deny remote_services=
    ssh_attempt c5b "$LOCAL_ADDR6" keyboard-interactive "$PIN"
    check "remote=deny remote_services= from ::1 (local PAM_RHOST): PIN: prompt, the PIN logs in" \
        all 'prompt_is 1 pin' 'typed 1' logged_in
    done_pane

    COMPLETE=1
}

if [ "${SR_E2E_INNER:-}" = 1 ]; then
    inner_main
else
    outer_main
fi
