#!/usr/bin/env bash
# Tests/reliability/stopped.sh [--long] — a check stopped mid-way (SIGSTOP after its attempt
# was counted, while argon2 would run: what a user can do to their own `su OTHER`) holds
# no lock: OTHER's next checks, another user's check, `secureroom status` and `reset` all
# finish at once; the stopped attempt stays counted while it is stopped; a reset is not
# undone when it resumes; killed instead, it stays counted (no free guess).
#
# Each attempt is one secureroom-pam-driver process through the real libpam. The stop is
# made exact by the argon2 shim (ARGON2_STOP: the process raises SIGSTOP on entering
# argon2id_ctx). Every step must finish within 2.5 s (a held lock would make it wait the
# 5 s lock patience). --long repeats the sequence 5 times.
# Writes $RELIABILITY_REPORT_DIR/stopped.md; last line "stopped: N checks, V violations".
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=stopped
# shellcheck source=Tests/reliability/common.sh
source "$(dirname "$0")/common.sh" "$@"
ROUNDS=$([ "$LONG" -eq 1 ] && echo 5 || echo 1)
PIN=4739 OTHER_PIN=5826 LIMIT_MS=2500
COUNTER=$(argon2_counter) || exit 2
service probe "auth required MODULE"
add_user victim 4301
add_user bystander 4302

# frozen PIN: starts a wrong-PIN check for victim that stops itself inside argon2; prints its pid.
frozen() {
  printf '%s\n' "$1" | ARGON2_STOP=1 LD_PRELOAD=$COUNTER \
    "$BIN/secureroom-pam-driver" --confdir /etc/pam.d --service probe --user victim auth >/dev/null 2>&1 &
  local pid=$! i
  for ((i = 0; i < 100; i++)); do
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = T ] && { echo "$pid"; return 0; }
    sleep 0.05
  done
  echo "$pid"; return 1
}
# timed NAME COMMAND...: runs COMMAND, records its milliseconds in $ms and its output in $got.
timed() {
  local name=$1 start; shift
  start=$EPOCHREALTIME
  got=$("$@" 2>&1) || true
  ms=$(span "$start" "$EPOCHREALTIME" ms 0)
  check "[ $ms -lt $LIMIT_MS ]" "$name took $ms ms (a lock held across the stopped check?)"
  rows+=("| $name | $ms | $got |")
}

emit "## Stopped check"
emit
emit "Mode: $MODE (\`Tests/reliability/stopped.sh$([ "$LONG" -eq 1 ] && echo " --long")\`). A check of \`victim\`"
emit "stops itself (SIGSTOP) after its attempt was counted, where argon2 would run; then, with it"
emit "stopped, each step below runs and must finish within $LIMIT_MS ms (the lock patience is 5 s)."
emit "Cheap argon2 (256 KiB, t=1). Durations of the last round:"
emit
for ((round = 1; round <= ROUNDS; round++)); do
  rows=()
  configure
  set_pin victim "$PIN"; set_pin bystander "$OTHER_PIN"
  pid=$(frozen 1111) || violation "the check did not stop inside argon2"
  check "[ \$(failures victim) -eq 1 ]" "the stopped attempt is not counted ($(failures victim))"
  timed "bystander: right PIN" authenticate probe bystander "$OTHER_PIN"
  check "[ '$got' = 0 ]" "bystander's right PIN gave PAM code $got"
  timed "victim: status" failures victim
  timed "victim: another wrong PIN" authenticate probe victim 2222
  check "[ '$got' = 7 ]" "victim's wrong PIN gave PAM code $got, expected 7 (PAM_AUTH_ERR)"
  check "[ \$(failures victim) -eq 2 ]" "failures $(failures victim) after the second attempt, expected 2"
  timed "admin: secureroom reset victim" "$BIN/secureroom" reset victim
  check "[ \$(failures victim) -eq 0 ]" "the reset left $(failures victim) failures"
  kill -CONT "$pid"; wait "$pid" 2>/dev/null || true
  check "[ \$(failures victim) -eq 0 ]" "the resumed check undid the reset ($(failures victim) failures)"
  pid=$(frozen 3333) || violation "the second check did not stop inside argon2"
  kill -KILL "$pid"; wait "$pid" 2>/dev/null || true
  check "[ \$(failures victim) -eq 1 ]" "a check killed mid-way is not counted ($(failures victim)): a free guess"
  timed "victim: right PIN" authenticate probe victim "$PIN"
  check "[ '$got' = 0 ]" "victim's right PIN gave PAM code $got after the kill"
  check "[ \$(failures victim) -eq 0 ]" "the right PIN left $(failures victim) failures"
done
emit "| step | ms | result |"
emit "|---|---:|---|"
for row in "${rows[@]}"; do emit "$row"; done
emit
emit "Checks: $checks, violations: $violations."
finish "$checks" "$violations"
