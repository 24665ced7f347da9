#!/usr/bin/env bash
# Tests/reliability/memory.sh [--long] — reliability item `memory`: pam_secureroom.so in a
# long-lived PAM application (Tests/reliability/pam-host.c, many pam_start_confdir →
# pam_authenticate → pam_end transactions in one process, every third PIN wrong), measured:
#   1. memcheck: valgrind runs the host for N and 3N authentications; memory errors,
#      definitely/indirectly/possibly lost bytes (all must be 0, after
#      Tests/reliability/valgrind.supp), and heap in use at exit (must not depend on N);
#   2. heap growth: without valgrind, malloc's bytes in use (mallinfo2) after a warm-up,
#      half-way and at the end of many more authentications (must be equal);
#   3. PIN digits: after the last pam_end the host pauses and memscan.c searches every
#      readable+writable mapping of it for the PINs used (6-digit PINs: 0 hits required;
#      a planted canary must be found, or the scan itself is broken). A secondary run with
#      4-digit PINs requires 0 isolated hits (4 digits also occur by chance inside
#      longer numbers, which are reported but not counted);
#   4. PINs in freed blocks: freecheck.c (LD_PRELOAD) looks into every block as it is
#      freed; none may still hold a PIN. (free() itself overwrites the first 16 bytes of
#      a freed block, so part 3 alone cannot see a short unwiped copy.)
#
# Usage (as root, from the repository root, after scripts/setup and scripts/build):
#   Tests/reliability/memory.sh           short mode: N=200 under valgrind, 2,000 for growth
#   Tests/reliability/memory.sh --long    N=1,000 under valgrind, 20,000 for growth
# Writes "$RELIABILITY_REPORT_DIR/memory.md" (default .build/reliability). The last line
# of output is `memory: N checks, V violations`; exits 0 iff V = 0.
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=memory
# shellcheck source=Tests/reliability/prelude.sh
source "$(dirname "$0")/prelude.sh" "$@"
if [ "$LONG" -eq 1 ]; then
  vg_count=1000 growth_count=20000 growth_warmup=1000 scan_count=3000
else
  vg_count=200 growth_count=2000 growth_warmup=200 scan_count=300
fi
vg_count3=$((vg_count * 3))
need_packages valgrind libc6-dev binutils

need_artifacts pam_secureroom.so pam_secureroom_core.so secureroom
release=$REPO/.build/release


work=$(mktemp -d /tmp/secureroom-memory.XXXXXX)
chmod 700 "$work"
host_pid=
cleanup() {
  if [ -n "$host_pid" ] && kill -0 "$host_pid" 2>/dev/null; then kill "$host_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Private copies: the release artifacts may be rebuilt by someone else during the run.
# valgrind 3.19 cannot read the DWARF 5 the Swift toolchain emits (it gives up on the
# module), so memcheck loads a copy without debug sections: same code, same symbols.
cp "$release/pam_secureroom.so" "$release/secureroom" "$work/"
objcopy --strip-debug "$work/pam_secureroom.so" "$work/pam_secureroom.valgrind.so"
# The front loads its core from beside itself.
objcopy --strip-debug "$release/pam_secureroom_core.so" "$work/pam_secureroom_core.so"
# Linked like Debian's hardened PAM hosts (sudo, sshd, login: bind-now). With lazy binding
# the first call through each PLT slot saves the vector registers on the stack
# (_dl_runtime_resolve_xsavec), which can leave copies of whatever the host last moved
# through them: the host's own artefact, not the module's.
gcc -O2 -g -Wall -Wextra -Wl,-z,relro,-z,now -o "$work/pam-host" "$REPO/Tests/reliability/pam-host.c" -lpam
gcc -O2 -g -Wall -Wextra -o "$work/memscan" "$REPO/Tests/reliability/memscan.c"
gcc -O2 -g -Wall -Wextra -shared -fPIC -o "$work/freecheck.so" "$REPO/Tests/reliability/freecheck.c" -ldl

checks=0
violations=0
rows=()
details=()
# check NAME FIGURE LIMIT OK: counts one check; OK is 1 if it held.
check() {
  checks=$((checks + 1))
  local verdict=ok
  if [ "$4" != 1 ]; then violations=$((violations + 1)); verdict=VIOLATED; fi
  echo "memory: [$verdict] $1: $2 (limit: $3)"
  rows+=("| $1 | $2 | $3 | $verdict |")
}

# make_state NAME DIGITS RIGHT WRONG...: a state directory, config, PAM service and PIN
# file under $work/NAME. The PINs go to a 0600 file (printf is a builtin: not in argv).
make_state() {
  local name=$1 digits=$2 right=$3
  shift 3
  local dir=$work/$name
  mkdir -m 700 "$dir" "$dir/pam.d"
  printf 'argon2_memory = 256\nargon2_time = 1\nargon2_lanes = 1\nargon2_below_floor\nlocal_services = *\ndigits = %s\ndeny = 100\nschedule =\n' \
    "$digits" > "$dir/conf"
  chmod 600 "$dir/conf"
  "$work/secureroom" init --dir "$dir/state" --config "$dir/conf" >/dev/null
  printf '%s\n' "$right" | "$work/secureroom" set daemon --stdin --allow-weak --dir "$dir/state" --config "$dir/conf" >/dev/null
  (umask 077; printf '%s\n' "$right" "$@" > "$dir/pins")
  for module in pam_secureroom pam_secureroom.valgrind; do
    echo "auth required $work/$module.so dir=$dir/state conf=$dir/conf nodelay" > "$dir/pam.d/$module"
  done
}

# host_args NAME SERVICE COUNT: the host's command line for state NAME.
host_args() {
  echo "--confdir $work/$1/pam.d --service $2 --user daemon --pins $work/$1/pins --count $3"
}

# check_results LABEL FILE COUNT: the host's results line says every right PIN succeeded
# and every wrong one failed with PAM_AUTH_ERR.
check_results() {
  local line right wrong success auth_err unexpected
  line=$(grep '^results:' "$2" || true)
  right=$(sed -n 's/.*right=\([0-9]*\).*/\1/p' <<<"$line")
  wrong=$(sed -n 's/.*wrong=\([0-9]*\).*/\1/p' <<<"$line")
  success=$(sed -n 's/.*success=\([0-9]*\).*/\1/p' <<<"$line")
  auth_err=$(sed -n 's/.*auth_err=\([0-9]*\).*/\1/p' <<<"$line")
  unexpected=$(sed -n 's/.*unexpected=\([0-9]*\).*/\1/p' <<<"$line")
  local ok=0
  if [ -n "$line" ] && [ "$((right + wrong))" = "$3" ] && [ "$success" = "$right" ] &&
     [ "$auth_err" = "$wrong" ] && [ "$unexpected" = 0 ]; then ok=1; fi
  check "$1: PAM results" "${success:-?} PAM_SUCCESS / ${right:-?} right, ${auth_err:-?} PAM_AUTH_ERR / ${wrong:-?} wrong" \
    "all as expected" "$ok"
}

# valgrind_lost LOG KIND: bytes "definitely"/"indirectly"/"possibly" lost (0 if absent).
valgrind_lost() {
  local value
  value=$(sed -n "s/.*$2 lost: \([0-9,]*\) bytes.*/\1/p" "$1" | tr -d , | tail -1)
  echo "${value:-0}"
}

make_state six 6 739184 284615 506372 918240
# Four-digit PINs that are on no built-in list: the lists' text sits in the module's
# writable data, so a listed PIN would be found there (2 such hits, 7391 and 2846, once the
# built-in list grew to 2,756 PINs: the blocklist, not a leak).
make_state four 4 6193 4817 5063 9182
(umask 077; printf '555017\n' > "$work/canary6"; printf '6028\n' > "$work/canary4")

# 1. memcheck, N and 3N authentications.
valgrind_version=$(valgrind --version)
declare -A in_use
for count in "$vg_count" "$vg_count3"; do
  label="memcheck N=$count"
  echo "memory: $label: valgrind --tool=memcheck --leak-check=full, $count authentications"
  log=$work/valgrind-$count.log
  started=$SECONDS
  status=0
  # shellcheck disable=SC2046
  valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
    --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --track-origins=yes --num-callers=40 -s --suppressions="$REPO/Tests/reliability/valgrind.supp" \
    --log-file="$log" "$work/pam-host" $(host_args six pam_secureroom.valgrind "$count") \
    > "$work/host-vg-$count.out" 2> "$work/host-vg-$count.err" || status=$?
  elapsed=$((SECONDS - started))
  echo "memory: $label: exit $status after ${elapsed}s"
  check_results "$label" "$work/host-vg-$count.out" "$count"
  errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$log" | tr -d , | tail -1)
  suppressed=$(sed -n 's/.*ERROR SUMMARY: .*(suppressed: \([0-9,]*\) from.*/\1/p' "$log" | tr -d , | tail -1)
  used=$(sed -n 's/^--[0-9]*-- used_suppression: *\([0-9]*\) \(.*\) [^ ]*valgrind.supp:[0-9]*.*/\2 ×\1/p' "$log" | paste -sd ';' - | sed 's/;/; /g')
  check "$label: memcheck errors (incl. leaks)" "${errors:-?} (suppressed: ${suppressed:-?}${used:+: $used}; ${elapsed} s)" "0" \
    "$([ "${errors:-x}" = 0 ] && echo 1 || echo 0)"
  for kind in definitely indirectly possibly; do
    bytes=$(valgrind_lost "$log" "$kind")
    check "$label: $kind lost" "$bytes bytes" "0" "$([ "$bytes" = 0 ] && echo 1 || echo 0)"
  done
  in_use[$count]=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 bytes in \2 blocks/p' "$log" | tail -1)
  if [ "$errors" != 0 ] 2>/dev/null || [ "$status" = 99 ]; then
    details+=("memcheck N=$count report (excerpt):" '```' "$(grep -v '^==[0-9]*== *$' "$log" | head -80)" '```')
  fi
done
check "memcheck: heap in use at exit, N=$vg_count vs 3N=$vg_count3" \
  "${in_use[$vg_count]:-?} vs ${in_use[$vg_count3]:-?}" "equal (nothing kept per transaction)" \
  "$([ -n "${in_use[$vg_count]:-}" ] && [ "${in_use[$vg_count]}" = "${in_use[$vg_count3]:-}" ] && echo 1 || echo 0)"

# 2. Heap growth without valgrind. glibc's tcache keeps up to 7 freed chunks per size
# class that mallinfo2 still counts as in use, which makes uordblks wander by about 2 KB;
# with the tcache off (GLIBC_TUNABLES) the figure is exact and must not move at all.
echo "memory: growth: $growth_count authentications, heap after $growth_warmup, half-way and at the end"
out=$work/host-growth.out
# shellcheck disable=SC2046
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 "$work/pam-host" $(host_args six pam_secureroom "$growth_count") \
  --warmup "$growth_warmup" > "$out" 2> "$work/host-growth.err" || true
check_results "growth" "$out" "$growth_count"
warm=$(sed -n 's/^heap warmup: //p' "$out")
middle=$(sed -n 's/^heap middle: //p' "$out")
end=$(sed -n 's/^heap end: //p' "$out")
check "growth: malloc in use (uordblks, mmapped) after $growth_warmup / half-way / $growth_count" \
  "${warm:-?} / ${middle:-?} / ${end:-?} bytes" "equal" \
  "$([ -n "$warm" ] && [ "$warm" = "$middle" ] && [ "$warm" = "$end" ] && echo 1 || echo 0)"

# 3. PIN digits in the paused host's memory.
# scan NAME DIGITS: runs the host on state NAME to its pause, scans it for the PINs and for
# the canary, ends it. Sets scan_out and canary_out (memscan outputs).
scan() {
  local name=$1 digits=$2 fifo=$work/$1.fifo
  mkfifo "$fifo"
  # shellcheck disable=SC2046
  "$work/pam-host" $(host_args "$name" pam_secureroom "$scan_count") --pause --canary "$work/canary$digits" \
    < "$fifo" > "$work/host-$name.out" 2> "$work/host-$name.err" &
  host_pid=$!
  exec 3> "$fifo"
  local waited=0
  while ! grep -q '^ready$' "$work/host-$name.out" 2>/dev/null; do
    if ! kill -0 "$host_pid" 2>/dev/null || [ "$waited" -ge 600 ]; then break; fi
    sleep 0.2
    waited=$((waited + 1))
  done
  scan_out=$work/scan-$name.txt
  canary_out=$work/canary-$name.txt
  if grep -q '^ready$' "$work/host-$name.out"; then
    "$work/memscan" --pins "$work/$name/pins" "$host_pid" > "$scan_out" || true
    "$work/memscan" --pins "$work/canary$digits" "$host_pid" > "$canary_out" || true
  else
    echo "hits: ? isolated: ?" > "$scan_out"
    echo "hits: 0 isolated: 0" > "$canary_out"
  fi
  exec 3>&-
  wait "$host_pid" || true
  host_pid=
}

# scan_item NAME DIGITS CANARY_LABEL: scans the host run on state NAME, checks its PAM
# results and the canary (the scanner's positive control), and keeps any hits for the
# report; sets hits, isolated and scan_out for the item's own check.
scan_item() {
  local label="scan $2-digit"
  scan "$1" "$2"
  check_results "$label" "$work/host-$1.out" "$scan_count"
  hits=$(sed -n 's/^hits: \([0-9?]*\) .*/\1/p' "$scan_out")
  isolated=$(sed -n 's/^hits: .* isolated: \([0-9?]*\)/\1/p' "$scan_out")
  local canary_hits
  canary_hits=$(sed -n 's/^hits: \([0-9]*\) .*/\1/p' "$canary_out")
  check "$label: $3" "${canary_hits:-0} hits" ">= 1" "$([ "${canary_hits:-0}" -ge 1 ] && echo 1 || echo 0)"
  if grep -q '^hit:' "$scan_out"; then
    details+=("$2-digit scan hits (PIN bytes shown as #):" '```' "$(grep '^hit:' "$scan_out" | head -40)" '```')
  fi
}

echo "memory: scan: $scan_count authentications with 6-digit PINs, then memscan of the paused host"
scan_item six 6 "planted canary found (scanner works)"
scanned=$(sed -n 's/^scanned: //p' "$scan_out")
chance=$(sed -n 's/^expected-chance: \([^ ]*\) .*/\1/p' "$scan_out")
windows=$(sed -n 's/^digit-windows: \([0-9]*\).*/\1/p' "$scan_out")
check "scan 6-digit: PIN occurrences in rw memory (4 PINs)" \
  "$hits hits; $scanned; $windows 6-digit windows, expected chance hits $chance" "0" \
  "$([ "$hits" = 0 ] && echo 1 || echo 0)"

echo "memory: scan: $scan_count authentications with 4-digit PINs (secondary), then memscan"
scan_item four 4 "planted canary found"
chances=$(sed -n 's/^expected-chance: //p' "$scan_out")
inside="?"
[ "$hits" = "?" ] || inside=$((hits - isolated))
check "scan 4-digit: isolated PIN occurrences (4 PINs)" \
  "$isolated isolated, $inside inside longer digit runs; expected chance (any, isolated) $chances" "0 isolated" \
  "$([ "$isolated" = 0 ] && echo 1 || echo 0)"

# 4. Blocks freed while still holding a PIN.
echo "memory: freecheck: $scan_count authentications with every freed block inspected"
# shellcheck disable=SC2046
LD_PRELOAD=$work/freecheck.so FREECHECK_PINS=$work/six/pins FREECHECK_REPORT=$work/freecheck.txt \
  "$work/pam-host" $(host_args six pam_secureroom "$scan_count") > "$work/host-freecheck.out" 2> "$work/host-freecheck.err" || true
check_results "freecheck" "$work/host-freecheck.out" "$scan_count"
freed=$(sed -n 's/^freed-blocks: //p' "$work/freecheck.txt" 2>/dev/null || true)
offending=$(sed -n 's/^freed-with-pin: //p' "$work/freecheck.txt" 2>/dev/null || true)
check "freecheck: freed heap blocks still holding a PIN" "${offending:-?} of ${freed:-?} freed blocks" "0" \
  "$([ "${offending:-x}" = 0 ] && echo 1 || echo 0)"
if grep -q '^first:' "$work/freecheck.txt" 2>/dev/null; then
  details+=("Blocks freed with a PIN inside (usable size, offset of the PIN):" '```' "$(grep '^first:' "$work/freecheck.txt")" '```')
fi

{
  echo "## Memory: memcheck, heap growth and PIN digits in a PAM host"
  echo
  echo "Mode $MODE (\`Tests/reliability/memory.sh$([ "$MODE" = long ] && echo ' --long')\`): pam_secureroom.so" \
    "(copied from .build/release) in Tests/reliability/pam-host.c, one process running" \
    "pam_start_confdir → pam_authenticate → pam_end per attempt, every third PIN wrong (deny = 100," \
    "empty schedule, nodelay, argon2 256 KiB/1 pass/1 lane, run as root so the module checks the" \
    "state itself). (1) $valgrind_version memcheck with --leak-check=full --track-origins=yes and" \
    "Tests/reliability/valgrind.supp, $vg_count and $vg_count3 authentications; (2) $growth_count" \
    "authentications without valgrind, glibc tcache off, malloc in use (mallinfo2) after" \
    "$growth_warmup, half-way and at the end; (3) $scan_count authentications each with 6-digit and" \
    "with 4-digit PINs, then Tests/reliability/memscan.c reads every readable+writable mapping of" \
    "the paused host through /proc/PID/mem and searches it for the PINs as ASCII, plus a planted" \
    "canary as a positive control; (4) $scan_count authentications under Tests/reliability/freecheck.c" \
    "(LD_PRELOAD), which inspects every heap block as it is freed for the PINs. Chance: a given 6-digit string matches a given window of 6" \
    "decimal digits with probability 10^-6, so the expected number of chance hits is the" \
    "number of 6-digit windows found in memory × 4 PINs × 10^-6 (shown below; for random bytes it" \
    "would be 256^-6 ≈ 3.6 × 10^-15 per position)."
  echo
  echo "| Check | Figure | Limit | Result |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
  if [ ${#details[@]} -gt 0 ]; then
    echo
    printf '%s\n' "${details[@]}"
  fi
} > "$OUT"
echo "memory: report written to $OUT"
finish "$checks" "$violations"
