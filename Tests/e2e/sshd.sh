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
#   * remote_services= (empty) with a connection from 127.0.0.1 or ::1 is local (and sshd
#     then needs local_services=sshd to take a PIN)
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
#   `scripts/lib/sandbox --net`: a private mount namespace AND a
#   private network namespace that has nothing but its own loopback (brought up with
#   `ip link set lo up`, plus the alias 198.51.100.7/32), so the test's sshd cannot be
#   reached from anywhere else, not even from the host's own 127.0.0.1. The inner run
#   bind-mounts private copies of /etc/passwd, shadow, group, gshadow and pam.d/sshd,
#   a tmpfs over /run (sshd's privilege-separation dir /run/sshd, utmp) and copies over
#   /var/log/{wtmp,btmp,lastlog}, so every change vanishes with the namespace. It adds
#       srssh (uid 4250), with a real SHA-512 password and the PIN 6193,
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
#   the checksums and checks that no sshd of the test is left. The harness (outer/inner
#   runs, digests, users, tmux driving, checks) is shared in Tests/e2e/lib.sh.
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
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

PIN=6193                      # passes the CLI's policy (not a sequence, not blocklisted)
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

E2E_PREFIX=sr-ssh
E2E_SANDBOX=(--net)
E2E_ROOT_REASON="it bind-mounts over /etc inside private namespaces"
E2E_INNER_WHERE="the namespaces"
E2E_TOOLS+=(ip ss ssh ssh-keygen pgrep)
E2E_USERS=("$TEST_USER")
E2E_UIDS=("$TEST_UID")
# Files the inner run shadows with bind mounts (or that sshd would write); the outer run
# checks they are unchanged.
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow
         /etc/pam.d/sshd /etc/ssh/sshd_config /etc/security/secureroom.conf
         /var/log/wtmp /var/log/btmp /var/log/lastlog /run/utmp)
# Directories whose listings must not change (sshd's privsep dir, host keys, root's ~/.ssh).
GUARDED_DIRS=(/run/sshd /etc/ssh /root/.ssh)
E2E_LEFTOVERS_OK="no bind mounts, tmpfs, addresses or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs, the $REMOTE_ADDR alias or %s left behind"

# PIDs of every process called sshd (the host's own, if any, included).
sshd_pids() { pgrep -x sshd 2>/dev/null | sort -n || true; }

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    [ -x "$SSHD" ] || die "$SSHD not found (install openssh-server)"
    command -v python3 >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 \
        || die "need python3 (or openssl) to hash the test password"
    getent passwd sshd >/dev/null || die "sshd's privilege-separation user 'sshd' does not exist (openssh-server not set up?)"
}
outer_snapshot() { sshd_before=$(sshd_pids); }
outer_header() { echo "# sshd:   $("$SSHD" -V 2>&1 | head -n 1)"; }
outer_on_abort() {
    if [ -s "$T/sshd.log" ]; then sed 's/^/#   /' "$T/sshd.log" | tail -n 40; fi
}
outer_cleanup() { kill_test_sshd; }
outer_leftovers() { ! ip -o addr show 2>/dev/null | grep -qF "$REMOTE_ADDR"; }

# Case 6: no sshd of the test left running (the inner run stops it; if it did not,
# stop it here, by the pid it wrote, and report).
no_test_sshd() { [ -z "$leaked" ] && [ -z "$(comm -13 <(echo "$sshd_before") <(echo "$sshd_after"))" ]; }
outer_checks() {
    local i
    for (( i = 0; i < 30; i++ )); do      # a last per-connection child may still be exiting
        leaked=$(test_sshd_alive | sort -u | tr '\n' ' ')
        sshd_after=$(sshd_pids)
        no_test_sshd && break
        sleep 0.1
    done
    tally "no sshd left running (the test's sshd is gone, no new sshd on the host)" \
          "an sshd was left running" no_test_sshd && return 0
    echo "#   test sshd: ${leaked:-none}; sshd before: ${sshd_before:-none}; after: ${sshd_after:-none}" | tr '\n' ' '; echo
    ps -o pid,ppid,stat,args -p "$(echo $sshd_after | tr ' ' ',')" 2>/dev/null | sed 's/^/#   /' || true
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
SSHD_PID=
inner_stop() {
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
}

setup_namespace() {
    # Refuse to touch anything unless we really are in new mount AND network namespaces.
    enter_namespaces "start sshd"

    # --- network: only this namespace's loopback, plus a non-local-looking alias ---
    ip addr add "$REMOTE_ADDR/32" dev lo || die "could not add $REMOTE_ADDR to the namespace's loopback"
    if ip -o link show | grep -vE '^[0-9]+: lo[:@]' | grep -q .; then
        die "the private network namespace has interfaces other than lo: $(ip -o link show | tr '\n' ' ')"
    fi

    install -d -m 0755 "$T/etc" "$T/pam" "$T/cases" "$T/log" "$T/home" "$T/ssh"
    install -d -m 1777 "$T/io"

    # --- users: srssh with a real password ---
    add_user "$TEST_USER" "$TEST_UID" "$(hash_password "$PASSWORD")" "SecureRoom e2e (ssh)"
    bind_users

    # --- pam.d/sshd: private copy, rewritten per case by write_stack ---
    cp /etc/pam.d/sshd "$T/pam/sshd.orig"
    cp -p /etc/pam.d/sshd "$T/pam/sshd"
    bind_over "$T/pam/sshd" /etc/pam.d/sshd

    quiet_default_conf

    # --- side-effect sinks: /run (sshd's /run/sshd, utmp) and the login records ---
    mount -t tmpfs -o mode=0755 sr-ssh /run
    install -d -m 0755 /run/sshd
    sink_login_records

    # --- state directory and srssh's PIN ---
    set_pin "$PIN"

    # --- sshd: host key, config, start, wait for both listeners ---
    ssh-keygen -q -t ed25519 -N '' -C sr-e2e -f "$T/ssh/host_ed25519" >/dev/null \
        || die "ssh-keygen failed"
    cat > "$T/sshd_config" <<SSHD_CONFIG
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
SSHD_CONFIG
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
    start_tmux
}

# write_stack [REMOTE OPTIONS...]: /etc/pam.d/sshd = the documented fall-through line,
# then the original file. Written in place (same inode), so the bind mount shows it.
write_stack() {
    STACK_LINE="auth [success=done default=ignore] $MODULE dir=$STATE tpm=off nodelay${*:+ $*}"
    { echo "$STACK_LINE"; cat "$T/pam/sshd.orig"; } > "$T/pam/sshd"
    cmp -s "$T/pam/sshd" /etc/pam.d/sshd || die "/etc/pam.d/sshd does not show the generated stack"
}

# ---- tmux driving (the rest is in lib.sh) ----------------------------------------------
# ssh shows PAM prompts as "(srssh@127.0.0.1) Password: " / "(srssh@127.0.0.1) PIN: "
# (keyboard-interactive) and its own "srssh@127.0.0.1's password: " (password auth).
PIN_PROMPT_RE='PIN:[[:space:]]*$'
PASSWORD_PROMPT_RE='[Pp]assword:[[:space:]]*$'
PROMPT_RE="$PIN_PROMPT_RE|$PASSWORD_PROMPT_RE"

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
    open_window "$name" "$TEST_UID" \
        "ssh -F /dev/null -p $PORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PreferredAuthentications=$method -o PubkeyAuthentication=no -o GSSAPIAuthentication=no -o IdentityAgent=none -o ConnectTimeout=10 -o NumberOfPasswordPrompts=3 $TEST_USER@$addr 'id -un > $OUT'"
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
            1)  read_rc; return 0 ;;
            *)  RC=timeout; return 0 ;;
        esac
    done
}

# After a "not ok" line from check: the attempt, and (once per attempt) the pane and
# sshd's log.
check_diagnostics() {
    echo "#   rc=$RC prompts=(${PROMPTS[*]:-}) typed=$TYPED out=$(head -c 80 "$OUT" 2>/dev/null || true) failures=$(failures_of)"
    [ "$DUMPED" = 1 ] && return 0     # pane and log already shown for this attempt
    DUMPED=1
    echo "#   stack: $STACK_LINE"
    echo "#   --- pane ---"
    capture "$PANE" | sed -e '/^$/d' -e 's/^/#   | /'
    echo "#   --- sshd log ---"
    tail -n "+$((LOG_MARK + 1))" "$LOG" | sed 's/^/#   /'
}

# Predicates used with check (more in lib.sh).
prompt_is()     { [ "${PROMPTS[$(($1 - 1))]:-none}" = "$2" ]; }   # prompt_is K KIND
no_pin_prompt() { [[ " ${PROMPTS[*]:-} " != *" pin "* ]]; }
typed()         { [ "$TYPED" = "$1" ]; }
# The answer typed at prompt K was refused: another password prompt followed, or ssh
# reported "Permission denied".
refused_after() { prompt_is $(($1 + 1)) password || shows 'Permission denied'; }
logged_in()     { rc_is 0 && out_is "$TEST_USER"; }

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
    reset_pin; write_stack remote=deny remote_services= local_services=sshd
    ssh_attempt c5 "$lo" keyboard-interactive "$PIN"
    check "remote=deny remote_services= from 127.0.0.1 (local PAM_RHOST): the prompt is PIN:" \
        all 'prompt_is 1 pin'
    check "remote=deny remote_services= from 127.0.0.1: the PIN logs in" \
        all 'typed 1' logged_in 'failures_are 0'
    done_pane

    # --- 5b. the same from ::1 (PAM_RHOST "::1" is the local host too) -----------------
    reset_pin; write_stack remote=deny remote_services= local_services=sshd
    ssh_attempt c5b "$LOCAL_ADDR6" keyboard-interactive "$PIN"
    check "remote=deny remote_services= from ::1 (local PAM_RHOST): PIN: prompt, the PIN logs in" \
        all 'prompt_is 1 pin' 'typed 1' logged_in
    done_pane

    COMPLETE=1
}

e2e_main
