#!/usr/bin/env bash
# Tests/reliability/fuzz.sh [--long] — reliability item `fuzz`: libFuzzer (with
# AddressSanitizer) over every parser of untrusted bytes in SecureRoom, one harness per
# parser in Fuzz/ (see Fuzz/README.md): records, pepper, blocklist, config file and module
# arguments, the helper's reply line and key words, wrapped vault keys and vault blobs, and
# the KeePassXC XML and CSV exports `secureroom-vault import` reads.
# Each harness also checks a property (canonical round trip, documented ranges), so a
# logic bug traps like a memory error. Measured per fuzzer: executions, seconds, coverage
# (cov/ft from libFuzzer's final stats), corpus size, new units, crashes.
#
# Usage (as root, from the repository root, after scripts/setup):
#   Tests/reliability/fuzz.sh           short mode: 10 s per fuzzer (FUZZ_SECONDS overrides)
#   Tests/reliability/fuzz.sh --long    FUZZ_SECONDS per fuzzer, default 600
# Builds Fuzz/ into Fuzz/.build (incremental after the first build). Seeds come from
# Fuzz/Corpus/<fuzzer>/; new corpus entries go to a scratch directory, never the repo.
# Writes "$RELIABILITY_REPORT_DIR/fuzz.md" (default .build/reliability); a crash input is
# kept in "$RELIABILITY_REPORT_DIR/fuzz-crashes/" with the command that reproduces it.
# The last line of output is `fuzz: N executions, C crashes`; exits 0 iff C = 0.
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=fuzz
# shellcheck source=Tests/reliability/prelude.sh
source "$(dirname "$0")/prelude.sh" "$@"
seconds=${FUZZ_SECONDS:-$([ "$LONG" -eq 1 ] && echo 600 || echo 10)}

# What building SecureRoomCore and SecureRoomVault needs is scripts/setup's list (libFuzzer and
# ASan come with Swift).
need_packages

crash_dir="$REPORT_DIR/fuzz-crashes"
rm -rf "$crash_dir"
scratch=$(mktemp -d /tmp/secureroom-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# fuzzer → the parser it drives (the table's second column).
fuzzers=(
  "FuzzCredentialRecord|CredentialRecord(parsing:path:)"
  "FuzzLockoutRecord|LockoutRecord(parsing:path:) + LockoutPolicy.status"
  "FuzzRecoveryRecord|RecoveryRecord(parsing:path:)"
  "FuzzRecordText|RecordText (shared record lines)"
  "FuzzPepper|Pepper(parsing:path:)"
  "FuzzBlocklist|Blocklist(parsing:source:)"
  "FuzzConfiguration|Configuration file, module arguments, LockoutPolicy.parseSchedule"
  "FuzzHelperReply|HelperReply(line:), HelperReply.decode (LockoutStatus)"
  "FuzzHelperSecrets|HelperSecrets.decode"
  "FuzzPINFormat|PINFormat.pin(from:), pin(fromCString:) (the PIN answer)"
  "FuzzVaultKey|VaultKey.unwrap, SealedKeys.open, RecoveryKey(typed:)"
  "FuzzVaultCipher|VaultCipher.open (blob and plaintext layout)"
  "FuzzKeePassXCXML|KeePassXCXML over XMLReader (import --from keepassxc, XML), small ImportLimits"
  "FuzzKeePassXCCSV|KeePassXCExport (import --from keepassxc, CSV), small ImportLimits"
)

# SwiftPM's `--sanitize fuzzer --sanitize address` alone instruments no Swift code for
# coverage (swiftc keeps only the last -sanitize= option); -Xswiftc gives both at once.
# `--sanitize fuzzer` is still needed: it stops SwiftPM renaming `main` (libFuzzer's).
echo "fuzz: building Fuzz/ (debug, -sanitize=fuzzer,address)"
build_start=$(date +%s)
# shellcheck disable=SC2054  # the comma is part of -sanitize=fuzzer,address
build=(swift build --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address)
# An incremental build of Fuzz/ plans from its last build of the main package's sources:
# after files were added, renamed or a target removed there, it fails ("missing inputs",
# or a new type not found) while SwiftPM still holds the old plan. Without its llbuild
# manifest and database (.build/debug.yaml, build.db) it plans again and the same build
# succeeds: seen after SecureRoomTPM moved into the core, and after a file was added to
# it. So a failed build is tried once more from a new plan; a real error fails twice.
fuzz_build() { (cd Fuzz && "${build[@]}") >"$scratch/build.log" 2>&1; }
replan() { rm -f Fuzz/.build/debug.yaml Fuzz/.build/build.db; }
if ! fuzz_build && ! { replan && fuzz_build; }; then
  grep -v 'Cannot export local symbol' "$scratch/build.log" | tail -40 >&2
  echo "fuzz: build failed" >&2
  echo "fuzz: 0 executions, 1 crashes"
  exit 1
fi
build_seconds=$(( $(date +%s) - build_start ))
bin=$(cd Fuzz && "${build[@]}" --show-bin-path)
echo "fuzz: built in ${build_seconds} s"

rows=""
total_execs=0
total_crashes=0
for entry in "${fuzzers[@]}"; do
  name=${entry%%|*}
  parser=${entry#*|}
  corpus="$scratch/corpus/$name"
  mkdir -p "$corpus" "$scratch/artifacts/$name"
  # Seeds: Fuzz/Corpus/<fuzzer>/, and for a record parser the format's test vectors
  # (docs/vectors/<kind>/, valid and refused records alike).
  case $name in
    FuzzCredentialRecord) vectors=docs/vectors/credential ;;
    FuzzLockoutRecord) vectors=docs/vectors/lockout ;;
    FuzzPepper) vectors=docs/vectors/pepper ;;
    FuzzRecoveryRecord) vectors=docs/vectors/recovery ;;
    *) vectors= ;;
  esac
  seed_dirs=()
  for dir in "Fuzz/Corpus/$name" $vectors; do [ -d "$dir" ] && seed_dirs+=("$dir"); done
  log="$scratch/$name.log"
  echo "fuzz: $name for ${seconds} s"
  start=$(date +%s%N)
  status=0
  SWIFT_BACKTRACE=enable=no "$bin/$name" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
    -artifact_prefix="$scratch/artifacts/$name/" \
    "$corpus" "${seed_dirs[@]}" >"$log" 2>&1 || status=$?
  elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
  execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log" | tail -1)
  new_units=$(awk '/^stat::new_units_added:/ {print $2}' "$log" | tail -1)
  # The last status line: "#N DONE cov: C ft: F corp: K/SIZE ...".
  stats=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$stats")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$stats")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$stats")
  crashes=$(find "$scratch/artifacts/$name" -type f | wc -l)
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi
  if [ "$crashes" -gt 0 ]; then
    mkdir -p "$crash_dir"
    cp "$log" "$crash_dir/$name.log"
    for artifact in "$scratch/artifacts/$name"/*; do
      [ -f "$artifact" ] || continue
      kept="$crash_dir/$name-$(basename "$artifact")"
      cp "$artifact" "$kept"
      echo "fuzz: $name CRASH, input kept in $kept"
      echo "fuzz:   reproduce: (cd Fuzz && ${build[*]}) && SWIFT_BACKTRACE=enable=no $bin/$name $kept"
    done
    grep -E 'Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$log" | head -5 | sed 's/^/fuzz:   /' || true
  fi
  execs=${execs:-0}
  total_execs=$((total_execs + execs))
  total_crashes=$((total_crashes + crashes))
  seeds=$(find "${seed_dirs[@]}" -type f | wc -l)
  echo "fuzz: $name: $execs executions, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}, $crashes crashes"
  rows+="| $name | $parser | $execs | $(awk -v ms="$elapsed" 'BEGIN {printf "%.1f", ms / 1000}') | ${cov:-?} | ${ft:-?} | $seeds | ${corp:-?} | ${new_units:-0} | $crashes |"$'\n'
done

{
  echo "## Fuzzing (libFuzzer + AddressSanitizer)"
  echo
  echo "Mode **$MODE**: each of the ${#fuzzers[@]} harnesses in \`Fuzz/\` (one per parser of untrusted bytes)"
  echo "ran for ${seconds} s under libFuzzer with AddressSanitizer, starting from the seeds in"
  echo "\`Fuzz/Corpus/<fuzzer>/\` and, for the record parsers, \`docs/vectors/<kind>/\` (new units went"
  echo "to a scratch directory). Each harness traps on a"
  echo "memory error and also on a violated property (canonical round trip of the parser and its"
  echo "serializer, documented ranges). Built with \`cd Fuzz && ${build[*]}\`"
  echo "in ${build_seconds} s ($(swift --version 2>/dev/null | head -1));"
  echo "run as \`SWIFT_BACKTRACE=enable=no FUZZER -max_total_time=${seconds} -print_final_stats=1 -timeout=10"
  echo "-max_len=4096 SCRATCH Fuzz/Corpus/FUZZER\` by \`Tests/reliability/fuzz.sh$([ "$MODE" = long ] && echo ' --long')\`."
  echo "cov and ft are libFuzzer's covered edges and features at the end; corpus is libFuzzer's"
  echo "final corpus (entries/bytes)."
  echo
  echo "| fuzzer | parser | executions | seconds | cov | ft | seeds | corpus | new units | crashes |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s' "$rows"
  echo "| **total** | | **$total_execs** | | | | | | | **$total_crashes** |"
  if [ "$total_crashes" -gt 0 ]; then
    echo
    echo "Crash inputs and logs: \`$crash_dir\`. Reproduce one with"
    echo "\`SWIFT_BACKTRACE=enable=no $bin/FUZZER INPUT\`."
  fi
} >"$OUT"
echo "fuzz: report written to $OUT"
echo "fuzz: $total_execs executions, $total_crashes crashes"
[ "$total_crashes" -eq 0 ]
