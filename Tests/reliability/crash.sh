#!/usr/bin/env bash
# Tests/reliability/crash.sh [--long] — crash injection: SIGKILL the module during a login,
# the admin tool during `set` and `change`, and the vault during `add`, then check what a
# crash may leave behind.
#
# Five operations are killed:
#   auth-wrong   a login with a wrong PIN (a new one each time)      user daemon
#   auth-right   a login with the right PIN                          user daemon
#   set          `secureroom set` (an administrator's new PIN)       user bin
#   change       `secureroom change` of a PIN that holds a vault key user root
#   vault-add    `secureroom-vault add` of a new secret              root's vault
# at two kinds of point:
#   syscall      every one: an undisturbed run under strace lists, in order, its calls of
#                the state-changing syscalls (openat, write, pwrite64, fsync, fdatasync,
#                rename*, unlink*, ftruncate, flock, ...); then, for each entry (the n-th
#                call of syscall S), a run is killed on entry to exactly that call (strace
#                inject=S:signal=KILL:when=n; strace counts per syscall). So a kill lands
#                before, and after, each of them
#   random       SIGKILL after a random time within the operation's own duration
#                (short: 40 per operation; --long: 400)
# After every kill (an "after" check is a violation when it fails):
#   - every record parses: `secureroom status --json` for all users exits 0;
#   - the failure count never went down (only a success may clear it) and went up by at
#     most one; if argon2 ran (an LD_PRELOAD shim counts argon2id_ctx calls) the attempt
#     was counted before it: no free guess (a right-PIN login starts from a count of 1, so
#     "counted" and "not counted" differ);
#   - a run the kill did not reach must have succeeded as usual (exit status, the new PIN,
#     the added secret), and each sweep must have killed at least once;
#   - after a killed set or change, the old or the new PIN logs in (never neither);
#   - after a killed change, the working PIN still unlocks the vault;
#   - no secret is lost: every secret added before is listed with its value, and the
#     killed one is either absent or whole.
# With CRASH_TPM=1 (Tests/reliability/crash-tpm.sh) the PINs are bound to a software TPM
# (swtpm): the logins, set and change are killed as above, the TPM's commands among the
# calls (the TCTI writes them to its socket), and after each kill the TPM's transient
# objects and sessions are flushed as the kernel's resource manager flushes those of a
# process that died; the vault add does not use the TPM and is left out. One more
# operation is killed there:
#   auth-bind    a login with the right PIN of a PIN set while tpm=off, which binds it to
#                its own counter (a re-derivation)                  user sys
# and after every run, killed or not:
#   - every SecureRoom index on the chip (0x01A00000-0x01A0FFFF) is named by a credential,
#     the decoys' record or an entry of the chip's ledger (users/.tpm-HANDLE): none is
#     left that nothing accounts for;
#   - no user is charged more ledger entries than the per-user limit (8).
# Writes $RELIABILITY_REPORT_DIR/ITEM.md; the last line is "ITEM: N checks, V violations".
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=${ITEM:-crash}
CRASH_TPM=${CRASH_TPM:-0}
# shellcheck source=Tests/reliability/common.sh
source "$(dirname "$0")/common.sh" "$@"
need_packages strace
RANDOM_KILLS=$([ "$LONG" -eq 1 ] && echo 400 || echo 40)

SYSCALLS=openat,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,ftruncate,flock,mkdirat,fchmod,fchown,linkat
TPM_CONFIG=()
if [ "$CRASH_TPM" -eq 1 ]; then
  start_swtpm
  TPM_CONFIG=("tpm = required" "tpm_tcti = $TPM_TCTI")
fi
configure "deny = 100" "schedule =" "even_deny_root" "vault_timeout = 2h" "${TPM_CONFIG[@]}"
service probe "auth required MODULE"
service secureroom-vault "auth required MODULE" "account required pam_permit.so" \
  "session required pam_permit.so" "password required pam_deny.so"
COUNTER=$(argon2_counter) || exit 2
export ARGON2_COUNTER_FILE=$W/argon2-count
export HOME=/root
VAULT_FILE=$W/vault/vault.sqlite
install -d -m 0700 "$W/vault"

DAEMON_PIN=7391
set_pin daemon "$DAEMON_PIN"
SYS_PIN=5284
if [ "$CRASH_TPM" -eq 1 ]; then
  # The same configuration without the TPM, for setting sys's PIN unbound.
  sed 's/^tpm = required$/tpm = off/' /etc/security/secureroom.conf > "$W/tpm-off.conf"
  set_unbound_sys() { "$BIN/secureroom" set sys --stdin --allow-weak --config "$W/tpm-off.conf" <<<"$SYS_PIN" >/dev/null; }
  set_unbound_sys
fi
BIN_PINS=(3817 6402); bin_current=0
ROOT_PINS=(2846 5193); root_current=0
set_pin bin "${BIN_PINS[0]}"
set_pin root "${ROOT_PINS[0]}"
"$BIN/secureroom-vault" init --stdin --file "$VAULT_FILE" <<<"${ROOT_PINS[0]}" >/dev/null
"$BIN/secureroom-vault" unlock --stdin <<<"${ROOT_PINS[0]}" >/dev/null
declare -A SECRETS=()
added=0
value_for() { printf 'value %d: %s' "$1" "$(printf '%*s' $(($1 % 300 + 1)) '' | tr ' ' "$(($1 % 10))")"; }
for ((i = 1; i <= 5; i++)); do
  added=$i
  value_for "$i" | "$BIN/secureroom-vault" add "secret-$i" --file "$VAULT_FILE"
  SECRETS[secret-$i]=$(value_for "$i")
done

kills=0 completed=0 killed_after_argon2=0
declare -A KILLED=() FINISHED=() BAD=()
# prelude's check calls this: the tally per operation, and where the kill was.
violation() {
  violations=$((violations + 1)); BAD[$operation]=$((${BAD[$operation]:-0} + 1))
  echo "crash: VIOLATION ($operation, $how #$point): $*" >&2
}

# run_killed CMD...: runs the operation (its input on stdin), killed at this point:
# with how=syscall, `point` is "SYSCALL:N" (on entry to its N-th call); with how=trace,
# the run is not killed but lists its syscalls in $W/trace; with how=random, `point` is
# seconds. Sets `killed` (1 if SIGKILL ended it) and `run_status` (the exit status).
run_killed() {
  local status=0 t0=$EPOCHREALTIME
  if [ "$how" = syscall ]; then
    { (strace -qq -o /dev/null -e trace="$SYSCALLS" -e inject="${point%:*}:signal=KILL:when=${point#*:}" -- "$@") >/dev/null 2>&1; } 2>/dev/null || status=$?
  elif [ "$how" = trace ]; then
    (strace -qq -o "$W/trace" -e trace="$SYSCALLS" -- "$@") >/dev/null 2>&1 || status=$?
  else
    { (timeout --foreground --preserve-status -s KILL "$point" "$@") >/dev/null 2>&1; } 2>/dev/null || status=$?
  fi
  killed=$([ "$status" -eq 137 ] && echo 1 || echo 0)
  run_status=$status
  # What a resource manager does for a dead process (swtpm has none): flush what it left.
  if [ "$CRASH_TPM" -eq 1 ]; then tpm_tool tpm2_flushcontext -t >/dev/null 2>&1; tpm_tool tpm2_flushcontext -l >/dev/null 2>&1; fi
  run_ms=$(span "$t0" "$EPOCHREALTIME" ms 1)
}

# working PINS...: the first of the PINs that logs the user in (printed), or nothing.
working() {
  local user=$1 pin; shift
  for pin in "$@"; do
    if [ "$(authenticate probe "$user" "$pin")" -eq 0 ]; then echo "$pin"; return; fi
  done
}

records_parse() { "$BIN/secureroom" status --json >/dev/null 2>&1; }

# unaccounted: SecureRoom's indices on the chip (as 8 hex digits) that no credential, the
# decoys' record or a ledger entry names, one per line; nothing when all are accounted for.
unaccounted() {
  local users=$STATE/users chip named
  chip=$(tpm_tool tpm2_getcap handles-nv-index | grep -oE '0x[0-9a-fA-F]+' | while read -r h; do printf '%08x\n' "$((h))"; done | grep '^01a0' | sort -u || true)
  named=$( { cat "$users"/*.credential "$users"/.decoy.tpm 2>/dev/null | sed -n 's/^tpm-index: //p'
             find "$users" -maxdepth 1 -name '.tpm-????????' -printf '%f\n' | sed 's/^\.tpm-//'; } | tr 'A-F' 'a-f' | sort -u || true)
  comm -23 <(printf '%s\n' "$chip" | sed '/^$/d') <(printf '%s\n' "$named" | sed '/^$/d')
}
# most_charged: the largest number of ledger entries charged to one user (0 if none);
# an administrator's (charged: no) count against nobody.
most_charged() {
  local entry
  for entry in "$STATE"/users/.tpm-????????; do
    if [ -e "$entry" ] && grep -qx 'charged: yes' "$entry"; then sed -n 's/^user: //p' "$entry"; fi
  done | sort | uniq -c | sort -rn | awk 'NR == 1 { n = $1 } END { print n + 0 }'
}

# secrets_intact [ALL]: the vault lists exactly the secrets known to be added; with ALL,
# every value is read back and compared byte for byte.
secrets_intact() {
  local listed title
  listed=$(titles) || return 1
  [ "$(grep -c . <<<"$listed")" -eq "${#SECRETS[@]}" ] || return 1
  for title in "${!SECRETS[@]}"; do
    grep -qxF "$title" <<<"$listed" || return 1
    if [ "${1:-}" = ALL ]; then same_value "$title" || return 1; fi
  done
}
# titles: the vault's titles, one per line (`list` prints "CREATED  MODIFIED  TITLE").
titles() {
  local listing
  listing=$("$BIN/secureroom-vault" list --file "$VAULT_FILE" 2>/dev/null) || return 1
  sed -E 's/^[^ ]+  [^ ]+  //' <<<"$listing"
}
# same_value TITLE: `get` prints exactly the value that was added.
same_value() {
  "$BIN/secureroom-vault" get "$1" --file "$VAULT_FILE" > "$W/got" 2>/dev/null &&
    printf '%s' "${SECRETS[$1]}" | cmp -s - "$W/got"
}

# next_wrong_pin: sets WRONG_PIN to a wrong PIN not used before (a repeated guess would
# not be checked again). Not called in $(...): the counter must survive.
wrong_pin=0
next_wrong_pin() {
  wrong_pin=$(((wrong_pin + 1) % 10000))
  [ "$(printf '%04d' "$wrong_pin")" != "$DAEMON_PIN" ] || wrong_pin=$((wrong_pin + 1))
  printf -v WRONG_PIN '%04d' "$wrong_pin"
}

# One killed operation and its checks. Globals: operation, how, point.
attempt() {
  local before after runs_before ran
  case $operation in
    auth-wrong | auth-right)
      local pin=$DAEMON_PIN
      if [ "$operation" = auth-right ]; then
        # Start from a count of 1, so that a right PIN counted before argon2 (2) and one
        # not counted (1) differ.
        next_wrong_pin
        authenticate probe daemon "$WRONG_PIN" >/dev/null
      else
        next_wrong_pin
        pin=$WRONG_PIN
      fi
      before=$(failures daemon) || before=; runs_before=$(argon2_runs)
      run_killed env LD_PRELOAD="$COUNTER" "$BIN/secureroom-pam-driver" --confdir /etc/pam.d \
        --service probe --user daemon auth <<<"$pin"
      check records_parse "a record does not parse"
      after=$(failures daemon) || after=; ran=$(($(argon2_runs) > runs_before))
      if [ "$killed" -eq 1 ] && [ "$ran" -eq 1 ]; then killed_after_argon2=$((killed_after_argon2 + 1)); fi
      if [ "$killed" -eq 0 ]; then
        check "[ $run_status -eq $([ "$operation" = auth-right ] && echo 0 || echo 7) ]" "an undisturbed login ended with $run_status"
        check "[ $ran -eq 1 ]" "an undisturbed login ran no argon2 (is the counter working?)"
      fi
      if [ "$operation" = auth-wrong ]; then
        check "[ $after -eq $before ] || [ $after -eq $((before + 1)) ]" "failures $before -> $after"
        check "[ $ran -eq 0 ] || [ $after -eq $((before + 1)) ]" "argon2 ran but the guess was not counted ($before -> $after)"
      else
        check "[ $after -eq $before ] || [ $after -eq $((before + 1)) ] || [ $after -eq 0 ]" "failures $before -> $after"
        check "[ $ran -eq 0 ] || [ $after -eq $((before + 1)) ] || [ $after -eq 0 ]" "argon2 ran but the attempt was not counted ($before -> $after)"
      fi
      # Keep clear of deny: a success (not killed) clears the count.
      if [ "$after" -ge 50 ]; then
        check "[ $(authenticate probe daemon "$DAEMON_PIN") -eq 0 ] && [ $(failures daemon) -eq 0 ]" "the right PIN did not log in after the kills"
      fi
      ;;
    auth-bind)
      set_unbound_sys
      run_killed "$BIN/secureroom-pam-driver" --confdir /etc/pam.d --service probe --user sys auth <<<"$SYS_PIN"
      check records_parse "a record does not parse"
      [ "$killed" -eq 1 ] || check "[ $run_status -eq 0 ]" "an undisturbed login ended with $run_status"
      check "[ $(authenticate probe sys "$SYS_PIN") -eq 0 ]" "the right PIN no longer logs in after the kill"
      ;;
    set)
      local old=${BIN_PINS[$bin_current]} new=${BIN_PINS[$((1 - bin_current))]} now
      run_killed "$BIN/secureroom" set bin --stdin --allow-weak <<<"$new"
      check records_parse "a record does not parse"
      now=$(working bin "$new" "$old")
      check "[ -n '$now' ]" "neither the old nor the new PIN logs in"
      [ "$killed" -eq 1 ] || check "[ $run_status -eq 0 ] && [ '$now' = '$new' ]" "an undisturbed set ended with $run_status, PIN '$now'"
      [ "$now" != "$new" ] || bin_current=$((1 - bin_current))
      ;;
    change)
      local old=${ROOT_PINS[$root_current]} new=${ROOT_PINS[$((1 - root_current))]} now
      run_killed "$BIN/secureroom" change root --stdin --allow-weak <<<"$old"$'\n'"$new"
      check records_parse "a record does not parse"
      now=$(working root "$new" "$old")
      check "[ -n '$now' ]" "neither the old nor the new PIN logs in"
      [ "$killed" -eq 1 ] || check "[ $run_status -eq 0 ] && [ '$now' = '$new' ]" "an undisturbed change ended with $run_status, PIN '$now'"
      [ "$now" != "$new" ] || root_current=$((1 - root_current))
      "$BIN/secureroom-vault" lock >/dev/null 2>&1 || true
      check "'$BIN/secureroom-vault' unlock --stdin <<<'${ROOT_PINS[$root_current]}' >/dev/null 2>&1" "the working PIN no longer unlocks the vault"
      check "secrets_intact" "a secret was lost"
      ;;
    vault-add)
      added=$((added + 1))
      local title=secret-$added
      value_for "$added" > "$W/value"
      run_killed "$BIN/secureroom-vault" add "$title" --file "$VAULT_FILE" < "$W/value"
      check records_parse "a record does not parse"
      local listed
      if ! listed=$(titles); then
        check false "the vault does not open"
        listed=
      fi
      if grep -qxF "$title" <<<"$listed"; then
        SECRETS[$title]=$(cat "$W/value")
        check "same_value $title" "a killed add left a torn secret"
      elif [ "$killed" -eq 0 ]; then
        check false "an undisturbed add (status $run_status) did not store $title"
      fi
      check "[ $(grep -c . <<<"$listed") -eq ${#SECRETS[@]} ]" "the vault lists $(grep -c . <<<"$listed") secrets, ${#SECRETS[@]} known"
      local known; for known in "${!SECRETS[@]}"; do
        check "grep -qxF $known <<<\"\$listed\"" "secret $known was lost"
      done
      if [ $((added % 25)) -eq 0 ]; then check "secrets_intact ALL" "a secret's value changed"; fi
      ;;
  esac
  if [ "$CRASH_TPM" -eq 1 ]; then
    local left
    left=$(unaccounted | tr '\n' ' ')
    check "[ -z '$left' ]" "indices on the chip that nothing names: $left"
    check "[ $(most_charged) -le 8 ]" "a user is charged $(most_charged) ledger entries (limit 8)"
  fi
  if [ "$killed" -eq 1 ]; then
    kills=$((kills + 1)); KILLED[$operation:$how]=$((${KILLED[$operation:$how]:-0} + 1))
  else
    completed=$((completed + 1)); FINISHED[$operation:$how]=$((${FINISHED[$operation:$how]:-0} + 1))
  fi
}

# The random window of an operation: the median wall time of 5 undisturbed runs of it.
declare -A WINDOW=() SWEPT=()
OPERATIONS=(auth-wrong auth-right set change vault-add)
[ "$CRASH_TPM" -eq 0 ] || OPERATIONS=(auth-wrong auth-right auth-bind set change)
start=$EPOCHREALTIME
for operation in "${OPERATIONS[@]}"; do
  # The kill points: every listed syscall of an undisturbed run, as SYSCALL:N.
  how=trace point=0; attempt
  mapfile -t points < <(grep -oE '^[a-z0-9_]+\(' "$W/trace" | tr -d '(' | awk '{ print $1 ":" ++n[$1] }')
  how=syscall
  for point in "${points[@]}"; do attempt; done
  SWEPT[$operation]=${#points[@]}
  check "[ ${KILLED[$operation:syscall]:-0} -gt 0 ]" "the syscall sweep killed nothing"
  echo "crash: $operation: ${#points[@]} syscall points, ${KILLED[$operation:syscall]:-0} runs killed there"
  samples=()
  how=random
  for ((i = 0; i < 5; i++)); do
    point=60; attempt; samples+=("$run_ms")
  done
  WINDOW[$operation]=$(printf '%s\n' "${samples[@]}" | median)
  for ((i = 0; i < RANDOM_KILLS; i++)); do
    point=$(awk -v w="${WINDOW[$operation]}" -v r="$RANDOM$RANDOM" 'BEGIN { srand(r); t = rand() * w / 1000; printf "%.4f", t < 0.001 ? 0.001 : t }')
    attempt
  done
  echo "crash: $operation: $RANDOM_KILLS random points within ${WINDOW[$operation]} ms"
done
operation=final how=end point=0
check "secrets_intact ALL" "a secret was lost or changed"
check "[ $killed_after_argon2 -gt 0 ]" "no login was killed after argon2 had started: the no-free-guess check was never exercised"
elapsed=$(span "$start" "$EPOCHREALTIME" s 0)

emit "## Crash injection$([ "$CRASH_TPM" -eq 1 ] && echo ", PINs bound to a TPM (swtpm)")"
emit
emit "Mode: $([ "$LONG" -eq 1 ] && echo long || echo short) (\`Tests/reliability/crash.sh$([ "$LONG" -eq 1 ] && echo " --long")\`), $elapsed s."
emit "Each operation was SIGKILLed on entry to each of its state-changing syscalls in turn (an"
emit "undisturbed run under strace lists them; then strace \`inject=SYSCALL:signal=KILL:when=N\`"
emit "kills on entry to exactly that call), and at $RANDOM_KILLS random times within its own undisturbed"
emit "duration. After every run: all records parse; the failure count never fell and, if argon2"
emit "ran, had already counted the attempt (right-PIN logins start from a count of 1); after set"
emit "and change the old or the new PIN logs in and still unlocks the vault; no secret is lost"
emit "and none is torn. A run the kill did not reach must have succeeded as usual (status, new"
emit "PIN, stored secret). (No operation here writes the recovery record, which \`status\` does"
emit "not read while the PIN holds the vault key.)"
emit
emit "| operation | syscall points | killed there | random kills | random window (ms) | runs completed | violations |"
emit "|---|---:|---:|---:|---:|---:|---:|"
for operation in "${OPERATIONS[@]}"; do
  emit "| $operation | ${SWEPT[$operation]} | ${KILLED[$operation:syscall]:-0} | ${KILLED[$operation:random]:-0} | ${WINDOW[$operation]} | $((${FINISHED[$operation:trace]:-0} + ${FINISHED[$operation:syscall]:-0} + ${FINISHED[$operation:random]:-0})) | ${BAD[$operation]:-0} |"
done
swept=0 syscall_kills=0 random_kills=0
for operation in "${OPERATIONS[@]}"; do
  swept=$((swept + SWEPT[$operation])); syscall_kills=$((syscall_kills + ${KILLED[$operation:syscall]:-0}))
  random_kills=$((random_kills + ${KILLED[$operation:random]:-0}))
done
emit "| **total: $kills kills** | $swept | $syscall_kills | $random_kills | | $completed | **$violations** |"
emit
emit "$checks checks. $killed_after_argon2 logins were killed after argon2 had started (each had already been counted)."
emit "$added secrets added to the vault over the run, ${#SECRETS[@]} of them present at the end (the rest were killed before their commit)."
finish "$checks" "$violations"
