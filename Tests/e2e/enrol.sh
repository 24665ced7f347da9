#!/usr/bin/env bash
# Tests/e2e/enrol.sh — end-to-end test of PIN enrolment with a REAL password: the
# module's `enrol=offer` line inside the real su, sudo and login, expiring PINs
# (`secureroom set --expire`) changed at the next su, and `secureroom enrol` through
# the setuid secureroom-helper.
#
# What it proves
#   * su: a user without a PIN who types the right password is offered one ("Create a
#     4-digit PIN for this computer? [y/N]"); after "y" a PIN on the blocklist is refused
#     ("PIN rejected: ...") and a good one, typed twice (not echoed), is stored ("PIN
#     created."): su exits 0, `secureroom status --json` says enrolled; the next su asks
#     "PIN:" and takes that PIN without any password prompt;
#   * a wrong password never reaches the offer: su fails, no question, nothing enrolled;
#   * declining ("n") is told ("No PIN created.") and remembered (enrol_snooze): the next
#     su with the password is not asked again, and the user stays without a PIN;
#   * sudo: the password works as before; sudo 1.9.13 calls pam_authenticate with
#     PAM_SILENT and has no "pam_silent" default to turn that off, and the module never
#     asks a silent conversation, so sudo shows no offer and nothing is enrolled (where
#     sudoers knows `!pam_silent`, the script sets it and expects the offer instead);
#   * login (shadow's login, run by root on a tmux pty): the password, the offer
#     accepted, the PIN stored, the user's shell started;
#   * expiring PINs: after `secureroom set USER --stdin --expire` (status must_change set),
#     su with that PIN says "Your PIN has expired and must be changed now.", asks "New
#     PIN:"/"Retype new PIN:" only (not the old PIN, not the password) in the account
#     step, succeeds; then
#     must_change is null and the new PIN works at the next su;
#   * `secureroom enrol` run by the user: a wrong password is refused ("password not
#     accepted ... nothing was changed", exit 1), nothing enrolled and SecureRoom's own
#     failure counter untouched (0); the right password then creates the PIN; a second
#     `secureroom enrol` is refused ("you already have a PIN"); the helper run directly
#     by that user for ANOTHER account (`secureroom-helper enrol OTHER`, stdin a pipe) is
#     refused (exit 5, reply "refused ...") and the other account's PIN stays as it was;
#   * `secureroom enrol --replace` run by that user (PIN forgotten): a wrong password is
#     refused ("password not accepted", exit 1) and the current PIN still works at su; the
#     right password, then a new PIN typed twice, prints "PIN replaced for srself." (exit
#     0); afterwards su takes the NEW PIN and the OLD one fails (su falls through to the
#     password prompt and is refused);
#   * nothing outside the test changed (digests, no test users, no mounts left).
#
# How
#   The script runs twice (Tests/e2e/lib.sh). The outer run (root) checks prerequisites,
#   records digests of what it guards and re-executes itself inside
#   scripts/lib/sandbox (a private mount namespace). The inner run bind-mounts private copies
#   over /etc/passwd, shadow, group, gshadow (six users with a REAL SHA-512 password,
#   uids 4270-4275), /etc/sudoers, /etc/pam.d (su, sudo and login rewritten from the
#   originals: the PIN line `auth [success=done default=ignore]` before
#   `@include common-auth`, `auth optional ... enrol=offer` after it, the `only_expired`
#   account line after common-account, as the secureroom profile has it; login without
#   pam_motd, which would write /run/motd.dynamic; secureroom-enrol = pam/secureroom-enrol),
#   /etc/security (its secureroom.conf: dir=STATE, tpm off, cheap argon2, helper= the
#   setuid copy) and the login records; tmpfs over sudo's timestamp dirs. The helper is
#   copied to $T/bin, root 4755. Each su/sudo/login/enrol runs in its own tmux window
#   (setpriv to the calling user, no PAM), and the script answers each prompt as it
#   appears (polling capture-pane), then reads the exit code from a marker line.
#
# Usage (root):  Tests/e2e/enrol.sh
#   SECUREROOM_MODULE  module to test   (default <repo>/.build/release/pam_secureroom.so)
#   SECUREROOM_CLI     admin tool       (default <repo>/.build/release/secureroom)
#   SECUREROOM_HELPER  setuid helper, copied (default <repo>/.build/release/secureroom-helper)
#   SR_E2E_TIMEOUT     seconds to wait for each prompt/exit (default 15)
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# shellcheck source=Tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

HELPER=${SECUREROOM_HELPER:-$REPO/.build/release/secureroom-helper}
PASSWORD='Harbour-Violet-47q'     # every test user's real password (namespace only)
WRONG_PASSWORD='not-the-password'
PIN=6193                          # pass the policy (not sequences, not blocklisted)
PIN2=4618
PIN3=5827
PIN4=7392                         # srself's PIN after `secureroom enrol --replace`
WEAK_PIN=1234                     # refused by the policy
CALLER=srcall   CALLER_UID=4270   # runs su (no password of interest)
OFFER=sroffer   OFFER_UID=4271    # su: offer accepted; later its PIN expired
DECLINE=srdecl  DECLINE_UID=4272  # su: wrong password, then declines twice
SUDOER=srsudo   SUDOER_UID=4273   # sudo
LOGIN=srlogin   LOGIN_UID=4274    # login
OWN=srself      OWN_UID=4275      # secureroom enrol
TEST_USER=$OFFER

E2E_PREFIX=sr-enrol
E2E_ROOT_REASON="it bind-mounts over /etc and installs a setuid helper inside a private mount namespace"
E2E_TOOLS+=(su sudo visudo login findmnt)
E2E_USERS=("$CALLER" "$OFFER" "$DECLINE" "$SUDOER" "$LOGIN" "$OWN")
E2E_UIDS=("$CALLER_UID" "$OFFER_UID" "$DECLINE_UID" "$SUDOER_UID" "$LOGIN_UID" "$OWN_UID")
GUARDED=(/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/sudoers
         /etc/security/secureroom.conf /usr/sbin/secureroom-helper
         /var/log/btmp /var/log/wtmp /var/log/lastlog /var/log/faillog
         /run/utmp /var/run/utmp /run/motd.dynamic)
GUARDED_DIRS=(/etc/pam.d /etc/security /run/sudo /var/lib/sudo)
E2E_GUARDED_DESC="${#GUARDED[@]} files, pam.d, security and sudo dirs"

# ---------------------------------------------------------------------------------------
# Outer run: the hooks lib.sh's outer_main calls.
# ---------------------------------------------------------------------------------------
outer_prerequisites() {
    need_password_hashing
    need_setuid_helper
    [ -f "$REPO/pam/secureroom-enrol" ] || die "pam/secureroom-enrol not found"
}
outer_header() {
    echo "# helper: $SECUREROOM_HELPER"
    echo "# su: $(dpkg-query -W -f='${Version}' util-linux 2>/dev/null || echo '?'), sudo: $(dpkg-query -W -f='${Version}' sudo 2>/dev/null || echo '?'), login: $(dpkg-query -W -f='${Version}' login 2>/dev/null || echo '?')"
}

# ---------------------------------------------------------------------------------------
# Inner run (inside the private mount namespace).
# ---------------------------------------------------------------------------------------
SUDO_CAN_ASK=0

setup_namespace() {
    enter_namespaces

    install -d -m 0755 "$T/etc" "$T/bin" "$T/cases" "$T/log" "$T/home"
    install -d -m 1777 "$T/io"

    # --- users: all with the same real password ---
    local hash u
    hash=$(hash_password "$PASSWORD")
    add_user "$CALLER" "$CALLER_UID" "$hash" "SecureRoom e2e (su caller)"
    add_user "$OFFER" "$OFFER_UID" "$hash" "SecureRoom e2e (offer)"
    add_user "$DECLINE" "$DECLINE_UID" "$hash" "SecureRoom e2e (decline)"
    add_user "$SUDOER" "$SUDOER_UID" "$hash" "SecureRoom e2e (sudo)"
    add_user "$LOGIN" "$LOGIN_UID" "$hash" "SecureRoom e2e (login)"
    add_user "$OWN" "$OWN_UID" "$hash" "SecureRoom e2e (secureroom enrol)"
    bind_users

    # --- the setuid helper and the only policy it reads ---
    helper_policy "$OWN_UID" "$OWN" "helper = $T/bin/secureroom-helper"

    # --- sudoers: original + the rule; last Defaults win, so append after @includedir ---
    cp -p /etc/sudoers "$T/etc/sudoers"
    # sudo 1.9.13 always authenticates with PAM_SILENT; later ones have "pam_silent".
    printf 'Defaults !pam_silent\n' > "$T/etc/sudoers.probe"
    if visudo -c -q -f "$T/etc/sudoers.probe" >/dev/null 2>&1; then SUDO_CAN_ASK=1; fi
    {
        echo ""
        echo "# --- added by Tests/e2e/enrol.sh (private mount namespace only) ---"
        echo "Defaults passwd_tries=1, timestamp_timeout=0, !lecture, !fqdn, !use_pty, !mail_badpass, !syslog, !insults"
        if [ "$SUDO_CAN_ASK" = 1 ]; then echo "Defaults !pam_silent"; fi
        echo "$SUDOER ALL=(ALL) ALL"
    } >> "$T/etc/sudoers"
    chown root:root "$T/etc/sudoers"; chmod 0440 "$T/etc/sudoers"
    visudo -c -q -f "$T/etc/sudoers" >/dev/null || die "generated sudoers does not parse"
    bind_over "$T/etc/sudoers" /etc/sudoers

    # --- /etc/pam.d: a copy; su, sudo, login rewritten; secureroom-enrol shipped ---
    cp -a /etc/pam.d "$T/pam.d"
    write_service su
    write_service sudo
    write_service login 'pam_motd\.so'
    install -m 0644 "$REPO/pam/secureroom-enrol" "$T/pam.d/secureroom-enrol"
    bind_over "$T/pam.d" /etc/pam.d
    grep -q "enrol=offer" /etc/pam.d/su || die "/etc/pam.d/su does not show the generated stack"

    # --- side-effect sinks: login records; sudo's timestamp dirs ---
    sink_login_records
    if [ -f /var/log/faillog ]; then
        cp -p /var/log/faillog "$T/log/faillog"; bind_over "$T/log/faillog" /var/log/faillog
    fi
    for u in /run/sudo /var/lib/sudo; do
        [ -d "$u" ] && mount -t tmpfs -o mode=0711 sr-enrol "$u"
    done

    # --- the state directory (no PIN for anyone yet) ---
    "$CLI" init --dir "$STATE" --config "$CLI_CONF" >/dev/null || die "secureroom init --dir $STATE failed"

    start_tmux
}

# write_service SERVICE [DROP_RE]: $T/pam.d/SERVICE from the original /etc/pam.d/SERVICE:
# the PIN line before `@include common-auth` and the enrolment offer after it; the
# only_expired account line after common-account, as the secureroom profile puts it.
# Lines matching DROP_RE are left out.
write_service() {
    local svc=$1 drop=${2:-}
    awk -v m="$MODULE" -v drop="$drop" -v svc="$svc" '
        BEGIN { print "# generated by Tests/e2e/enrol.sh from /etc/pam.d/" svc }
        drop != "" && $0 ~ drop { next }
        /^@include[ \t]+common-auth([ \t]|$)/ {
            print "auth [success=done default=ignore] " m " nodelay"; print
            print "auth optional " m " enrol=offer"; auth = 1; next }
        /^@include[ \t]+common-account([ \t]|$)/ {
            print; print "account [success=ok ignore=ignore default=die] " m " only_expired"; next }
        { print }
        END { if (!auth) exit 1 }' "/etc/pam.d/$svc" > "$T/pam.d/$svc" || die "/etc/pam.d/$svc has no '@include common-auth'"
}

# ---- tmux driving (the rest is in lib.sh) ----------------------------------------------
PASSWORD_RE='[Pp]assword( for [^:]*)?:'
PIN_RE='^PIN:'
OFFER_RE='Create a 4-digit PIN for this computer\? \[y/N\]'
NEW_PIN_RE='New PIN:'
RETYPE_RE='Retype new PIN:'
CLI_RETYPE_RE='Retype PIN:'

# occurrences RE: how often RE matches in the pane (several per line counted apart).
occurrences() { capture "$PANE" | grep -oE -- "$1" | wc -l; }

# converse NAME UID CMD [RE TEXT]...: CMD (bash) as UID in a new tmux window; each RE in
# turn is waited for (its next occurrence: a prompt asked again counts anew) and answered
# with TEXT. Stops early if CMD exits or a prompt does not come. Sets PANE, ANSWERED (how
# many were answered), RC (exit code; "timeout"; "stuck" when a prompt did not come).
converse() {
    local name=$1 uid=$2 cmd=$3 re text i n
    shift 3
    local -A seen=()
    open_window "$name" "$uid" "$cmd"
    ANSWERED=0 RC=timeout
    while [ $# -ge 2 ]; do
        re=$1 text=$2; shift 2
        n=${seen[$re]:-0}
        for (( i = 0; i < TIMEOUT * 10; i++ )); do
            [ "$(occurrences "$re")" -gt "$n" ] && break
            pane_has "$PANE" "$RC_RE" && break
            sleep 0.1
        done
        [ "$(occurrences "$re")" -gt "$n" ] || break
        seen[$re]=$((n + 1))
        type_line "$PANE" "$text"
        ANSWERED=$((ANSWERED + 1))
    done
    if [ $# -ge 2 ] && ! pane_has "$PANE" "$RC_RE"; then RC=stuck; return 0; fi
    if wait_for "$PANE" "$RC_RE"; then read_rc; fi
}

check_diagnostics() {
    echo "#   rc=$RC answered=$ANSWERED out=$(head -c 80 "$OUT" 2>/dev/null || true)"
    echo "#   status: $(status_json "$WHO")"
    echo "#   --- pane ---"
    capture "$PANE" | sed -e '/^$/d' -e 's/^/#   | /'
}

# Predicates used with check (more in lib.sh).
answered()     { [ "$ANSWERED" = "$1" ]; }
enrolled()     { status_json "${1:-$WHO}" | grep -qE '"enrolled"[[:space:]]*:[[:space:]]*true'; }
not_enrolled() { status_json "${1:-$WHO}" | grep -qE '"enrolled"[[:space:]]*:[[:space:]]*false'; }
must_change_set()  { status_json "${1:-$WHO}" | grep -qE '"must_change"[[:space:]]*:[[:space:]]*"'; }
must_change_null() { status_json "${1:-$WHO}" | grep -qE '"must_change"[[:space:]]*:[[:space:]]*null'; }
no_failures()  { [ "$(failures_of "$WHO")" = 0 ]; }
occurs()       { [ "$(occurrences "$1")" = "$2" ]; }

# su_cmd TARGET: the command su runs for the caller; writes the target's name to $OUT.
su_cmd() { echo "su $1 -c 'id -un > $OUT'"; }

inner_main() {
    setup_namespace

    # --- 1. su: password, offer accepted, a weak PIN refused, a good one stored ----------
    WHO=$OFFER OUT=$T/io/1.out
    converse 1 "$CALLER_UID" "$(su_cmd "$OFFER")" \
        "$PASSWORD_RE" "$PASSWORD" "$OFFER_RE" y \
        "$NEW_PIN_RE" "$WEAK_PIN" "$NEW_PIN_RE" "$PIN" "$RETYPE_RE" "$PIN"
    check "su $OFFER (no PIN): right password, then 'Create a 4-digit PIN for this computer? [y/N]' asked" \
        all "shows '$PASSWORD_RE'" "shows '$OFFER_RE'"
    check "su offer: after 'y', New PIN $WEAK_PIN refused ('PIN rejected: ...'), asked again" \
        all "shows 'PIN rejected: '" "occurs '$NEW_PIN_RE' 2"
    check "su offer: good PIN typed twice (not echoed) -> 'PIN created. Next time you can log in with it.'" \
        all 'answered 5' "shows 'PIN created\\. Next time you can log in with it\\.'" "not_shows '$PIN'" "not_shows '$WEAK_PIN'"
    check "su offer: su exits 0, the command runs as $OFFER" all 'rc_is 0' "out_is $OFFER"
    check "su offer: secureroom status --json shows $OFFER enrolled" enrolled
    done_pane

    OUT=$T/io/1b.out
    converse 1b "$CALLER_UID" "$(su_cmd "$OFFER")" "$PIN_RE" "$PIN"
    check "next su $OFFER: PIN: prompt takes the new PIN, no password asked, no offer, exit 0" \
        all 'answered 1' 'rc_is 0' "out_is $OFFER" "not_shows '$PASSWORD_RE'" "not_shows '$OFFER_RE'"
    done_pane

    # --- 3. wrong password: never reaches the offer ---------------------------------------
    WHO=$DECLINE OUT=$T/io/3.out
    converse 3 "$CALLER_UID" "$(su_cmd "$DECLINE")" "$PASSWORD_RE" "$WRONG_PASSWORD"
    check "su $DECLINE, wrong password: refused, command not run" all 'answered 1' rc_failed out_empty
    check "su wrong password: no offer shown, no New PIN asked, nothing enrolled" \
        all "not_shows '$OFFER_RE'" "not_shows '$NEW_PIN_RE'" not_enrolled
    done_pane

    # --- 2. declining: told, remembered (enrol_snooze) ------------------------------------
    OUT=$T/io/2.out
    converse 2 "$CALLER_UID" "$(su_cmd "$DECLINE")" "$PASSWORD_RE" "$PASSWORD" "$OFFER_RE" n
    check "su $DECLINE: offer declined ('n') -> \"No PIN created. You can create one later with 'secureroom enrol'.\", no New PIN asked" \
        all 'answered 2' "shows \"No PIN created\\. You can create one later with 'secureroom enrol'\\.\"" "not_shows '$NEW_PIN_RE'"
    check "su after declining: exit 0 as $DECLINE, still no PIN" all 'rc_is 0' "out_is $DECLINE" not_enrolled
    done_pane
    OUT=$T/io/2b.out
    converse 2b "$CALLER_UID" "$(su_cmd "$DECLINE")" "$PASSWORD_RE" "$PASSWORD"
    check "next su $DECLINE (within enrol_snooze): password only, not asked again, exit 0, still no PIN" \
        all 'answered 1' 'rc_is 0' "out_is $DECLINE" "not_shows '$OFFER_RE'" not_enrolled
    done_pane

    # --- 4. sudo ---------------------------------------------------------------------------
    WHO=$SUDOER OUT=$T/io/4.out
    if [ "$SUDO_CAN_ASK" = 1 ]; then
        converse 4 "$SUDOER_UID" "sudo -k; sudo id -u > $OUT" \
            "$PASSWORD_RE" "$PASSWORD" "$OFFER_RE" y "$NEW_PIN_RE" "$PIN2" "$RETYPE_RE" "$PIN2"
        check "sudo (Defaults !pam_silent): password, offer accepted, PIN typed twice -> 'PIN created.'" \
            all 'answered 4' "shows 'PIN created\\.'" "not_shows '$PIN2'"
        check "sudo offer: id -u prints 0 (exit 0), $SUDOER enrolled" all 'rc_is 0' 'out_is 0' enrolled
    else
        converse 4 "$SUDOER_UID" "sudo -k; sudo id -u > $OUT" "$PASSWORD_RE" "$PASSWORD"
        check "sudo (always PAM_SILENT in this version): right password -> id -u prints 0 (exit 0)" \
            all 'answered 1' 'rc_is 0' 'out_is 0'
        check "sudo: the module does not ask a silent conversation: no offer, nothing enrolled" \
            all "not_shows '$OFFER_RE'" "not_shows '$NEW_PIN_RE'" not_enrolled
    fi
    done_pane
    OUT=$T/io/4w.out
    converse 4w "$SUDOER_UID" "sudo -k; sudo id -u > $OUT" "$PASSWORD_RE" "$WRONG_PASSWORD"
    check "sudo, wrong password: refused, command not run, no offer" \
        all 'answered 1' rc_failed out_empty "not_shows '$OFFER_RE'"
    done_pane

    # --- 5. login (shadow's login, run by root on the pane's pty) ---------------------------
    WHO=$LOGIN OUT=$T/io/5.out
    converse 5 0 "login $LOGIN" \
        "$PASSWORD_RE" "$PASSWORD" "$OFFER_RE" y "$NEW_PIN_RE" "$PIN3" "$RETYPE_RE" "$PIN3" \
        "$LOGIN@[^ ]*[\$] ?\$" "id -un > $OUT; exit"
    check "login $LOGIN: password, then the offer; 'y' and a PIN typed twice -> 'PIN created.'" \
        all "shows 'PIN created\\. Next time you can log in with it\\.'" "not_shows '$PIN3'"
    check "login: the user's shell starts (runs as $LOGIN), login exits 0" all 'answered 5' 'rc_is 0' "out_is $LOGIN"
    check "login: secureroom status --json shows $LOGIN enrolled" enrolled
    done_pane

    # --- 6. an expired PIN is changed at the next su ---------------------------------------
    WHO=$OFFER OUT=$T/io/6.out
    printf '%s\n' "$PIN2" | "$CLI" set "$OFFER" --stdin --expire --config "$CLI_CONF" > "$T/log/set.out" 2>&1 \
        || echo "# note: secureroom set $OFFER --stdin --expire failed: $(cat "$T/log/set.out")"
    check "secureroom set $OFFER --stdin --expire: status must_change is set" must_change_set
    converse 6 "$CALLER_UID" "$(su_cmd "$OFFER")" \
        "$PIN_RE" "$PIN2" "$NEW_PIN_RE" "$PIN3" "$RETYPE_RE" "$PIN3"
    check "su with the expired PIN: 'Your PIN has expired and must be changed now.', then New PIN/Retype new PIN" \
        all 'answered 3' "shows 'Your PIN has expired and must be changed now\\.'"
    check "su expired PIN: the old PIN and the password are not asked again, nothing echoed" \
        all "occurs '$PIN_RE' 1" "not_shows '$PASSWORD_RE'" "not_shows '$PIN2|$PIN3'"
    check "su expired PIN: su exits 0 as $OFFER; status must_change null" \
        all 'rc_is 0' "out_is $OFFER" must_change_null
    done_pane
    OUT=$T/io/6b.out
    converse 6b "$CALLER_UID" "$(su_cmd "$OFFER")" "$PIN_RE" "$PIN3"
    check "next su $OFFER: the new PIN works (exit 0), no expiry message, no password" \
        all 'answered 1' 'rc_is 0' "out_is $OFFER" "not_shows 'expired'" "not_shows '$PASSWORD_RE'"
    done_pane

    # --- 7. secureroom enrol, through the setuid helper ------------------------------------
    WHO=$OWN OUT=$T/io/7.out
    converse 7 "$OWN_UID" "'$CLI' enrol" "$PASSWORD_RE" "$WRONG_PASSWORD"
    check "secureroom enrol as $OWN, wrong password: exit 1, 'password not accepted (...); nothing was changed'" \
        all 'answered 1' 'rc_is 1' "shows 'secureroom: password not accepted \\(.*\\); nothing was changed'"
    check "secureroom enrol, wrong password: no New PIN asked, nothing enrolled, SecureRoom's failures 0" \
        all "not_shows '$NEW_PIN_RE'" not_enrolled no_failures
    done_pane
    converse 7b "$OWN_UID" "'$CLI' enrol" \
        "$PASSWORD_RE" "$PASSWORD" "$NEW_PIN_RE" "$PIN" "$CLI_RETYPE_RE" "$PIN"
    check "secureroom enrol as $OWN, right password, PIN twice: 'PIN created for $OWN.', exit 0, PIN not echoed" \
        all 'answered 3' 'rc_is 0' "shows 'PIN created for $OWN\\. Next time you can log in with it\\.'" "not_shows '$PIN'"
    check "secureroom enrol: status --json shows $OWN enrolled" enrolled
    done_pane
    converse 7c "$OWN_UID" "'$CLI' enrol"
    check "secureroom enrol again (has a PIN): refused ('you already have a PIN') before any password, exit not 0" \
        all rc_failed "shows 'refused.*you already have a PIN'" "not_shows '$PASSWORD_RE'"
    done_pane

    local reply helper_rc=0
    reply=$(setpriv --reuid="$OWN_UID" --regid="$OWN_UID" --init-groups --reset-env \
        /bin/sh -c "printf '%s\n' '$PASSWORD' | '$T/bin/secureroom-helper' enrol '$OFFER'" 2>/dev/null) || helper_rc=$?
    local desc="secureroom-helper enrol $OFFER run by $OWN (stdin a pipe): refused, exit 5, reply 'refused ... your own ...'"
    tally "$desc" "$desc" all "[ '$helper_rc' = 5 ]" "printf '%s\n' \"\$reply\" | grep -q '^refused .*your own'" \
        || echo "#   exit $helper_rc, reply: $reply"
    WHO=$OFFER OUT=$T/io/7d.out
    converse 7d "$CALLER_UID" "$(su_cmd "$OFFER")" "$PIN_RE" "$PIN3"
    check "after the refused helper call, $OFFER's PIN is unchanged (su with it exits 0)" all 'answered 1' 'rc_is 0' "out_is $OFFER"
    done_pane

    # --- 8. secureroom enrol --replace (a forgotten PIN), through the setuid helper --------
    WHO=$OWN
    converse 8 "$OWN_UID" "'$CLI' enrol --replace" "$PASSWORD_RE" "$WRONG_PASSWORD"
    check "secureroom enrol --replace as $OWN, wrong password: exit 1, 'password not accepted', no New PIN asked" \
        all 'answered 1' 'rc_is 1' "shows 'password not accepted'" "not_shows '$NEW_PIN_RE'" "not_shows 'PIN replaced'"
    done_pane
    OUT=$T/io/8a.out
    converse 8a "$CALLER_UID" "$(su_cmd "$OWN")" "$PIN_RE" "$PIN"
    check "after the refused --replace, $OWN's current PIN still works (su exits 0, no password asked)" \
        all 'answered 1' 'rc_is 0' "out_is $OWN" "not_shows '$PASSWORD_RE'"
    done_pane
    converse 8b "$OWN_UID" "'$CLI' enrol --replace" \
        "$PASSWORD_RE" "$PASSWORD" "$NEW_PIN_RE" "$PIN4" "$CLI_RETYPE_RE" "$PIN4"
    check "secureroom enrol --replace as $OWN, right password, new PIN twice: 'PIN replaced for $OWN.', exit 0, PIN not echoed" \
        all 'answered 3' 'rc_is 0' "shows '^PIN replaced for $OWN\\.'" "not_shows '$PIN4'" enrolled
    done_pane
    OUT=$T/io/8c.out
    converse 8c "$CALLER_UID" "$(su_cmd "$OWN")" "$PIN_RE" "$PIN4"
    check "after --replace, su $OWN with the NEW PIN exits 0, no password asked" \
        all 'answered 1' 'rc_is 0' "out_is $OWN" "not_shows '$PASSWORD_RE'"
    done_pane
    OUT=$T/io/8d.out
    converse 8d "$CALLER_UID" "$(su_cmd "$OWN")" "$PIN_RE" "$PIN" "$PASSWORD_RE" "$WRONG_PASSWORD"
    check "after --replace, su $OWN with the OLD PIN fails (falls through to the password, refused, command not run)" \
        all 'answered 2' rc_failed out_empty
    done_pane

    COMPLETE=1
}

e2e_main
