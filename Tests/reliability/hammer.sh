#!/usr/bin/env bash
# Tests/reliability/hammer.sh [--long] — concurrency hammer: many logins at once through the
# real libpam (one secureroom-pam-driver process each), then exact counts.
#
#   one user, default policy   1,000 wrong PINs at once: failures recorded = argon2 runs =
#                              the policy's allowance before its first delay (5)
#   one user, deny = 100       1,000 wrong PINs at once, no delays: exactly 100 counted and
#                              100 argon2 runs — a lost update would let more through
#   many users, mixed          users with only wrong PINs (each must end with exactly that
#                              many failures), only right PINs (all must succeed, 0
#                              failures) and both (all right ones succeed), launched in
#                              one shuffled burst
# Every attempt must end (no deadlock: 120 s at most) with success or a refusal, never an
# error; afterwards every user logs in with the right PIN (no stale lock) and no temporary
# file is left. argon2 runs are counted by an LD_PRELOAD shim around argon2id_ctx.
# --long runs each single-user storm 3 times and the mixed burst with 60 users.
# Writes $RELIABILITY_REPORT_DIR/hammer.md; last line "hammer: N checks, V violations".
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=hammer
# shellcheck source=Tests/reliability/common.sh
source "$(dirname "$0")/common.sh" "$@"
STORMS=$([ "$LONG" -eq 1 ] && echo 3 || echo 1)
MIXED_USERS=$([ "$LONG" -eq 1 ] && echo 60 || echo 24)
ATTEMPTS=1000
PIN=4739
COUNTER=$(argon2_counter) || exit 2
service probe "auth required MODULE"

# launch USER PIN TAG: one login in the background; its PAM code goes to $W/codes/TAG.
launch() {
  ( code=0
    printf '%s\n' "$2" | ARGON2_COUNTER_FILE=$W/argon2-count LD_PRELOAD=$COUNTER \
      timeout -k 5 120 "$BIN/secureroom-pam-driver" --confdir /etc/pam.d --service probe --user "$1" auth \
      >/dev/null 2>&1 || code=$?
    echo "$code" > "$W/codes/$3" ) &
}
# codes: the histogram of PAM codes of the last burst ("7×995 0×5" style).
histogram() { cat "$W"/codes/* | sort -n | uniq -c | awk '{ printf "%s%s×%s", (NR > 1 ? ", " : ""), $2, $1 }'; }
# wrong_pin N: the N-th PIN that is not $PIN.
wrong_pin() { local n=$1; [ "$n" -lt "$PIN" ] || n=$((n + 1)); printf '%04d' "$n"; }
no_temporaries() { ! find "$STATE" -name '.*.tmp' | grep -q .; }

emit "## Concurrency hammer"
emit
emit "Mode: $([ "$LONG" -eq 1 ] && echo long || echo short) (\`Tests/reliability/hammer.sh$([ "$LONG" -eq 1 ] && echo " --long")\`)."
emit "Each attempt is one process running one PAM transaction through the real libpam; a burst"
emit "starts them all at once in the background (2 cores). argon2 runs are counted by an"
emit "LD_PRELOAD shim. Cheap argon2 (256 KiB, t=1): the counts, not the cost, are under test."
emit
emit "| storm | attempts | finished | PAM codes | failures recorded | expected | argon2 runs | allowed | seconds |"
emit "|---|---:|---:|---|---:|---:|---:|---:|---:|"

# storm NAME ALLOWANCE CONFIG...: $ATTEMPTS distinct wrong PINs for one user at once.
storm() {
  local name=$1 allowance=$2 round
  shift 2
  for ((round = 1; round <= STORMS; round++)); do
    configure "$@"
    set_pin daemon "$PIN"
    rm -rf "$W/codes"; mkdir "$W/codes"; : > "$W/argon2-count"
    local start=$EPOCHREALTIME i
    for ((i = 0; i < ATTEMPTS; i++)); do launch daemon "$(wrong_pin "$i")" "$i"; done
    wait
    local seconds; seconds=$(span "$start" "$EPOCHREALTIME" s 1)
    local finished runs recorded
    finished=$(ls "$W/codes" | wc -l); runs=$(argon2_runs); recorded=$(failures daemon)
    check "[ $finished -eq $ATTEMPTS ]" "$name: only $finished of $ATTEMPTS attempts finished"
    check "! grep -qvxE '7|11' $W/codes/*" "$name: an attempt ended with neither PAM_AUTH_ERR nor PAM_MAXTRIES ($(histogram))"
    check "[ $recorded -eq $allowance ]" "$name: $recorded failures recorded, expected $allowance"
    check "[ $runs -le $allowance ] && [ $runs -eq $recorded ]" "$name: $runs argon2 runs for $recorded failures, allowed $allowance"
    check "[ \$(authenticate probe daemon $PIN) -ne 0 ]" "$name: the right PIN was accepted while locked"
    check no_temporaries "$name: a temporary file was left"
    # No stale lock: once an administrator resets the count, the right PIN goes through.
    "$BIN/secureroom" reset daemon >/dev/null
    check "[ \$(authenticate probe daemon $PIN) -eq 0 ]" "$name: the right PIN failed after a reset (stale lock?)"
    emit "| $name$([ "$STORMS" -gt 1 ] && echo " #$round") | $ATTEMPTS | $finished | $(histogram) | $recorded | $allowance | $runs | ≤ $allowance | $seconds |"
  done
}
allowance=$(configure && "$BIN/secureroom" policy show --json | sed -n 's/.*"schedule":\[{[^}]*"failures":\([0-9]*\).*/\1/p')
storm default "$allowance"
storm deny 100 "deny = 100" "schedule ="

# The mixed burst: a third of the users get only wrong PINs, a third only the right one,
# a third both; every attempt of every user in one shuffled burst.
configure "deny = 100" "schedule ="
WRONG_EACH=12 RIGHT_EACH=6
rm -rf "$W/codes"; mkdir "$W/codes"; : > "$W/argon2-count"
plan=$W/plan
: > "$plan"
for ((u = 0; u < MIXED_USERS; u++)); do
  user=hammer$u
  add_user "$user" $((5000 + u))
  set_pin "$user" "$PIN"
  kind=$((u % 3))   # 0 wrong only, 1 right only, 2 both
  if [ "$kind" -ne 1 ]; then for ((i = 0; i < WRONG_EACH; i++)); do echo "$user $(wrong_pin "$i") w"; done >> "$plan"; fi
  if [ "$kind" -ne 0 ]; then for ((i = 0; i < RIGHT_EACH; i++)); do echo "$user $PIN r"; done >> "$plan"; fi
done
total=$(wc -l < "$plan")
start=$EPOCHREALTIME
n=0
while read -r user pin kind; do
  launch "$user" "$pin" "$user.$kind.$n"; n=$((n + 1))
done < <(shuf "$plan")
wait
seconds=$(span "$start" "$EPOCHREALTIME" s 1)
finished=$(ls "$W/codes" | wc -l)
check "[ $finished -eq $total ]" "mixed: only $finished of $total attempts finished"
right_failed=$(cat "$W"/codes/*.r.* | grep -cvx 0 || true)
wrong_passed=$(cat "$W"/codes/*.w.* | grep -cvx 7 || true)
check "[ $right_failed -eq 0 ]" "mixed: $right_failed right PINs were refused"
check "[ $wrong_passed -eq 0 ]" "mixed: $wrong_passed wrong PINs did not end in PAM_AUTH_ERR"
exact=0 inexact=0 cleared=0
for ((u = 0; u < MIXED_USERS; u++)); do
  user=hammer$u kind=$((u % 3)) recorded=$(failures "hammer$u")
  case $kind in
    0) if [ "$recorded" -eq "$WRONG_EACH" ]; then exact=$((exact + 1)); else inexact=$((inexact + 1)); fi
       check "[ $recorded -eq $WRONG_EACH ]" "mixed: $user has $recorded failures, expected $WRONG_EACH" ;;
    1) check "[ $recorded -eq 0 ]" "mixed: $user (right PINs only) has $recorded failures" ;;
    2) check "[ $recorded -le $WRONG_EACH ]" "mixed: $user has $recorded failures, more than its $WRONG_EACH wrong PINs" ;;
  esac
  # No stale lock: a later login goes through and clears the count.
  if [ "$(authenticate probe "$user" "$PIN")" -eq 0 ] && [ "$(failures "$user")" -eq 0 ]; then cleared=$((cleared + 1)); fi
done
check "[ $cleared -eq $MIXED_USERS ]" "mixed: only $cleared of $MIXED_USERS users logged in afterwards"
check no_temporaries "mixed: a temporary file was left"
check "[ $(argon2_runs) -eq $total ]" "mixed: $(argon2_runs) argon2 runs for $total attempts (none may be refused here)"
emit "| mixed: $MIXED_USERS users | $total | $finished | $(histogram) | wrong-only users exact: $exact of $((exact + inexact)) | $WRONG_EACH each | $(argon2_runs) | $total | $seconds |"
emit
emit "Mixed burst: users hammer0… take $WRONG_EACH wrong PINs (a third), $RIGHT_EACH right ones (a third)"
emit "or both, in one shuffled burst; $right_failed right PINs were refused and $wrong_passed wrong"
emit "ones did not fail. Afterwards $cleared of $MIXED_USERS users logged in with the right PIN at once"
emit "(no stale lock); no temporary file was left. $checks checks, $violations violations."
finish "$checks" "$violations"
