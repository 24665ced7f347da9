#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/e2e/secret-service.sh — end-to-end test of the vault as a freedesktop Secret
# Service (`secureroom-vault serve`, org.freedesktop.secrets) with REAL clients on a
# private D-Bus session bus: secret-tool, libsecret through GObject introspection,
# SecretStorage and dbus-python, a user who logs in with the PIN through the real su.
#
# What it proves
#   * a user who logged in with the PIN (su, the PIN typed at the "PIN:" prompt, the
#     module in auth and session) stores and reads secrets with secret-tool without any
#     further prompt; the items live in the SecureRoom vault (`secureroom-vault get`
#     prints the value, `list --json` shows the label and attributes, `status --json`
#     counts exactly the D-Bus items); and they are unreadable once the session ends:
#     close_session removes the key from the kernel keyring while the provider keeps
#     running, and the provider then answers org.freedesktop.Secret.Error.IsLocked;
#   * the contract's objects: Service.Collections, ReadAlias default/login, the alias
#     path, the collection labelled "Login", CreateCollection for "default" only;
#   * both session algorithms: secret-tool (seen with dbus-monitor), libsecret through
#     GI and SecretStorage negotiate dh-ietf1024-sha256-aes128-cbc-pkcs7; dbus-python
#     uses "plain"; values written in one read byte for byte in the other (a binary value
#     with NUL bytes and all 256 byte values included); replace=true keeps the item;
#     a DH public key of 127 bytes (a leading zero dropped, as SecretStorage and
#     libsecret send one time in 256) or zero-padded works; 0, 1, p-1, p and 2^1024-1
#     are refused (InvalidArgs);
#   * the collection's signals (ItemCreated, ItemChanged, ItemDeleted); titles made
#     unique ("LABEL", "LABEL (2)"; "untitled" for an empty label) as the vault tool sees
#     them;
#   * secret-tool search --all shows label, secret and attributes; secret-tool clear
#     deletes the item from the vault (lookup finds nothing, `list` no longer has it);
#   * 10,000 items created by one process (pipelined calls; the time is printed):
#     SearchItems by a unique attribute finds exactly one, Items lists them all,
#     GetSecrets returns every value, secret-tool lookup finds random ones;
#   * two clients writing at once (500 items each, one DH and one plain session) while
#     `secureroom-vault add` stores 20 secrets from the command line: every item is there
#     with its value, and the CLI's secrets are D-Bus items (Label = title);
#   * a locked vault: GetSecret, SearchItems (service and collection), CreateItem,
#     SetSecret, Set Label and Delete answer IsLocked; GetSecrets skips the item; item
#     properties show nothing; secret-tool lookup fails at once; Unlock returns a prompt
#     whose Prompt() ends Completed(dismissed=true) after --prompt-timeout, whose
#     Dismiss() ends it at once, and which completes with dismissed=false when
#     `secureroom-vault unlock --stdin` runs meanwhile; `secureroom-vault lock` and
#     Service.Lock lock it again (all with `serve --pinentry none`);
#   * the PIN prompt (`serve --pinentry /usr/bin/pinentry-tty`, its terminal a tmux pane of
#     the user given as $GPG_TTY): a locked vault's `secret-tool lookup` and Python
#     `keyring.get_password` bring up the pinentry; a wrong PIN's message is shown above
#     the next field; then the right PIN returns the secret to the waiting client; a
#     cancelled prompt (Ctrl-D) makes the client fail cleanly, and serve logs exit 7;
#   * the same with a graphical pinentry (`serve --pinentry /usr/bin/pinentry-gtk-2`, given
#     DISPLAY and XAUTHORITY of an Xvfb the user runs; keys typed with xdotool): a locked
#     vault's secret-tool lookup brings up pinentry-gtk-2's window (the title "SecureRoom
#     vault"); a wrong PIN brings up a new window with the module's message in red above
#     the field (a screenshot's red pixels; the message in serve's log; failures 1); the
#     right PIN then returns the secret byte for byte (failures 0, window and pinentry
#     gone); Escape makes the client fail within seconds (not after serve's 20 s wait
#     for a search), prints nothing; serve logs exit 7 and keeps running;
#   * bad input answered with the contract's D-Bus errors, the provider running after
#     each: values over 1 MiB (1 MiB accepted), labels over 1024 bytes (1024 accepted),
#     65 attributes, long attribute names and values, a Label of the wrong type, invalid
#     UTF-8 in a Label string (a hand-edited message; the bus daemon may drop that
#     connection), wrong signatures, unknown objects (NoSuchObject), unknown, closed and
#     other connections' sessions (NoSession), unknown algorithms (NotSupported), DH
#     public keys of the wrong length, a bad IV, bad padding (InvalidArgs); nothing
#     created by a refused call, and everything stored during the test still reads back;
#   * `secureroom-vault serve` without a vault file exits 6 and leaves the name alone;
#   * a second `secureroom-vault serve` on the same bus exits 5 with the "already
#     provided by <name> (pid N, ...)" line naming the first, which keeps running;
#   * SIGTERM: the provider exits 0 and releases the name; nothing outside changed
#     (digests, no test users, no mounts), no process of the test users and no vault key
#     of theirs in the kernel keyring left.
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites
#   and re-executes itself inside scripts/lib/sandbox (a private mount namespace). The inner run
#   bind-mounts private copies over /etc/passwd, shadow, group, gshadow (srsecret, uid
#   4280, who has the PIN and the vault, and srsscall, uid 4281, who runs su), /etc/pam.d
#   (su: the PIN line `auth [success=done default=ignore]` before common-auth and
#   `session optional pam_secureroom.so` after common-session, as the secureroom profile
#   puts them; secureroom-vault = pam/secureroom-vault), /etc/security (secureroom.conf:
#   dir=STATE, cheap argon2, helper= the setuid copy in $T/bin, sessions=$T/run) and the
#   login records. The user runs `secureroom-vault init --stdin`, then `lock`, so only
#   the su login unlocks. A dbus-daemon (its own config: a socket in $T/bus, no service
#   activation, so no other provider can start) and `secureroom-vault serve
#   --prompt-timeout 2` run as srsecret (setpriv, each in a fresh session keyring:
#   `keyctl session -`). su runs in a tmux window (lib.sh) and its command holds the
#   session open until the script ends it. The D-Bus clients are
#   Tests/e2e/secret-service-client.py (python3), whose "ok - ..." lines count as checks.
#   For pinentry-gtk-2, Xvfb runs as srsecret as the lock-screen tests run it (abstract
#   socket only, -nolock, -r), but this test has no network namespace of its own: it takes
#   the first display from :50 with no socket and no lock file, and a cookie (in the
#   user's ~/.Xauthority) keeps every other client out; a tmpfs over /var/lib/xkb takes
#   its keymap files. Screenshots of the window (xwd, convert) show the red message.
#
# Usage (root):  Tests/e2e/secret-service.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SECUREROOM_VAULT   vault tool with `serve`, copied (default <repo>/.build/release/secureroom-vault)
#   SR_E2E_TIMEOUT     seconds to wait for each prompt/exit (default 15)
#   Needs dbus-daemon, dbus-bin (dbus-send, dbus-monitor), libsecret-tools (secret-tool),
#   python3-secretstorage, python3-dbus, python3-gi and gir1.2-secret-1, keyutils, tmux,
#   util-linux, pinentry-tty, pinentry-gtk2, xvfb, xdotool, x11-apps (xwd), imagemagick
#   (convert).
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
VAULT=${SECUREROOM_VAULT:-$REPO/.build/release/secureroom-vault}
CLIENT_SRC=$REPO/Tests/e2e/secret-service-client.py
PY=/usr/bin/python3               # Debian's python3, which has the distribution's modules
PIN=6193                          # passes the policy (not a sequence, not blocklisted)
WRONG_PIN=7402                    # typed once at each pinentry (case_pinentry, case_pinentry_gtk)
PINENTRY_GTK=/usr/bin/pinentry-gtk-2  # Debian's pinentry-gtk2 package
X_FIRST=50 X_LAST=99              # Xvfb's display: the first free one of these
SCREEN=800x600x24
CONVERT=/usr/bin/convert          # Debian's ImageMagick
PASSWORD='Ember-Walnut-52k'       # both users' real password (namespace only; never typed)
TEST_USER=srsecret TEST_UID=4280  # has the PIN and the vault; runs the bus and the provider
CALLER=srsscall CALLER_UID=4281   # runs su
PROMPT_TIMEOUT=2
BULK=10000
WRITER_ITEMS=500
CLI_ADDS=20
ALGO_DH=dh-ietf1024-sha256-aes128-cbc-pkcs7
ATTR_SERVICE=secureroom-e2e
LOGIN_LABEL='SecureRoom e2e: mail password'
LOGIN_VALUE='correct horse battery staple #1'
BOB_LABEL='SecureRoom e2e: second account'
BOB_VALUE='second value, to be cleared'

E2E_PREFIX=sr-secrets
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside a private mount namespace"
E2E_TOOLS+=(su keyctl dbus-daemon dbus-send dbus-monitor secret-tool findmnt timeout Xvfb xdotool xwd)
E2E_USERS=("$TEST_USER" "$CALLER")
E2E_UIDS=("$TEST_UID" "$CALLER_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/security/secureroom.conf
         /etc/pam.d/su /etc/pam.d/secureroom-vault /usr/sbin/secureroom-helper
         /var/log/btmp /var/log/wtmp /var/log/lastlog /run/utmp
         "/run/secureroom/$TEST_USER.sessions" "/run/secureroom/$TEST_USER.lock")
GUARDED_DIRS=(/etc/pam.d /etc/security /var/lib/xkb /tmp/.X11-unix)
E2E_GUARDED_DESC="${#GUARDED[@]} files, pam.d, security, xkb and .X11-unix dirs"
E2E_LEFTOVERS_OK="no bind mounts, tmpfs or work directory left behind"
E2E_LEFTOVERS_BAD="bind mounts, tmpfs or %s left behind"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
    [ -x "$VAULT" ] || die "vault tool not found or not executable: $VAULT (build it, or set SECUREROOM_VAULT)"
    export SECUREROOM_VAULT; SECUREROOM_VAULT=$(readlink -f "$VAULT")
    "$SECUREROOM_VAULT" serve --help >/dev/null 2>&1 || die "$SECUREROOM_VAULT has no 'serve' subcommand"
    [ -f "$CLIENT_SRC" ] || die "$CLIENT_SRC not found"
    [ -f "$REPO/pam/secureroom-vault" ] || die "pam/secureroom-vault not found"
    [ -x "$PY" ] || die "$PY not found"
    "$PY" -c 'import jeepney, secretstorage, dbus, cryptography, gi; gi.require_version("Secret", "1"); from gi.repository import Secret' \
        2>/dev/null || die "$PY lacks python3-secretstorage, python3-dbus, python3-gi or gir1.2-secret-1"
    [ -x "$PINENTRY_GTK" ] || die "$PINENTRY_GTK not found (install pinentry-gtk2)"
    [ -x "$CONVERT" ] || die "$CONVERT not found (install imagemagick)"
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    echo "# vault:  $SECUREROOM_VAULT"
    echo "# dbus-daemon $(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null || echo '?')," \
         "libsecret $(dpkg-query -W -f='${Version}' libsecret-1-0 2>/dev/null || echo '?')," \
         "SecretStorage $(dpkg-query -W -f='${Version}' python3-secretstorage 2>/dev/null || echo '?')," \
         "dbus-python $(dpkg-query -W -f='${Version}' python3-dbus 2>/dev/null || echo '?')"
    echo "# pinentry-gtk2 $(dpkg-query -W -f='${Version}' pinentry-gtk2 2>/dev/null || echo '?')," \
         "Xvfb $(dpkg-query -W -f='${Version}' xvfb 2>/dev/null || echo '?')"
}
outer_on_abort() {
    local f
    for f in serve.log bus.err xvfb.log; do
        if [ -s "$T/log/$f" ]; then tail -n 15 "$T/log/$f" | sed "s/^/#   $f: /"; fi
    done
}

# Processes running as the test users (the bus, the provider, clients, su's children).
test_processes() {
    local p pid u
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = $$ ] && continue
        u=$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null) || continue
        if [ "$u" = "$TEST_UID" ] || [ "$u" = "$CALLER_UID" ]; then echo "$pid"; fi
    done
    return 0
}
# The test user's vault key in the kernel keyring (per uid, not per namespace).
vault_key_id() {
    setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --clear-groups \
        keyctl search @u user "secureroom:vault:$TEST_USER" 2>/dev/null
}
no_vault_key() { ! vault_key_id >/dev/null; }
outer_checks() {
    tally_none_left "no process of the test users left running (dbus-daemon, provider, clients)" \
                    "processes of the test users left running"
    tally "no vault key of $TEST_USER left in the kernel keyring" \
          "a vault key of $TEST_USER is still in the kernel keyring" no_vault_key || true
}
outer_cleanup() {
    local pids id
    pids=$(test_processes)
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    if id=$(vault_key_id); then
        setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --clear-groups keyctl invalidate "$id" >/dev/null 2>&1 || true
    fi
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount namespace).
# ---------------------------------------------------------------------------------------
BUS= BUS_PID= SERVE_PID= MONITOR_PID= XVFB_PID= OWNER= LOGIN_ITEM= CLIENT_RUNS=0 DIAG=()

inner_stop() {
    local p
    for p in "$MONITOR_PID" "$SERVE_PID" "$XVFB_PID" "$BUS_PID"; do
        [ -n "$p" ] || continue
        kill "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    as_user "$VAULT_BIN" lock >/dev/null 2>&1 || true
}

# as_user CMD...: CMD as the test user (setpriv, no PAM), in a fresh session keyring,
# with the private bus as its session bus. keyctl says "Joined session keyring: N" on
# stderr; `clean` drops that line from a file.
as_user() {
    setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env LANG=C.UTF-8 DBUS_SESSION_BUS_ADDRESS="$BUS" keyctl session - "$@"
}
# as_user_bg CMD... &: the same, for a background job whose $! must be CMD's own pid
# (the job's subshell becomes setpriv, which execs env, keyctl, then CMD).
as_user_bg() {
    exec setpriv --reuid="$TEST_UID" --regid="$TEST_UID" --init-groups --reset-env \
        env LANG=C.UTF-8 DBUS_SESSION_BUS_ADDRESS="$BUS" keyctl session - "$@"
}
clean() { grep -v '^Joined session keyring: [0-9]*$' "$1" || true; }

# run_client NAME ARGS...: the python client as the test user; its "ok - ..." and
# "not ok - ..." lines become checks, other lines are shown; a client that did not run to
# its end (exit not 0) is one more failure.
run_client() {
    local out rc=0 line
    CLIENT_RUNS=$((CLIENT_RUNS + 1))
    out=$T/log/client.$CLIENT_RUNS.$1
    as_user "$PY" "$CLIENT" "$@" > "$out" 2> "$out.err" || rc=$?
    while IFS= read -r line; do
        case $line in
            "ok - "*)     tally "${line#ok - }" "" true || true ;;
            "not ok - "*) tally "" "${line#not ok - }" false || true ;;
            *)            printf '%s\n' "$line" ;;
        esac
    done < "$out"
    if [ "$rc" -ne 0 ]; then
        tally "" "client '$1' did not run to its end (exit $rc)" false || true
        clean "$out.err" | tail -n 15 | sed 's/^/#   /'
    fi
}

check_diagnostics() {
    local f
    for f in "${DIAG[@]}"; do
        [ -e "$f" ] || continue
        echo "#   --- ${f#"$T"/} ---"
        clean "$f" | tail -n 12 | cut -c1-300 | sed 's/^/#   | /'
    done
    if [ -n "${PANE:-}" ] && [ "${SHOW_PANE:-0}" = 1 ]; then
        echo "#   --- pane ---"
        capture "$PANE" | sed -e '/^$/d' -e 's/^/#   | /'
    fi
}

setup_namespace() {
    enter_namespaces
    install -d -m 0755 "$T/etc" "$T/bin" "$T/cases" "$T/log" "$T/home" "$T/run"
    install -d -m 1777 "$T/io"

    # --- users: srsecret (PIN, vault, bus, provider) and srsscall (runs su) ---
    local hash
    hash=$(hash_password "$PASSWORD")
    add_user "$TEST_USER" "$TEST_UID" "$hash" "SecureRoom e2e (secret service)"
    add_user "$CALLER" "$CALLER_UID" "$hash" "SecureRoom e2e (su caller)"
    bind_users

    # --- the setuid helper and the only policy it reads; sessions counted in $T/run ---
    helper_policy "$TEST_UID" "$TEST_USER" "helper = $T/bin/secureroom-helper" "sessions = $T/run"

    # --- the vault tool and the client, copies the user can run (a rebuild meanwhile
    #     does not change what is tested) ---
    VAULT_BIN=$T/bin/secureroom-vault
    install -m 0755 "$SECUREROOM_VAULT" "$VAULT_BIN"
    CLIENT=$T/bin/secret-service-client.py
    install -m 0644 "$CLIENT_SRC" "$CLIENT"

    # --- /etc/pam.d: a copy; su with the PIN in auth and the module in session (as the
    #     secureroom profile has them); secureroom-vault as shipped ---
    cp -a /etc/pam.d "$T/pam.d"
    awk -v m="$MODULE" '
        BEGIN { print "# generated by Tests/e2e/secret-service.sh from /etc/pam.d/su" }
        /^@include[ \t]+common-auth([ \t]|$)/ { print "auth [success=done default=ignore] " m " nodelay"; print; a = 1; next }
        /^@include[ \t]+common-session([ \t]|$)/ { print; print "session optional " m; s = 1; next }
        { print }
        END { if (!a || !s) exit 1 }' /etc/pam.d/su > "$T/pam.d/su" \
        || die "/etc/pam.d/su lacks '@include common-auth' or '@include common-session'"
    sed "s|pam_secureroom\.so|$MODULE|" "$REPO/pam/secureroom-vault" > "$T/pam.d/secureroom-vault"
    bind_over "$T/pam.d" /etc/pam.d
    grep -q "^session optional $MODULE\$" /etc/pam.d/su || die "/etc/pam.d/su does not show the generated stack"
    sink_login_records

    # --- Xvfb's keymap scratch files (case_pinentry_gtk; Xvfb runs as srsecret) ---
    [ -d /var/lib/xkb ] && mount -t tmpfs -o "mode=0755,uid=$TEST_UID,gid=$TEST_UID" "$E2E_PREFIX" /var/lib/xkb

    # --- the state directory and srsecret's PIN ---
    set_pin "$PIN"
    start_tmux
}

# ---- the bus and the provider ----------------------------------------------------------
# bus_call METHOD ARGS...: a call to the bus daemon itself (dbus-send as the user); the
# reply's value, trimmed.
bus_call() {
    as_user dbus-send --bus="$BUS" --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        "org.freedesktop.DBus.$1" "${@:2}" 2>/dev/null | sed -E 's/^[[:space:]]+//; s/^(boolean|uint32) //'
}
name_owner() { bus_call GetNameOwner string:org.freedesktop.secrets; }

start_bus() {
    install -d -m 0700 -o "$TEST_UID" -g "$TEST_UID" "$T/bus"
    cat > "$T/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- generated by Tests/e2e/secret-service.sh: a session bus for the test only, no
     service activation (nothing but the provider under test can own the name) -->
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:path=$T/bus/socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
  <limit name="reply_timeout">300000</limit>
</busconfig>
EOF
    chmod 0644 "$T/bus.conf"
    as_user_bg dbus-daemon --config-file="$T/bus.conf" --nofork --print-address > "$T/log/bus.address" 2> "$T/log/bus.err" &
    BUS_PID=$!
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ -s "$T/log/bus.address" ] && break
        kill -0 "$BUS_PID" 2>/dev/null || die "dbus-daemon exited at start: $(clean "$T/log/bus.err")"
        sleep 0.1
    done
    BUS=$(head -n 1 "$T/log/bus.address")
    [ -n "$BUS" ] || die "dbus-daemon printed no address within ${TIMEOUT}s"
}

# start_provider [ENV=VALUE...]: serve as the user, with ENV and $PROVIDER_ARGS (default
# --pinentry none: a locked vault's callers wait for `secureroom-vault unlock`).
PROVIDER_ARGS=(--pinentry none)
start_provider() {
    as_user_bg env "$@" "$VAULT_BIN" serve --prompt-timeout "$PROMPT_TIMEOUT" "${PROVIDER_ARGS[@]}" \
        > "$T/log/serve.out" 2>> "$T/log/serve.log" &
    SERVE_PID=$!
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ "$(bus_call NameHasOwner string:org.freedesktop.secrets)" = true ] && break
        kill -0 "$SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    OWNER=$(name_owner)
}

provider_running() {
    kill -0 "$SERVE_PID" 2>/dev/null && [ "$(name_owner)" = "$OWNER" ] && [ -n "$OWNER" ]
}

# ---- predicates ------------------------------------------------------------------------
uid_of() { awk '/^Uid:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
file_is() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
# same_bytes FILE VALUE: FILE holds exactly VALUE (no newline added or dropped).
same_bytes() { cmp -s "$1" <(printf '%s' "$2"); }
rc_file_is() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
is_status() { [ "$STATUS" = "$1" ]; }
failed_status() { [[ "$STATUS" =~ ^[0-9]+$ ]] && [ "$STATUS" -ne 0 ]; }
empty_file() { [ ! -s "$1" ]; }
log_has() { grep -qF -- "$2" "$1"; }

# user_run NAME CMD...: CMD as the user; stdout in $T/io/NAME.out, stderr in .err;
# STATUS its exit status.
user_run() {
    local name=$1; shift
    STATUS=0
    as_user "$@" > "$T/io/$name.out" 2> "$T/io/$name.err" || STATUS=$?
    DIAG=("$T/io/$name.out" "$T/io/$name.err")
}
vault_cmd() { local name=$1; shift; user_run "$name" "$VAULT_BIN" "$@"; }
lookup() { user_run "$1" secret-tool lookup service "$ATTR_SERVICE" account "$2"; }

# The sessions file (SECUREROOM-SESSIONS/1, one "session: PID START" line per session):
# the pids holding srsecret's sessions.
session_pids() { [ -f "$T/run/$TEST_USER.sessions" ] && awk '$1 == "session:" { print $2 }' "$T/run/$TEST_USER.sessions" || true; }
su_session_listed() {
    local p
    for p in $(session_pids); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = su ] && return 0
    done
    return 1
}
no_live_session_listed() {
    local p
    for p in $(session_pids); do kill -0 "$p" 2>/dev/null && return 1; done
    return 0
}
key_in_keyring() { as_user keyctl search @u user "secureroom:vault:$TEST_USER" >/dev/null 2>&1; }

# list_json_has LABEL ATTRS_JSON: `secureroom-vault list --json` has an entry whose title
# and label are LABEL and whose attributes (xdg:schema aside) are ATTRS_JSON.
list_json_has() {
    "$PY" - "$T/io/list.out" "$1" "$2" <<'EOF'
import json, sys
entries = json.load(open(sys.argv[1]))
want = json.loads(sys.argv[3])
for e in entries:
    if e.get("title") == sys.argv[2] and e.get("label") == sys.argv[2]:
        attrs = {k: v for k, v in (e.get("attributes") or {}).items() if k != "xdg:schema"}
        sys.exit(0 if attrs == want else 1)
sys.exit(1)
EOF
}
list_json_lacks() { ! grep -qF -- "\"$1\"" "$T/io/list.out" && "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/io/list.out"; }
status_secrets() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["secrets"])' "$T/io/status.out" 2>/dev/null; }
items_count() { "$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$1" 2>/dev/null; }

# ---- the login -------------------------------------------------------------------------
PIN_RE='^PIN:'
PASSWORD_RE='[Pp]assword( for [^:]*)?:'

# The command su runs for srsecret: secret-tool store (value on stdin) and lookup, then
# it holds the session open until the script creates $T/io/logout.
write_session_body() {
    {
        echo "# generated by Tests/e2e/secret-service.sh: runs as $TEST_USER inside su"
        printf 'export DBUS_SESSION_BUS_ADDRESS=%q\n' "$BUS"
        printf 'cd %q\n' "$T/io"
        echo 'id -un > login-whoami.out'
        printf 'printf %%s %q | secret-tool store --label=%q service %q account alice > login-store.out 2> login-store.err\n' \
            "$LOGIN_VALUE" "$LOGIN_LABEL" "$ATTR_SERVICE"
        echo 'echo $? > login-store.rc'
        printf 'secret-tool lookup service %q account alice > login-lookup.out 2> login-lookup.err\n' "$ATTR_SERVICE"
        echo 'echo $? > login-lookup.rc'
        echo ': > session.ready'
        echo 'while [ ! -e logout ]; do sleep 0.1; done'
    } > "$T/cases/session-body.sh"
    chmod 0644 "$T/cases/session-body.sh"
}

wait_file() {
    local i
    for (( i = 0; i < $2 * 10; i++ )); do
        [ -e "$1" ] && return 0
        pane_has "$PANE" "$RC_RE" && return 1
        sleep 0.1
    done
    return 1
}

# The OpenSession calls dbus-monitor saw (the first, "monitor-ready", left out): one
# algorithm per line.
monitored_algorithms() {
    awk '/member=OpenSession/ { getline; if ($1 == "string") print $2 }' "$T/log/monitor.log" \
        | tr -d '"' | grep -v '^monitor-ready$' || true
}
all_dh() {
    local algos n
    algos=$(monitored_algorithms)
    n=$(printf '%s\n' "$algos" | grep -c . || true)
    [ "$n" -ge 2 ] && ! printf '%s\n' "$algos" | grep -qv "^$ALGO_DH\$"
}

start_monitor() {
    as_user_bg dbus-monitor --address "$BUS" "type='method_call',member='OpenSession'" > "$T/log/monitor.log" 2>&1 &
    MONITOR_PID=$!
    local i
    # A call only the monitor sees (unknown algorithm: refused) shows when it is listening.
    for (( i = 0; i < TIMEOUT * 5; i++ )); do
        as_user dbus-send --bus="$BUS" --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
            org.freedesktop.Secret.Service.OpenSession string:monitor-ready variant:string: >/dev/null 2>&1 || true
        grep -q 'monitor-ready' "$T/log/monitor.log" 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}
stop_monitor() {
    [ -n "$MONITOR_PID" ] || return 0
    kill "$MONITOR_PID" 2>/dev/null || true
    wait "$MONITOR_PID" 2>/dev/null || true
    MONITOR_PID=
}

# ---- cases -----------------------------------------------------------------------------
case_setup() {
    # --- the vault: made by the user (PIN through the setuid helper), then locked ---
    STATUS=0
    printf '%s\n' "$PIN" | as_user "$VAULT_BIN" init --stdin > "$T/io/init.out" 2> "$T/io/init.err" || STATUS=$?
    DIAG=("$T/io/init.out" "$T/io/init.err")
    check "secureroom-vault init --stdin as $TEST_USER (PIN checked by the setuid helper): exit 0, recovery key printed" \
        all 'is_status 0' "grep -qE '[0-9]{5}(-[0-9]{5}){7}' '$T/io/init.out'"
    vault_cmd lock lock
    vault_cmd status status
    check "secureroom-vault lock, then status: the vault starts locked (exit 3), so only the PIN login opens it" \
        all 'is_status 3' '! key_in_keyring'

    # --- the bus and the provider ---
    start_bus
    DIAG=("$T/log/bus.err")
    check "dbus-daemon (own config, no service activation) runs as $TEST_USER on $T/bus/socket" \
        all "[ \"\$(uid_of $BUS_PID)\" = $TEST_UID ]" "[[ \"\$BUS\" == unix:path=$T/bus/socket,* ]]" "[ -S '$T/bus/socket' ]"
    start_provider
    DIAG=("$T/log/serve.out" "$T/log/serve.log")
    check "secureroom-vault serve --prompt-timeout $PROMPT_TIMEOUT runs as $TEST_USER and owns org.freedesktop.secrets (the owner's pid is its pid)" \
        all provider_running "[ \"\$(uid_of $SERVE_PID)\" = $TEST_UID ]" \
            "[ \"\$(bus_call GetConnectionUnixProcessID string:\$OWNER)\" = $SERVE_PID ]"
}

case_login() {
    start_monitor || echo "# note: dbus-monitor did not start listening"
    write_session_body
    open_window login "$CALLER_UID" "su $TEST_USER -c 'bash $T/cases/session-body.sh'"
    LOGIN_PANE=$PANE
    local saw_pin=0
    if wait_for "$PANE" "$PIN_RE|$PASSWORD_RE|$RC_RE" && pane_has "$PANE" "$PIN_RE"; then
        saw_pin=1
        type_line "$PANE" "$PIN"
    fi
    wait_file "$T/io/session.ready" 30 || true
    DIAG=("$T/io/login-store.err" "$T/io/login-lookup.err") SHOW_PANE=1
    check "su $TEST_USER (run by $CALLER): 'PIN:' asked, the PIN accepted, no password asked; the login's commands run as $TEST_USER" \
        all "[ $saw_pin = 1 ]" "not_shows '$PASSWORD_RE'" "file_is '$T/io/login-whoami.out' $TEST_USER" "[ -e '$T/io/session.ready' ]"
    SHOW_PANE=0
    check "the session line counted su's session ($T/run/$TEST_USER.sessions lists the running su)" su_session_listed
    check "the PIN login put the vault key in $TEST_USER's kernel keyring (keyctl search @u finds secureroom:vault:$TEST_USER)" key_in_keyring
    DIAG=("$T/io/login-store.out" "$T/io/login-store.err" "$T/log/serve.log")
    check "in the login: secret-tool store --label=... service $ATTR_SERVICE account alice (value on stdin) exits 0, no prompt (the provider logged no 'vault locked')" \
        all "rc_file_is '$T/io/login-store.rc' 0" "empty_file '$T/io/login-store.out'" "! log_has '$T/log/serve.log' 'vault locked'"
    DIAG=("$T/io/login-lookup.out" "$T/io/login-lookup.err")
    check "in the login: secret-tool lookup service $ATTR_SERVICE account alice prints exactly the value (exit 0)" \
        all "rc_file_is '$T/io/login-lookup.rc' 0" "same_bytes '$T/io/login-lookup.out' '$LOGIN_VALUE'"
    stop_monitor
    DIAG=("$T/log/monitor.log")
    check "secret-tool (libsecret) opened every session with $ALGO_DH (dbus-monitor: $(monitored_algorithms | wc -l) OpenSession calls)" all_dh

    vault_cmd get get "$LOGIN_LABEL"
    check "the item lives in the vault: secureroom-vault get '$LOGIN_LABEL' as $TEST_USER prints the same value" \
        all 'is_status 0' "same_bytes '$T/io/get.out' '$LOGIN_VALUE'"
    vault_cmd list list --json
    check "secureroom-vault list --json: an entry with title and label '$LOGIN_LABEL' and attributes {service: $ATTR_SERVICE, account: alice}" \
        all 'is_status 0' "list_json_has '$LOGIN_LABEL' '{\"service\": \"$ATTR_SERVICE\", \"account\": \"alice\"}'"
    LOGIN_ITEM=$(as_user "$PY" "$CLIENT" item-of "service=$ATTR_SERVICE" account=alice 2>/dev/null) || LOGIN_ITEM=none
    [[ "$LOGIN_ITEM" == /org/freedesktop/secrets/collection/login/* ]] \
        || { echo "# note: the login item's path not found ($LOGIN_ITEM)"; LOGIN_ITEM=$(printf '/org/freedesktop/secrets/collection/login/%064d' 1); }
    echo "# the login item: $LOGIN_ITEM"
}

case_algorithms() {
    run_client shape
    run_client secretstorage --map "$T/io/map-clients.json"
    run_client gi --map "$T/io/map-clients.json"
    run_client plain --map "$T/io/map-clients.json"
    run_client dh-edge --pid "$SERVE_PID" --map "$T/io/map-clients.json"
    run_client signals --map "$T/io/map-clients.json"
    local bad=0 title value
    for title in "e2e same label" "e2e same label (2)" untitled; do
        case $title in
            untitled) value="no label value" ;;
            *"(2)") value="same label value 2" ;;
            *) value="same label value 1" ;;
        esac
        vault_cmd title get "$title"
        [ "$STATUS" = 0 ] && same_bytes "$T/io/title.out" "$value" || bad=$((bad + 1))
    done
    check "titles made unique: two items labelled 'e2e same label' are 'e2e same label' and 'e2e same label (2)' for secureroom-vault get, an empty label is 'untitled' ($bad wrong)" \
        test "$bad" = 0
}

case_search_clear() {
    STATUS=0
    printf '%s' "$BOB_VALUE" | as_user secret-tool store --label="$BOB_LABEL" service "$ATTR_SERVICE" account bob \
        > "$T/io/store-bob.out" 2> "$T/io/store-bob.err" || STATUS=$?
    DIAG=("$T/io/store-bob.err")
    check "secret-tool store (outside su, the vault still unlocked by the login) exits 0" is_status 0
    user_run search secret-tool search --all service "$ATTR_SERVICE"
    # secret-tool writes the item's details to stdout and stderr: look at both.
    clean "$T/io/search.err" >> "$T/io/search.out"
    check "secret-tool search --all service $ATTR_SERVICE: both items, with label, secret and attribute.account" \
        all 'is_status 0' \
            "[ \$(grep -cE '^\\[(/org/freedesktop/secrets/collection/login)?/[0-9a-f]{64}\\]\$' '$T/io/search.out') = 2 ]" \
            "log_has '$T/io/search.out' 'label = $LOGIN_LABEL'" "log_has '$T/io/search.out' 'label = $BOB_LABEL'" \
            "log_has '$T/io/search.out' 'secret = $LOGIN_VALUE'" "log_has '$T/io/search.out' 'secret = $BOB_VALUE'" \
            "log_has '$T/io/search.out' 'attribute.account = alice'" "log_has '$T/io/search.out' 'attribute.account = bob'"
    user_run clear secret-tool clear service "$ATTR_SERVICE" account bob
    check "secret-tool clear service $ATTR_SERVICE account bob exits 0" is_status 0
    lookup lookup-bob bob
    check "after clear: secret-tool lookup ... account bob finds nothing (exit not 0, nothing printed)" \
        all failed_status "empty_file '$T/io/lookup-bob.out'"
    vault_cmd list list --json
    local listed=$STATUS
    vault_cmd get-bob get "$BOB_LABEL"
    check "after clear: the vault no longer has it (list --json lacks '$BOB_LABEL'; get exits 4)" \
        all "[ $listed = 0 ]" "list_json_lacks '$BOB_LABEL'" 'is_status 4'
    lookup lookup-alice alice
    check "after clear: the other item (account alice) still reads back" \
        all 'is_status 0' "same_bytes '$T/io/lookup-alice.out' '$LOGIN_VALUE'"
}

case_concurrent() {
    run_client snapshot --out "$T/io/before-writers.json"
    rm -f "$T/io/start"
    local a b cli rca=0 rcb=0 rcc=0 t0 t1
    as_user "$PY" "$CLIENT" writer --prefix writerA --count "$WRITER_ITEMS" --algo dh \
        --map "$T/io/map-writerA.json" --start "$T/io/start" > "$T/io/writerA.out" 2>&1 &
    a=$!
    as_user "$PY" "$CLIENT" writer --prefix writerB --count "$WRITER_ITEMS" --algo plain \
        --map "$T/io/map-writerB.json" --start "$T/io/start" > "$T/io/writerB.out" 2>&1 &
    b=$!
    as_user /bin/bash -c 'while [ ! -e "$1/start" ]; do sleep 0.01; done
        for (( k = 1; k <= $3; k++ )); do printf "cli value %d\n" "$k" | "$2" add "cli-$k" || exit 1; done' \
        sh "$T/io" "$VAULT_BIN" "$CLI_ADDS" > "$T/io/cli-adds.out" 2>&1 &
    cli=$!
    sleep 0.5                                  # all three connected and waiting
    t0=$(date +%s.%N)
    : > "$T/io/start"
    wait "$a" || rca=$?
    wait "$b" || rcb=$?
    wait "$cli" || rcc=$?
    t1=$(date +%s.%N)
    echo "# two writers x $WRITER_ITEMS items and $CLI_ADDS CLI adds at once: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    DIAG=("$T/io/writerA.out" "$T/io/writerB.out" "$T/io/cli-adds.out")
    check "two clients (DH and plain session) writing $WRITER_ITEMS items each while 'secureroom-vault add' stores $CLI_ADDS secrets: all exit 0, no call refused" \
        all "[ $rca = 0 ] && [ $rcb = 0 ] && [ $rcc = 0 ]" \
            "grep -qx 'created $WRITER_ITEMS errors 0 \\[\\]' '$T/io/writerA.out'" "grep -qx 'created $WRITER_ITEMS errors 0 \\[\\]' '$T/io/writerB.out'"
    run_client writers-check --prefixes writerA writerB --maps "$T/io/map-writerA.json" "$T/io/map-writerB.json" \
        --count "$WRITER_ITEMS" --snapshot "$T/io/before-writers.json" --cli "$CLI_ADDS"
    local k bad=0
    for (( k = 1; k <= CLI_ADDS; k++ )); do
        vault_cmd "cli-get" get "cli-$k"
        [ "$STATUS" = 0 ] && cmp -s "$T/io/cli-get.out" <(printf 'cli value %d\n' "$k") || bad=$((bad + 1))
    done
    DIAG=()
    check "secureroom-vault get cli-1..cli-$CLI_ADDS: every CLI secret has its value ($bad wrong)" test "$bad" = 0
}

case_bulk() {
    run_client bulk --prefix bulk --count "$BULK" --map "$T/io/map-bulk.json"
    run_client bulk-check --prefix bulk --count "$BULK" --map "$T/io/map-bulk.json"
    local i n bad=0 picked=()
    for n in 1 2 3 4 5; do
        i=$(( (RANDOM * 32768 + RANDOM) % BULK ))
        picked+=("$i")
        user_run bulk-lookup secret-tool lookup e2e bulk idx "$i"
        [ "$STATUS" = 0 ] && same_bytes "$T/io/bulk-lookup.out" "bulk secret #$i" || bad=$((bad + 1))
    done
    check "secret-tool lookup e2e bulk idx N for 5 random N (${picked[*]}) among $BULK: each prints its value" test "$bad" = 0
    run_client snapshot --out "$T/io/items-now.json"
    vault_cmd status status --json
    DIAG=("$T/io/status.out" "$T/io/status.err")
    check "secureroom-vault status --json counts exactly the collection's items ($(items_count "$T/io/items-now.json") over D-Bus, at least $BULK)" \
        all 'is_status 0' "[ \"\$(status_secrets)\" = \"\$(items_count '$T/io/items-now.json')\" ]" \
            "[ \"\$(items_count '$T/io/items-now.json')\" -ge $BULK ]"
}

case_second_provider() {
    local owner_re
    owner_re=$(printf '%s' "$OWNER" | sed 's/\./\\./g')
    STATUS=0
    as_user timeout 20 "$VAULT_BIN" serve --prompt-timeout "$PROMPT_TIMEOUT" > "$T/io/serve2.out" 2>&1 || STATUS=$?
    clean "$T/io/serve2.out" > "$T/io/serve2.lines"
    DIAG=("$T/io/serve2.lines")
    check "a second secureroom-vault serve on the bus exits 5 with one line: 'secureroom-vault: org.freedesktop.secrets is already provided by $OWNER (pid $SERVE_PID, ...); not starting'" \
        all 'is_status 5' "[ \$(wc -l < '$T/io/serve2.lines') = 1 ]" \
            "grep -qE '^secureroom-vault: org\\.freedesktop\\.secrets is already provided by $owner_re \\(pid $SERVE_PID, [^)]+\\); not starting\$' '$T/io/serve2.lines'"
    DIAG=("$T/log/serve.log")
    check "the first provider keeps running and keeps the name" provider_running
    STATUS=0
    as_user timeout 20 "$VAULT_BIN" serve --file "$T/no-such-vault.sqlite" > "$T/io/serve3.out" 2>&1 || STATUS=$?
    clean "$T/io/serve3.out" > "$T/io/serve3.lines"
    DIAG=("$T/io/serve3.lines")
    check "serve without a vault file exits 6 before asking for the name: 'no vault at ...; run 'secureroom-vault init' first ...'" \
        all 'is_status 6' "grep -q \"^secureroom-vault: no vault at $T/no-such-vault.sqlite; run 'secureroom-vault init' first\" '$T/io/serve3.lines'" \
            provider_running
}

case_session_end() {
    PANE=$LOGIN_PANE
    : > "$T/io/logout"
    RC=timeout
    if wait_for "$PANE" "$RC_RE"; then read_rc; fi
    DIAG=() SHOW_PANE=1
    check "ending the login: su exits 0 (close_session ran) and no live session of $TEST_USER is listed" \
        all 'rc_is 0' no_live_session_listed
    SHOW_PANE=0
    done_pane
    check "close_session of the last session removed the vault key from the kernel keyring (keyctl search @u finds nothing)" \
        all '! key_in_keyring'
    DIAG=("$T/log/serve.log")
    check "the provider is still running (same pid, same name owner) after the session ended" provider_running
    run_client get --item "$LOGIN_ITEM" --error org.freedesktop.Secret.Error.IsLocked \
        --desc "after the session ended, Item.GetSecret on the login's item answers org.freedesktop.Secret.Error.IsLocked"
    lookup lookup-after alice
    check "after the session ended, secret-tool lookup fails (exit not 0) and prints nothing" \
        all failed_status "empty_file '$T/io/lookup-after.out'"
    vault_cmd get-after get "$LOGIN_LABEL"
    check "after the session ended, secureroom-vault get exits 3 (locked), prints nothing" \
        all 'is_status 3' "empty_file '$T/io/get-after.out'"
}

case_locked() {
    run_client locked --item "$LOGIN_ITEM"
    local t0 t1 ms
    t0=$(date +%s%N)
    lookup lookup-locked alice
    t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    check "locked: secret-tool lookup fails (exit not 0, nothing printed) within the prompt timeout + 3 s (${ms} ms)" \
        all failed_status "empty_file '$T/io/lookup-locked.out'" "[ $ms -le $(( (PROMPT_TIMEOUT + 3) * 1000 )) ]"
    run_client prompt --mode timeout --timeout "$PROMPT_TIMEOUT"
    DIAG=("$T/log/serve.log")
    check "the provider logged \"vault locked: run 'secureroom-vault unlock'\" for the prompt" \
        log_has "$T/log/serve.log" "vault locked: run 'secureroom-vault unlock'"
    run_client prompt --mode dismiss --timeout "$PROMPT_TIMEOUT"
    run_client prompt --mode unlock --timeout "$PROMPT_TIMEOUT" --item "$LOGIN_ITEM" --value "$LOGIN_VALUE" \
        --unlock-cmd "sleep 1; printf '%s\\n' $PIN | '$VAULT_BIN' unlock --stdin > '$T/io/prompt-unlock.out' 2>&1"
    DIAG=("$T/io/prompt-unlock.out")
    check "the unlock run during the prompt said 'Vault unlocked for ...'" log_has "$T/io/prompt-unlock.out" "Vault unlocked for"

    vault_cmd lock2 lock
    check "secureroom-vault lock as $TEST_USER: 'Vault locked.'" all 'is_status 0' "log_has '$T/io/lock2.out' 'Vault locked.'"
    run_client get --item "$LOGIN_ITEM" --error org.freedesktop.Secret.Error.IsLocked \
        --desc "after secureroom-vault lock, Item.GetSecret answers org.freedesktop.Secret.Error.IsLocked"
    lookup lookup-locked2 alice
    check "after secureroom-vault lock, secret-tool lookup fails and prints nothing" \
        all failed_status "empty_file '$T/io/lookup-locked2.out'"

    unlock_now unlock2
    run_client lock --item "$LOGIN_ITEM"
    vault_cmd status2 status
    check "after Service.Lock, secureroom-vault status says locked too (exit 3)" is_status 3
    unlock_now unlock3
}

# case_pinentry: serve with a real pinentry (pinentry-tty on a tmux pane of the user, as
# $GPG_TTY): a locked vault's secret-tool lookup and Python keyring.get_password bring up
# the PIN prompt and return the secret once the PIN is typed; a wrong PIN's message is
# shown above the next field; a cancelled prompt gives the client a clean refusal.
case_pinentry() {
    local tty job
    python_keyring set
    open_window pinentry "$TEST_UID" "sleep 600"
    tty=$(tmux_ display-message -p -t "$PANE" '#{pane_tty}')
    chown "$TEST_UID" "$tty"
    stop_provider
    PROVIDER_ARGS=(--pinentry /usr/bin/pinentry-tty)
    start_provider GPG_TTY="$tty" TERM=xterm
    DIAG=("$T/log/serve.log")
    check "serve --pinentry /usr/bin/pinentry-tty runs and owns the name again" provider_running

    vault_cmd lock-p1 lock
    ( lookup lookup-pinentry alice; echo "$STATUS" > "$T/io/lookup-pinentry.rc" ) &
    job=$!
    DIAG=("$T/log/serve.log") SHOW_PANE=1
    check "locked: secret-tool lookup brings up the pinentry's PIN prompt on the user's terminal" \
        wait_prompts 1
    type_line "$PANE" "$WRONG_PIN"
    check "a wrong PIN: the pinentry asks again, showing the module's message" \
        all 'wait_prompts 2' "pane_has '$PANE' 'Incorrect PIN'"
    type_line "$PANE" "$PIN"
    wait "$job" || true
    SHOW_PANE=0
    DIAG=("$T/io/lookup-pinentry.out" "$T/io/lookup-pinentry.err" "$T/log/serve.log")
    check "then the right PIN: secret-tool lookup prints the secret and exits 0" \
        all "rc_file_is '$T/io/lookup-pinentry.rc' 0" "same_bytes '$T/io/lookup-pinentry.out' '$LOGIN_VALUE'"

    vault_cmd lock-p2 lock
    ( python_keyring get; echo "$STATUS" > "$T/io/keyring-get.rc" ) &
    job=$!
    check "locked: Python keyring.get_password brings up the PIN prompt" wait_prompts 3
    type_line "$PANE" "$PIN"
    wait "$job" || true
    DIAG=("$T/io/keyring-get.out" "$T/io/keyring-get.err" "$T/log/serve.log")
    check "then the PIN: keyring.get_password returns the secret" \
        all "rc_file_is '$T/io/keyring-get.rc' 0" "file_is '$T/io/keyring-get.out' 'keyring value'"

    vault_cmd lock-p3 lock
    ( lookup lookup-cancel alice; echo "$STATUS" > "$T/io/lookup-cancel.rc" ) &
    job=$!
    wait_prompts 4 || true
    tmux_ send-keys -t "$PANE" C-d
    wait "$job" || true
    DIAG=("$T/io/lookup-cancel.out" "$T/io/lookup-cancel.err" "$T/log/serve.log")
    check "a cancelled prompt: secret-tool lookup fails and prints nothing; serve logged the prompt's exit 7" \
        all "! rc_file_is '$T/io/lookup-cancel.rc' 0" "empty_file '$T/io/lookup-cancel.out'" \
            "log_has '$T/log/serve.log' 'PIN prompt ended (exit 7)'"
    done_pane
    unlock_now unlock-p
}

# wait_prompts N: wait (up to $TIMEOUT s) until the pinentry's pane shows N "PIN:" prompts.
wait_prompts() {
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        [ "$(capture "$PANE" | grep -o 'PIN:' | wc -l)" -ge "$1" ] && return 0
        sleep 0.1
    done
    return 1
}

# python_keyring set|get: Python's keyring library (its Secret Service backend) as the
# user: set stores "keyring value" for (secureroom-e2e, alice); get prints it.
python_keyring() {
    STATUS=0
    as_user python3 -c "
import sys, keyring
if sys.argv[1] == 'set':
    keyring.set_password('secureroom-e2e', 'alice', 'keyring value')
else:
    print(keyring.get_password('secureroom-e2e', 'alice'), end='')
" "$1" > "$T/io/keyring-$1.out" 2> "$T/io/keyring-$1.err" || STATUS=$?
}

# stop_provider: SIGTERM to serve, waited for.
stop_provider() {
    kill -TERM "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
}

unlock_now() {
    STATUS=0
    printf '%s\n' "$PIN" | as_user "$VAULT_BIN" unlock --stdin > "$T/io/$1.out" 2> "$T/io/$1.err" || STATUS=$?
    DIAG=("$T/io/$1.out" "$T/io/$1.err")
    check "secureroom-vault unlock --stdin (the PIN, through the setuid helper) exits 0" is_status 0
}

# case_pinentry_gtk: serve with a graphical pinentry, pinentry-gtk-2 on an Xvfb of the
# user's, typed into with xdotool as a user types: a locked vault's secret-tool lookup
# brings up its window; a wrong PIN brings up a new one with the module's message (red,
# above the field); the right PIN returns the secret; Escape gives the client a clean
# refusal within seconds.
case_pinentry_gtk() {
    local t0=$SECONDS mark job first red1 red2 t1 ms
    start_x
    stop_provider
    PROVIDER_ARGS=(--pinentry "$PINENTRY_GTK")
    start_provider DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY"
    DIAG=("$T/log/serve.log" "$T/log/xvfb.log")
    check "serve --pinentry $PINENTRY_GTK (DISPLAY=$DISPLAY of an Xvfb run by $TEST_USER, XAUTHORITY) runs and owns the name again" \
        provider_running

    vault_cmd lock-g1 lock
    mark=$(wc -l < "$T/log/serve.log")
    as_user_bg secret-tool lookup service "$ATTR_SERVICE" account alice > "$T/io/lookup-gtk.out" 2> "$T/io/lookup-gtk.err" &
    job=$!
    DIAG=("$T/log/serve.log" "$T/log/xvfb.log")
    check "locked: secret-tool lookup brings up pinentry-gtk-2's window (class pinentry-gtk-2, title 'SecureRoom vault') on $DISPLAY" \
        wait_window
    first=$WIN red1=$(red_pixels) RED=0
    type_in_window "$WRONG_PIN"
    wait_window "$first" && wait_red $((red1 + 150)) || true
    red2=${RED:-0}
    DIAG=("$T/log/serve.log")
    check "a wrong PIN: the same pinentry opens a new window ($first, then ${WIN:-none}) showing the module's message in red ($red1, then $red2 red pixels); serve's log has the message; failures 1" \
        all "[ -n '$WIN' ] && [ '$WIN' != '$first' ]" "[ $red2 -ge $((red1 + 150)) ]" \
            "serve_log_since $mark | grep -q 'Incorrect PIN'" 'failures_are 1'
    type_in_window "$PIN"
    reap_job "$job" $((TIMEOUT * 2))
    DIAG=("$T/io/lookup-gtk.out" "$T/io/lookup-gtk.err" "$T/log/serve.log")
    check "then the right PIN: secret-tool lookup prints the secret (same bytes) and exits 0 (exit $JOB_RC); failures 0; the window and the pinentry are gone; serve logged the prompt's exit 0" \
        all "[ '$JOB_RC' = 0 ]" "same_bytes '$T/io/lookup-gtk.out' '$LOGIN_VALUE'" 'failures_are 0' \
            'wait_until no_pinentry' "serve_log_since $mark | grep -qF 'PIN prompt ended (exit 0)'"

    vault_cmd lock-g2 lock
    mark=$(wc -l < "$T/log/serve.log")
    as_user_bg secret-tool lookup service "$ATTR_SERVICE" account alice > "$T/io/lookup-gtk-cancel.out" 2> "$T/io/lookup-gtk-cancel.err" &
    job=$!
    wait_window || true
    t1=$(date +%s%N)
    key_in_window Escape
    reap_job "$job" "$TIMEOUT"
    ms=$(( ($(date +%s%N) - t1) / 1000000 ))
    DIAG=("$T/io/lookup-gtk-cancel.out" "$T/io/lookup-gtk-cancel.err" "$T/log/serve.log")
    check "Escape in the window: secret-tool lookup fails (exit $JOB_RC) within 10 s (${ms} ms) and prints nothing; serve logged the prompt's exit 7 and keeps running; the pinentry is gone" \
        all "[[ '$JOB_RC' =~ ^[0-9]+\$ ]] && [ '$JOB_RC' != 0 ] && [ $ms -lt 10000 ]" "empty_file '$T/io/lookup-gtk-cancel.out'" \
            "serve_log_since $mark | grep -qF 'PIN prompt ended (exit 7)'" provider_running 'wait_until no_pinentry'
    unlock_now unlock-g
    stop_x
    echo "# case_pinentry_gtk: $((SECONDS - t0)) s"
}

# start_x: Xvfb as the user, run as the lock-screen tests run it (-nolisten tcp -nolisten
# unix -nolock: only the abstract socket; -r: no key repeat should a key's release come
# late), but in the host's network namespace: on the first display from X_FIRST with no
# socket (abstract or in /tmp/.X11-unix) and no lock file; should another server take it
# meanwhile, Xvfb exits and the next one is tried. Its cookie (MIT-MAGIC-COOKIE-1, any
# display) in the user's ~/.Xauthority keeps every other client out. Sets XVFB_PID and
# exports DISPLAY and XAUTHORITY (for xdotool and xwd, run as root).
start_x() {
    local n i
    export XAUTHORITY=$T/home/$TEST_USER/.Xauthority
    ( umask 077; "$PY" -c 'import os, struct, sys
field = lambda b: struct.pack(">H", len(b)) + b
sys.stdout.buffer.write(struct.pack(">H", 0xffff) + field(b"") + field(b"") + field(b"MIT-MAGIC-COOKIE-1") + field(os.urandom(16)))' \
        > "$XAUTHORITY" ) || die "could not write $XAUTHORITY"
    chown "$TEST_UID:$TEST_UID" "$XAUTHORITY"
    for (( n = X_FIRST; n <= X_LAST; n++ )); do
        display_free "$n" || continue
        export DISPLAY=":$n"
        as_user_bg Xvfb "$DISPLAY" -auth "$XAUTHORITY" -screen 0 "$SCREEN" -nolisten tcp -nolisten unix -nolock -r \
            > "$T/log/xvfb.log" 2>&1 &
        XVFB_PID=$!
        for (( i = 0; i < TIMEOUT * 10; i++ )); do
            kill -0 "$XVFB_PID" 2>/dev/null || break
            xdotool getdisplaygeometry >/dev/null 2>&1 && return 0
            sleep 0.1
        done
        kill -0 "$XVFB_PID" 2>/dev/null && die "Xvfb did not answer on $DISPLAY within ${TIMEOUT}s"
        wait "$XVFB_PID" 2>/dev/null || true
        echo "# note: Xvfb could not take $DISPLAY: $(tail -n 1 "$T/log/xvfb.log")"
    done
    XVFB_PID=
    die "no free X display in :$X_FIRST to :$X_LAST"
}
display_free() {
    [ ! -e "/tmp/.X11-unix/X$1" ] && [ ! -e "/tmp/.X$1-lock" ] && ! grep -qE " @?/tmp/\.X11-unix/X$1\$" /proc/net/unix
}
stop_x() {
    [ -n "$XVFB_PID" ] || return 0
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
    XVFB_PID=
    unset DISPLAY XAUTHORITY
}

# pinentry_windows: pinentry-gtk-2's visible windows (WM_CLASS instance pinentry-gtk-2)
# with the vault's title (SETTITLE).
pinentry_windows() {
    local w
    for w in $(xdotool search --onlyvisible --classname '^pinentry-gtk-2$' 2>/dev/null); do
        if [ "$(xdotool getwindowname "$w" 2>/dev/null)" = "SecureRoom vault" ]; then echo "$w"; fi
    done
    return 0
}
# wait_window [OLD]: wait (up to $TIMEOUT s) for such a window other than OLD; WIN is its id.
wait_window() {
    local i w
    WIN=
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        for w in $(pinentry_windows); do
            if [ "$w" != "${1:-}" ]; then WIN=$w; return 0; fi
        done
        sleep 0.1
    done
    return 1
}
# type_in_window TEXT: what a user does: TEXT in WIN's field, then Return. key_in_window
# KEY: that key. WIN gets the focus first: pinentry-gtk-2 grabs the keyboard, but only
# once the window is mapped, which is when it is found.
type_in_window() {
    focus_window
    xdotool type --delay 50 -- "$1"
    xdotool key Return
}
key_in_window() { focus_window; xdotool key "$1"; }
focus_window() { timeout 5 xdotool windowfocus --sync "$WIN" >/dev/null 2>&1 || true; }
# red_pixels: how many pixels of WIN are red: pinentry-gtk-2 draws the error above the
# field in #ff0000; without one, only the Cancel button's icon has some.
red_pixels() {
    xwd -silent -id "$WIN" 2>/dev/null | "$CONVERT" xwd:- -fuzz 25% -fill black +opaque '#ff0000' \
        -fill white -opaque '#ff0000' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null || echo 0
}
# wait_red MIN: screenshots of WIN until one has MIN red pixels (up to $TIMEOUT s; it may
# be mapped before it is drawn); RED is the last count.
wait_red() {
    local i
    for (( i = 0; i < TIMEOUT * 5; i++ )); do
        RED=$(red_pixels)
        [ "$RED" -ge "$1" ] 2>/dev/null && return 0
        sleep 0.2
    done
    return 1
}
no_pinentry() { [ -z "$(pinentry_windows)" ] && ! pgrep -u "$TEST_UID" -x pinentry-gtk-2 >/dev/null; }
wait_until() {
    local i
    for (( i = 0; i < TIMEOUT * 10; i++ )); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
# serve_log_since N: serve's log after its first N lines.
serve_log_since() { tail -n "+$(( $1 + 1 ))" "$T/log/serve.log"; }
# reap_job PID SECONDS: wait up to SECONDS for the background job PID to end; JOB_RC is
# its exit status, or "timeout" (it is then killed).
reap_job() {
    local i
    for (( i = 0; i < $2 * 10; i++ )); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2>/dev/null; then
        kill -KILL "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
        JOB_RC=timeout
        return 0
    fi
    JOB_RC=0
    wait "$1" || JOB_RC=$?
}

case_bad_input() {
    run_client bad --pid "$SERVE_PID" --item "$LOGIN_ITEM" --value "$LOGIN_VALUE"
    DIAG=("$T/log/serve.log")
    check "after all the bad input the provider is still the same process, owning the name" provider_running
    run_client verify --maps "$T/io/map-clients.json" "$T/io/map-bulk.json" "$T/io/map-writerA.json" "$T/io/map-writerB.json"
    lookup lookup-final alice
    vault_cmd get-final get cli-1
    check "nothing lost: secret-tool lookup (login item) and secureroom-vault get cli-1 still give their values" \
        all "[ -s '$T/io/lookup-final.out' ] && same_bytes '$T/io/lookup-final.out' '$LOGIN_VALUE'" \
            "cmp -s '$T/io/get-final.out' <(printf 'cli value 1\\n')"
}

case_stop() {
    local i rc=0
    kill -TERM "$SERVE_PID" 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVE_PID" 2>/dev/null; then
        rc=running
        kill -KILL "$SERVE_PID" 2>/dev/null || true
        wait "$SERVE_PID" 2>/dev/null || true
    else
        wait "$SERVE_PID" || rc=$?
    fi
    SERVE_PID=
    DIAG=("$T/log/serve.log")
    check "SIGTERM: the provider exits 0 within 5 s (exit $rc) and the name is released (NameHasOwner false)" \
        all "[ '$rc' = 0 ]" "[ \"\$(bus_call NameHasOwner string:org.freedesktop.secrets)\" = false ]"
    kill "$BUS_PID" 2>/dev/null || true
    wait "$BUS_PID" 2>/dev/null || true
    BUS_PID=
    echo "# provider log: $(wc -l < "$T/log/serve.log") lines; first ones:"
    clean "$T/log/serve.log" | head -n 5 | cut -c1-200 | sed 's/^/#   /'
}

inner_main() {
    local t0=$SECONDS
    setup_namespace
    case_setup
    provider_running || die "the provider did not start: $(clean "$T/log/serve.log" | tail -n 5)"
    case_login
    case_algorithms
    case_search_clear
    case_concurrent
    case_bulk
    case_second_provider
    case_session_end
    case_locked
    case_pinentry
    case_pinentry_gtk
    case_bad_input
    case_stop
    echo "# inner run: $((SECONDS - t0)) s"
    COMPLETE=1
}

e2e_main
