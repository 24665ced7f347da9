#!/usr/bin/env bash
# Tests/reliability/hostile.sh [--long] — hostile inputs at the PAM edge and a hostile
# filesystem under the module (reliability item `hostile`).
#
# Runs the XCTest classes HostileConversationTests and HostileFilesystemTests
# (Tests/PAMModuleTests) against the release artifacts: the real libpam drives
# pam_secureroom.so through secureroom-pam-driver as root, in a mount namespace whose
# /dev/log the tests read. Measured, per case: the PAM code the application got (clean,
# no signal, no hang), the module's syslog line saying why, no failure counted when no
# PIN was checked, nothing followed or written outside the state directory.
#
#   (default)  every case, with every prefix of a credential record
#   --long     also every prefix of the pepper file (SECUREROOM_HOSTILE_LONG=1)
#
# Run as root from the repository root after scripts/setup and scripts/build. The test
# build is reused (swift test --skip-build); it is made first only if it is missing.
# Writes $RELIABILITY_REPORT_DIR/hostile.md (default .build/reliability) from the rows
# the tests append to hostile.tsv there; the last line is `hostile: N checks, V violations`
# (N cases recorded, V failed tests), and the exit status is 0 iff V is 0.
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
ITEM=hostile
# shellcheck source=Tests/reliability/prelude.sh
source "$(dirname "$0")/prelude.sh" "$@"
# Beyond scripts/setup's list (unshare, setpriv): timeout (coreutils), pam_debug.so (libpam-modules).
need_packages coreutils libpam-modules
need_artifacts pam_secureroom.so pam_secureroom_core.so secureroom secureroom-helper secureroom-vault secureroom-pam-driver

tsv=$REPORT_DIR/hostile.tsv
: > "$tsv"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

if ! ls .build/debug/*.xctest >/dev/null 2>&1; then
  echo "hostile: no test build yet; swift build --build-tests"
  swift build --build-tests >/dev/null
fi
filter='HostileConversationTests|HostileFilesystemTests'
echo "hostile: $MODE mode, swift test --skip-build --filter '$filter'"
started=$EPOCHREALTIME
set +e
RELIABILITY_REPORT_DIR=$REPORT_DIR SECUREROOM_HOSTILE_LONG=$LONG SWIFT_BACKTRACE=enable=no \
  swift test --skip-build --disable-swift-testing --filter "$filter" 2>&1 | tee "$log" |
  grep -E "^Test Case '.*' (passed|failed)|error:"
status=${PIPESTATUS[0]}
set -e
seconds=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')

executed=$(grep -cE "^Test Case '.*' (passed|failed)" "$log" || true)
failed=$(grep -cE "^Test Case '.*' failed" "$log" || true)
checks=$(wc -l < "$tsv" | tr -d ' ')
flagged=$(awk -F '\t' '$3 ~ /^VIOLATION/' "$tsv" | wc -l | tr -d ' ')
violations=$failed
# A run that failed without a failed test (a crash, a build problem) or recorded nothing
# is a violation too.
if [ "$violations" -eq 0 ] && { [ "$status" -ne 0 ] || [ "$checks" -eq 0 ] || [ "$executed" -eq 0 ]; }; then
  violations=1
fi

{
  echo "## Hostile inputs at the PAM edge and a hostile filesystem"
  echo
  echo "Mode $MODE: \`RELIABILITY_REPORT_DIR=${REPORT_DIR#"$REPO"/} SECUREROOM_HOSTILE_LONG=$LONG swift test --skip-build" \
       "--filter '$filter'\` ran $executed tests ($failed failed, swift test status $status) in $seconds s" \
       "and recorded $checks cases ($flagged flagged VIOLATION). Each case drives pam_secureroom.so through" \
       "the real libpam (secureroom-pam-driver, as root, in a mount namespace whose /dev/log the test reads)" \
       "and requires a clean PAM code (no signal, no hang), a syslog line from the module saying why, no failure" \
       "counted when no PIN was checked, and nothing followed or written outside the state directory."
  echo
  echo "| suite | case | outcome (PAM result) | syslog line |"
  echo "|---|---|---|---|"
  awk -F '\t' '{ for (i = 1; i <= NF; i++) gsub(/\|/, "\\|", $i); printf "| %s | %s | %s | `%s` |\n", $1, $2, $3, $4 }' "$tsv"
  if [ "$failed" -gt 0 ]; then
    echo
    echo "Failed tests:"
    echo
    grep -E "^Test Case '.*' failed" "$log" | sed -E "s/^Test Case '(.*)' failed.*/- \1/"
  fi
} > "$OUT"
echo "hostile: report in $OUT"
finish "$checks" "$violations"
