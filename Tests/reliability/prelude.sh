# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/reliability/prelude.sh — sourced first by every reliability item: its arguments,
# root, its report file and package installs. Not run on its own.
#
# Usage, at the top of an item:  ITEM=name; source "$(dirname "$0")/prelude.sh" "$@"
# It sets REPO (the repository root, also the working directory), LONG (1 with --long),
# MODE (short or long),
# REPORT_DIR ($RELIABILITY_REPORT_DIR, default .build/reliability, created) and OUT
# (REPORT_DIR/ITEM.md), and records in REPORT_DIR/ITEM.run which commit ran and when;
# --help prints the item's header comment.

# A command that stops the item (set -e) says so, with its line, instead of ending it silently.
set -o errtrace
trap 'echo "$ITEM: stopped: line $LINENO: \`$BASH_COMMAND\` exited $?" >&2' ERR

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LONG=0 MODE=short
for argument in "$@"; do
  case $argument in
    --long) LONG=1 MODE=long ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "$ITEM: unknown argument '$argument' (usage: $0 [--long])" >&2; exit 64 ;;
  esac
done
if [ "$(id -u)" -ne 0 ]; then
  echo "$ITEM: run as root (root-owned state, a private mount namespace)" >&2
  exit 2
fi
cd "$REPO"
REPORT_DIR=${RELIABILITY_REPORT_DIR:-$REPO/.build/reliability}
mkdir -p "$REPORT_DIR"
REPORT_DIR=$(cd "$REPORT_DIR" && pwd)
OUT=$REPORT_DIR/$ITEM.md
# Which code ran, for the report: the commit (and whether the tree differed from it) and when.
printf 'commit %s%s, %s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$(git diff --quiet HEAD -- Sources Tests Fuzz scripts 2>/dev/null || echo " with uncommitted changes")" \
  "$(date -u '+%Y-%m-%d %H:%M UTC')" > "$REPORT_DIR/$ITEM.run"

# need_packages [PKG...]: installs what scripts/setup installs, and these, if missing.
need_packages() { "$REPO/scripts/setup" "$@"; }
# need_artifacts NAME...: stops unless scripts/build has made these in .build/release.
need_artifacts() {
  local artifact
  for artifact in "$@"; do
    [ -e "$REPO/.build/release/$artifact" ] || { echo "$ITEM: .build/release/$artifact is missing: run scripts/build" >&2; exit 2; }
  done
}
# span, median, spread, ratio.
source "$REPO/scripts/lib/measure.sh"

# check CONDITION MESSAGE: one check; CONDITION is eval'd, and `violation MESSAGE` runs
# when it fails (an item may redefine violation to keep its own tallies).
checks=0 violations=0
violation() { violations=$((violations + 1)); echo "$ITEM: VIOLATION: $*" >&2; }
check() { checks=$((checks + 1)); if ! eval "$1"; then violation "$2"; fi; }

# finish CHECKS VIOLATIONS: the item's last line and exit status.
finish() {
  echo "$ITEM: $1 checks, $2 violations"
  [ "$2" -eq 0 ]
}
