#!/usr/bin/env bash
# Tests/reliability/timing.sh [--long] — no user enumeration by timing: a wrong PIN for an
# enrolled user, an unknown user and a user without a PIN take the same time.
#
# The module runs with its default argon2 parameters and `nopin=fail` (with the default
# `nopin=ignore` a user without a PIN is skipped at once, by design, and no PIN is asked
# for). Each round times one PAM transaction (a secureroom-pam-driver process, wall time)
# of each case, in an order that rotates every round. Each time is divided by the mean of
# its round's three, and the medians of those relative times are compared: paired within
# a round, a slowdown of the whole machine for a while cancels out, and a difference
# between the cases does not. A wrong PIN is a new one each time (a repeated one is not
# checked again), and every 13 rounds the enrolled user gets a new PIN (which clears its
# count, and, bound, gives it a new counter in the chip, which `reset` does not set back)
# and the decoy slots are removed (deny = 100).
# Also counted: argon2 runs per attempt (an LD_PRELOAD shim), which must be 1 in each case.
#
# Two passes: the PIN not bound, then bound to a software TPM (swtpm, its dictionary-attack
# limit raised so the wrong PINs do not lock it), where the decoys of the names without a
# PIN do the chip work of a bound PIN's wrong guess (docs/FORMAT.md §2.1).
# Pass: in each, the slowest case's relative median is within 5% of the fastest's. A
# shared machine can be noisy, so a miss is measured once more, with six times the rounds
# (medians of 15 rounds on 2 busy cores move by up to 10%), and only a second miss fails;
# a miss prints its table, so a CI log shows which case was slow.
# Rounds: 15 (--long: 60).
# Writes $RELIABILITY_REPORT_DIR/timing.md; last line "timing: N checks, V violations".
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=timing
# shellcheck source=Tests/reliability/common.sh
source "$(dirname "$0")/common.sh" "$@"
ROUNDS=$([ "$LONG" -eq 1 ] && echo 60 || echo 15)
PIN=4739
# shellcheck disable=SC2034  # read by common.sh's configure
FAST_KDF=()   # the default argon2 parameters: the real cost is what is compared
COUNTER=$(argon2_counter)
CASES=(enrolled unknown nopin)
declare -A ACCOUNT=([enrolled]=daemon [unknown]=no-such-user [nopin]=nopin)
# The PAM code each case must return: with nopin=fail an unknown account answers exactly
# like a wrong PIN (PAM_AUTH_ERR), so nobody can tell from outside who has a PIN.
declare -A CODE=([enrolled]=7 [unknown]=7 [nopin]=7)
add_user nopin 4301

wrong=0
# one CASE: times one attempt (ms to $W/samples/CASE), its code to $W/codes/CASE.
one() {
  wrong=$(((wrong + 1) % 10000)); [ "$wrong" -ne "$PIN" ] || wrong=$((wrong + 1))
  local code=0 start=$EPOCHREALTIME before; before=$(argon2_runs)
  printf '%04d\n' "$wrong" | ARGON2_COUNTER_FILE=$W/argon2-count LD_PRELOAD=$COUNTER \
    "$BIN/secureroom-pam-driver" --confdir /etc/pam.d --service probe --user "${ACCOUNT[$1]}" auth >/dev/null 2>&1 || code=$?
  span "$start" "$EPOCHREALTIME" ms 1 >> "$W/samples/$1"
  echo "$code" >> "$W/codes/$1"
  echo $(($(argon2_runs) - before)) >> "$W/runs/$1"
}

# measure [ROUNDS]: that many rounds (default $ROUNDS); prints the ratio of the slowest
# case's relative median to the fastest's.
measure() {
  local rounds=${1:-$ROUNDS}
  rm -rf "$W/samples" "$W/codes" "$W/runs"; mkdir "$W/samples" "$W/codes" "$W/runs"
  local round i
  for c in "${CASES[@]}"; do one "$c" > /dev/null; done   # warm-up, not kept
  rm -f "$W"/samples/* "$W"/codes/* "$W"/runs/*
  for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < 3; i++)); do one "${CASES[$(((round + i) % 3))]}"; done
    if [ $((round % 13)) -eq 12 ]; then set_pin daemon "$PIN"; rm -f "$STATE"/users/.decoy-??; fi
  done
  relative
  local range; range=$(for c in "${CASES[@]}"; do cat "$W/relative/$c"; done | spread)
  ratio "${range#*–}" "${range%–*}" 4
}

# relative: for each case, $W/relative/CASE: the median over the rounds of its time divided
# by the mean of its round's times. Paired within a round, a slowdown of the whole machine
# for a while (another job, a neighbour on the host) cancels out; a difference between the
# cases does not, whichever order a round ran them in.
relative() {
  rm -rf "$W/relative"; mkdir "$W/relative"
  local i
  for i in "${!CASES[@]}"; do
    (cd "$W/samples" && paste "${CASES[@]}") \
      | awk -v k=$((i + 1)) '{ s = 0; for (j = 1; j <= NF; j++) s += $j; printf "%.5f\n", $k * NF / s }' \
      | median | xargs printf "%.4f\n" > "$W/relative/${CASES[$i]}"
  done
}

# table: the last measurement, one row per case.
table() {
  echo "| case | account | median ms | relative median | range ms | PAM code | argon2 runs per attempt |"
  echo "|---|---|---:|---:|---|---|---|"
  local c
  for c in "${CASES[@]}"; do
    echo "| $c | ${ACCOUNT[$c]} | $(median < "$W/samples/$c") | $(< "$W/relative/$c") | $(spread < "$W/samples/$c") | $(distinct "$W/codes/$c") | $(distinct "$W/runs/$c") |"
  done
}
# distinct FILE: its different lines, on one line.
distinct() { sort -u "$1" | tr '\n' ' ' | sed 's/ $//'; }

# pass TITLE CONFIG-LINE...: one comparison under that configuration, checked and reported.
pass() {
  local title=$1; shift
  configure "nopin = fail" "deny = 100" "schedule =" "$@"
  service probe "auth required MODULE"
  set_pin daemon "$PIN"
  local ratio rounds=$ROUNDS repeat=$((6 * ROUNDS))
  measure > "$W/ratio"; ratio=$(< "$W/ratio")
  if awk -v r="$ratio" 'BEGIN { exit !(r > 1.05) }'; then
    echo "timing: $title: ratio $ratio over 1.05 in $ROUNDS rounds:"
    table | sed 's/^/timing:   /'
    echo "timing: $title: measuring once more, $repeat rounds"
    measure "$repeat" > "$W/ratio"; ratio=$(< "$W/ratio"); rounds=$repeat
  fi
  check "awk -v r=$ratio 'BEGIN { exit !(r <= 1.05) }'" "$title: the slowest case's relative median is $ratio × the fastest's"
  [ "$rounds" -eq "$ROUNDS" ] || table | sed 's/^/timing:   /'
  emit "### $title"
  emit
  if [ "$rounds" -eq "$ROUNDS" ]; then emit "$rounds rounds."; else
    emit "$rounds rounds (the first measurement, $ROUNDS rounds, missed 5% and was repeated; these are the second's figures)."; fi
  emit
  emit "$(table)"
  local c runs codes
  for c in "${CASES[@]}"; do
    runs=$(distinct "$W/runs/$c") codes=$(distinct "$W/codes/$c")
    check "[ '$runs' = 1 ]" "$title: $c: argon2 runs per attempt: $runs"
    check "[ '$codes' = ${CODE[$c]} ]" "$title: $c: PAM codes $codes, expected only ${CODE[$c]}"
  done
  emit
  emit "Slowest relative median / fastest: **$ratio** (must be ≤ 1.05)."
  emit
}

emit "## Timing: no enumeration"
emit
emit "Mode: $([ "$LONG" -eq 1 ] && echo long || echo short) (\`Tests/reliability/timing.sh$([ "$LONG" -eq 1 ] && echo " --long")\`)."
emit "One PAM transaction per case per round through the real libpam, default argon2 parameters,"
emit "\`nopin=fail\`, rotating order; wall time of the whole process. Relative: each time"
emit "divided by the mean of its round's three."
emit
pass "PIN not bound"

start_swtpm
pass "PIN bound to a TPM (swtpm)" "tpm = required" "tpm_tcti = $TPM_TCTI"
finish "$checks" "$violations"
