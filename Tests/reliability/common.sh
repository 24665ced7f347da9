# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/reliability/common.sh — sourced by the reliability items that drive the release
# artifacts from a shell (crash.sh, hammer.sh, timing.sh). Not run on its own.
#
# It gives each item:
#   LONG            1 with --long, else 0
#   W               a private work directory (removed on exit)
#   BIN             copies of the release artifacts (so a rebuild cannot change them mid-run)
#   OUT             the item's report file, $RELIABILITY_REPORT_DIR/ITEM.md
#   a private mount namespace (re-executing the item inside scripts/lib/sandbox) in which
#   /etc/passwd, /etc/group, /etc/pam.d and /etc/security are copies the item may change: the module, the admin tool and the vault read the state directory
#   $W/state from that config file, as on an installed system. Nothing on the host changes.
#
# Usage, at the top of an item:  ITEM=crash; source "$(dirname "$0")/common.sh" "$@"
# (common.sh sources prelude.sh, which handles the arguments, root and the report file.)

# shellcheck source=Tests/reliability/prelude.sh
source "$(dirname "${BASH_SOURCE[0]}")/prelude.sh" "$@"

ARTIFACTS=(pam_secureroom.so pam_secureroom_core.so secureroom secureroom-vault secureroom-pam-driver)
# Outside the namespace: prepare the work directory and re-run this item inside one.
if [ -z "${RELIABILITY_WORK:-}" ]; then
  need_packages
  need_artifacts "${ARTIFACTS[@]}"
  work=$(mktemp -d /tmp/secureroom-reliability.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  mkdir -p -m 0755 "$work/bin"
  for artifact in "${ARTIFACTS[@]}"; do cp "$REPO/.build/release/$artifact" "$work/bin/"; done
  status=0
  # /etc/security is copied as a whole, so no file is created on the host.
  RELIABILITY_WORK=$work "$REPO/scripts/lib/sandbox" --copy /etc/passwd --copy /etc/group --copy /etc/pam.d \
    --copy /etc/security -- /bin/bash "$REPO/Tests/reliability/$ITEM.sh" "$@" || status=$?
  exit $status
fi

W=$RELIABILITY_WORK
BIN=$W/bin
# What follows writes /etc: only ever on the sandbox's copies.
"$REPO/scripts/lib/sandbox" --inside || { echo "$ITEM: not inside scripts/lib/sandbox; refusing to write /etc" >&2; exit 2; }
: > /etc/security/secureroom.conf
STATE=$W/state

# configure LINE...: writes secureroom.conf (cheap argon2 unless a line overrides it) and
# initialises a fresh state directory.
FAST_KDF=("argon2_memory = 256" "argon2_time = 1" "argon2_lanes = 1" "argon2_below_floor")
configure() {
  rm -rf "$STATE"
  printf '%s\n' "dir = $STATE" "tpm = off" "local_services = *" "${FAST_KDF[@]}" "$@" > /etc/security/secureroom.conf
  "$BIN/secureroom" init >/dev/null
}
# add_user NAME UID: a local account in the namespace's /etc/passwd.
add_user() { echo "$1:x:$2:$2::/nonexistent:/usr/sbin/nologin" >> /etc/passwd; }
# set_pin USER PIN: an administrator sets the PIN (weak PINs allowed: tests pick PINs freely).
set_pin() { printf '%s\n' "$2" | "$BIN/secureroom" set "$1" --stdin --allow-weak >/dev/null; }
# service NAME LINE...: a PAM service in the namespace's /etc/pam.d. MODULE is the module copy.
service() { local name=$1; shift; printf '%s\n' "${@//MODULE/$BIN/pam_secureroom.so}" > "/etc/pam.d/$name"; }
# authenticate SERVICE USER PIN: one PAM transaction through the real libpam
# (pam_start_confdir, failure delay recorded, not slept); prints the PAM code.
authenticate() {
  local code=0
  printf '%s\n' "$3" | "$BIN/secureroom-pam-driver" --confdir /etc/pam.d --service "$1" --user "$2" auth >/dev/null 2>&1 || code=$?
  echo "$code"
}
# failures USER: the failure count in the user's lockout record, as `secureroom status` reads it.
failures() { "$BIN/secureroom" status "$1" --json | sed -n 's/.*"failures":\([0-9]*\).*/\1/p'; }
# argon2_counter: builds the LD_PRELOAD shim that counts argon2id_ctx calls into
# $W/argon2-count (one byte per call) and prints its path.
argon2_counter() {
  [ -e "$W/argon2-counter.so" ] || gcc -shared -fPIC -O2 -o "$W/argon2-counter.so" \
    "$REPO/Tests/PAMModuleTests/Fixtures/argon2-counter.c" -ldl || return 1
  touch "$W/argon2-count" || return 1
  echo "$W/argon2-counter.so"
}
argon2_runs() { stat -c %s "$W/argon2-count"; }
# start_swtpm: the item's own software TPM (scripts/lib/swtpm.sh), killed by pid at exit;
# sets TPM_TCTI. tpm_tool CMD...: a tpm2-tools command against it.
source "$REPO/scripts/lib/swtpm.sh"
start_swtpm() {
  need_packages swtpm tpm2-tools
  swtpm_start "$W/swtpm"
  trap 'kill "$(cat "$W/swtpm/pid")" 2>/dev/null || true' EXIT
}

# Report: emit LINE appends to the item's section.
: > "$OUT"
emit() { printf '%s\n' "$*" >> "$OUT"; }
