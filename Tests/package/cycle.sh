#!/usr/bin/env bash
# Tests/package/cycle.sh — the Debian packages through install, use, upgrade, remove and
# purge, in a throwaway Debian root: 12 "bookworm", or SR_CYCLE_RELEASE (trixie: the same
# packages, built on bookworm, on Debian 13).
#
# What it proves
#   * `apt install ./*.deb` installs libpam-secureroom and secureroom; the postinst made
#     the state (pepper) and /run/secureroom, registered the pam-auth-update profiles
#     and enabled none of them; the module is in the multiarch PAM directory and the
#     helper is setuid root;
#   * secureroom installed the Secret Service provider's systemd user unit
#     (/usr/lib/systemd/user/secureroom-secrets.service: Type=dbus,
#     BusName=org.freedesktop.secrets, ExecStart=/usr/bin/secureroom-vault serve) and its
#     D-Bus activation file (/usr/share/dbus-1/services/
#     org.freedesktop.secrets.secureroom.service: Exec= the same, SystemdService= the
#     unit), 0644 root, enabled nowhere (no [Install], no link in /etc/systemd/user), and
#     `secureroom-vault serve --help` describes serve (--prompt-timeout);
#   * a user with a real password (chpasswd), `pam-auth-update --enable secureroom`
#     (after which chpasswd must still change passwords: common-password has the
#     profile's line too), `secureroom set USER`, then `pamtester login USER
#     authenticate` with only the PIN typed on stdin succeeds (the password is never
#     given), and so do the release's real su (run by nobody, to become the user) and
#     sudo (run by the user; a sudoers rule of the test's own) with the PIN typed at
#     "PIN: " on a terminal; a wrong PIN alone does not; with `secureroom-authsucc` enabled too, a
#     PIN login keeps a wrong PIN made 10 minutes before it counted (the authsucc line
#     lifts a lockout only after the password);
#   * the upgrade to the same packages built with a higher version (scripts/package
#     --version) keeps the pepper byte for byte (never re-initialised), the profile
#     enabled, and the PIN working;
#   * `apt remove`: the unit and the activation file are gone (not conffiles); no file
#     in /etc/pam.d names pam_secureroom on a non-comment line
#     but secureroom's own /etc/pam.d/secureroom-vault, a conffile that dpkg keeps until
#     purge like every conffile (its program is gone with the package); common-* are
#     back to Debian's; the password authenticates through pamtester; the state and
#     /etc/security/secureroom.conf are kept;
#   * `apt purge`: it names the vault the user made (secureroom-vault init) as one that
#     can then never be opened (debconf's question, answered by its default: delete);
#     no /var/lib/secureroom, no /run/secureroom, no
#     /etc/security/secureroom.conf, no /etc/pam.d/secureroom-*, nothing of ours known
#     to dpkg (dpkg -l, dpkg -S) and no file named *secureroom* or *pam_secureroom* left
#     on disk outside the user's home (their vault file is theirs).
#
# How
#   The root is made by mmdebstrap (the release, variant apt, with libpam-runtime,
#   pamtester, passwd, login and the libraries the packages depend on, so apt needs no
#   network afterwards) and cached as .build/package-root-RELEASE.tar (its package list
#   beside it in .tar.list; a different list makes it again). The tarball is
#   unpacked in a temporary directory; the script then re-executes itself in a private
#   mount namespace (unshare --mount --propagation private), mounts /proc and binds a
#   few device nodes (/dev/null, zero, full, random, urandom, tty: not the host's /dev,
#   so no host TPM is ever seen) into the root, and runs everything there with chroot.
#   Nothing is mounted outside that namespace; the root is deleted at exit (after
#   checking nothing is mounted under it).
#
# Usage (root):  Tests/package/cycle.sh [DIST [UPGRADE_DIST]]
#   DIST          the packages to install (default dist/, from scripts/package)
#   UPGRADE_DIST  the same packages with a higher version (default .build/package/upgrade,
#                 from scripts/package --version V --out .build/package/upgrade)
#   SR_CYCLE_MIRROR  the Debian mirror for mmdebstrap (default http://deb.debian.org/debian)
#   SR_CYCLE_RELEASE the Debian release of the root (default bookworm; trixie)
#
# Output is TAP-like ("ok N - ...", "not ok N - ..."), ending with "N passed, M failed".
# Exit status: 0 all passed, 1 some failed, 2 could not run (not root, missing tools or
# packages).
set -euo pipefail
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0

TEST_USER=srcycle
PASSWORD='Cycle-pw-4711'
PIN=6193
WRONG_PIN=3820
PATH_IN_ROOT=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

if [ "${1:-}" = --inner ]; then
  inner=1 root=$2 debs=$3 upgrade=$4
else
  inner=0
fi

# ---------------------------------------------------------------------------- outer run
if [ "$inner" -eq 0 ]; then
  cd "$(dirname "$0")/../.."
  repo=$PWD
  started=$SECONDS
  [ "$(id -u)" -eq 0 ] || { echo "cycle: run as root (chroot, mount namespace)" >&2; exit 2; }
  for tool in mmdebstrap unshare chroot dpkg-deb findmnt; do
    command -v "$tool" >/dev/null || { echo "cycle: $tool is missing (scripts/setup)" >&2; exit 2; }
  done
  dist=${1:-dist} upgrade_dist=${2:-.build/package/upgrade}
  # pick DIR PACKAGE: the one PACKAGE_*.deb in DIR.
  pick() {
    local found=("$1/$2"_*.deb)
    if [ ! -f "${found[0]}" ] || [ ${#found[@]} -ne 1 ]; then
      echo "cycle: expected exactly one $1/$2_*.deb (build them with scripts/package)" >&2
      exit 2
    fi
    echo "${found[0]}"
  }
  v1=("$(pick "$dist" libpam-secureroom)" "$(pick "$dist" secureroom)")
  v2=("$(pick "$upgrade_dist" libpam-secureroom)" "$(pick "$upgrade_dist" secureroom)")
  version1=$(dpkg-deb -f "${v1[0]}" Version) version2=$(dpkg-deb -f "${v2[0]}" Version)
  if ! dpkg --compare-versions "$version2" gt "$version1"; then
    echo "cycle: the upgrade packages ($version2) are not newer than $version1" >&2
    exit 2
  fi

  release=${SR_CYCLE_RELEASE:-bookworm}
  case $release in
    bookworm) alternative='s/\|.*//' ;;     # the first: bookworm's names
    trixie) alternative='s/.*\|//' ;;       # the last: trixie's (tpm2-tss's t64 names)
    *) echo "cycle: SR_CYCLE_RELEASE=$release: bookworm or trixie" >&2; exit 2 ;;
  esac
  # The root's packages: the tools of the test and every dependency of ours that is
  # not ours (the release's alternative, no version), so installing needs no network.
  includes=(libpam-runtime pamtester passwd login sudo)
  for deb in "${v1[@]}" "${v2[@]}"; do
    while read -r name; do
      case $name in libpam-secureroom | secureroom | "") ;; *) includes+=("$name") ;; esac
    done < <(dpkg-deb -f "$deb" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' \
               | sed -E "$alternative"'; s/\(.*\)//; s/:any//; s/[[:space:]]//g')
  done
  list=$(printf '%s\n' "${includes[@]}" | sort -u | paste -sd, -)
  mkdir -p .build
  tarball=$repo/.build/package-root-$release.tar
  if [ -f "$tarball" ] && [ "$(cat "$tarball.list" 2>/dev/null)" = "$list" ]; then
    echo "# root: $tarball (cached)"
  else
    echo "# root: mmdebstrap $release (variant apt) with $list"
    mirror=${SR_CYCLE_MIRROR:-http://deb.debian.org/debian}
    rm -f "$tarball" "$tarball.list"
    if ! mmdebstrap --quiet --format=tar --variant=apt --include="$list" "$release" \
         "$tarball.tmp" "$mirror" >&2; then
      rm -rf "$tarball.tmp"
      echo "cycle: mmdebstrap failed" >&2
      exit 2
    fi
    mv "$tarball.tmp" "$tarball"
    echo "$list" >"$tarball.list"
  fi

  root=$(mktemp -d /tmp/secureroom-cycle.XXXXXX)
  cleanup() {
    if findmnt -rn -o TARGET | grep -q "^$root"; then
      echo "cycle: something is still mounted under $root; not deleting it" >&2
      return
    fi
    rm -rf --one-file-system "$root"
  }
  trap cleanup EXIT
  # Not the tarball's device nodes: the inner run binds the few it needs from the host.
  tar -C "$root" --exclude='./dev/*' -xf "$tarball"
  chmod 0755 "$root"   # mktemp's 0700 would keep every user of the root (_apt too) out
  mkdir -p "$root/tmp/secureroom-debs/v1" "$root/tmp/secureroom-debs/v2"
  cp "${v1[@]}" "$root/tmp/secureroom-debs/v1/"
  cp "${v2[@]}" "$root/tmp/secureroom-debs/v2/"
  echo "# installing $version1, upgrading to $version2"
  set +e
  unshare --mount --propagation private "$0" --inner "$root" "$version1" "$version2"
  status=$?
  set -e
  echo "# duration: $(( SECONDS - started )) s"
  exit "$status"
fi

# ---------------------------------------------------------------------------- inner run
version1=$debs version2=$upgrade
mount -t proc proc "$root/proc"
for node in null zero full random urandom tty; do
  [ -e "$root/dev/$node" ] || touch "$root/dev/$node"
  mount --bind "/dev/$node" "$root/dev/$node"
done
# apt and dpkg want a few things of a system; nothing here starts a service.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
number=0 passed=0 failed=0

# in_root COMMAND...: run in the root with a clean environment.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=$PATH_IN_ROOT HOME=/root LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
# check DESCRIPTION COMMAND...: one test; the command's output goes to the log and is
# shown (as # lines) when it fails.
check() {
  local description=$1
  shift
  number=$(( number + 1 ))
  if "$@" >"$log" 2>&1; then
    passed=$(( passed + 1 ))
    echo "ok $number - $description"
  else
    failed=$(( failed + 1 ))
    echo "not ok $number - $description"
    sed 's/^/#   /' "$log" | tail -n 30
  fi
}
# The commands of the checks (each returns non-zero and says why on failure).
apt_install() { in_root sh -c "cd /tmp/secureroom-debs && apt-get install -y --no-install-recommends $1"; }
package_state() {
  local state
  state=$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$1" 2>/dev/null || echo absent)
  echo "$1: $state"
  [ "$state" = "$2" ]
}
both_installed() { package_state libpam-secureroom "ii $1" && package_state secureroom "ii $1"; }
# static_libstdcxx_named: both packages' Static-Built-Using names the source package and
# version of the libstdc++.a their binaries carry (the one GCC links here).
static_libstdcxx_named() {
  local archive want debs deb
  archive=$(readlink -f "$(gcc -print-file-name=libstdc++.a)")
  want=$(dpkg-query -W -f='${source:Package} (= ${source:Version})' "$(dpkg -S "$archive" | sed 's/: .*//')")
  debs=("$root"/tmp/secureroom-debs/v1/*.deb)
  echo "want: $want; packages: ${#debs[@]}"
  [ -n "$want" ] && [ "${#debs[@]}" -eq 2 ] || return 1
  for deb in "${debs[@]}"; do
    echo "$(basename "$deb"): $(dpkg-deb -f "$deb" Static-Built-Using)"
    [ "$(dpkg-deb -f "$deb" Static-Built-Using)" = "$want" ] || return 1
  done
}
both_config_files() { package_state libpam-secureroom "rc $version2" && package_state secureroom "rc $version2"; }
both_gone() {
  local package line
  for package in libpam-secureroom secureroom; do
    line=$(in_root dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || true)
    echo "$package: '${line}'"
    case $line in "" | "un "*) ;; *) return 1 ;; esac
  done
}
file_is() {  # file_is PATH TYPE "MODE OWNER:GROUP"
  local got
  got=$(in_root stat -c '%F %a %U:%G' "$1" 2>&1) || { echo "$1: $got"; return 1; }
  echo "$1: $got (expected $2 $3)"
  [ "$got" = "$2 $3" ]
}
absent() {
  local path bad=0
  for path in "$@"; do
    if [ -e "$root$path" ] || [ -L "$root$path" ]; then echo "still there: $path"; bad=1; fi
  done
  return "$bad"
}
present() {
  local path bad=0
  for path in "$@"; do
    if [ ! -e "$root$path" ]; then echo "missing: $path"; bad=1; fi
  done
  return "$bad"
}
# pam_users: files in /etc/pam.d with a non-comment line naming pam_secureroom.
pam_users() {
  grep -lE '^[[:space:]]*[^#[:space:]].*pam_secureroom' "$root"/etc/pam.d/* 2>/dev/null \
    | sed "s|^$root||" || true
}
common_use_module() { grep -qsE '^[^#]*pam_secureroom' "$root"/etc/pam.d/common-*; }
no_module_in_common() {
  if common_use_module; then grep -HE '^[^#]*pam_secureroom' "$root"/etc/pam.d/common-*; return 1; fi
}
only_vault_service_names_module() {
  local users; users=$(pam_users)
  echo "files naming pam_secureroom: ${users:-none}"
  [ -z "$users" ] || [ "$users" = /etc/pam.d/secureroom-vault ]
}
vault_service_is_kept_conffile() {
  local conffiles; conffiles=$(in_root dpkg-query -W -f='${Conffiles}\n' secureroom)
  echo "conffiles of secureroom: $conffiles"
  grep -q '^ /etc/pam.d/secureroom-vault ' <<<"$conffiles"
}
state_initialised() {
  file_is /var/lib/secureroom directory "700 root:root" &&
    file_is /var/lib/secureroom/pepper "regular file" "600 root:root"
}
enable_profile() {
  in_root pam-auth-update --enable secureroom && grep -E '^[^#]*pam_secureroom' "$root/etc/pam.d/common-auth"
}
make_user() { in_root useradd -m -s /bin/sh "$TEST_USER" && set_password; }
set_password() { printf '%s:%s\n' "$TEST_USER" "$PASSWORD" | in_root chpasswd; }
set_pin() { printf '%s\n' "$PIN" | in_root secureroom set "$TEST_USER" --stdin; }
# The user's own vault, made with the PIN through the setuid helper as at a login.
make_vault() {
  printf '%s\n' "$PIN" | in_root setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
    env HOME="/home/$TEST_USER" secureroom-vault init --stdin &&
    [ -f "$root/home/$TEST_USER/.local/share/secureroom/vault.sqlite" ]
}
# purge_answered_no: apt purge with debconf's teletype frontend and "no" typed at its
# question: the question names the vault, and the state is kept. apt runs on a terminal
# (a pty of the host's python3) and "no" is typed once the question shows: trixie's
# teletype frontend reads only a controlling terminal, and only after it asked.
# on_terminal QUESTION END ANSWER COMMAND...: COMMAND in the root on a terminal of its own
# (a pty from the host's python3: the root has none), ANSWER typed once QUESTION and then
# END have appeared (a prompt that turns echo off discards what was typed before it);
# prints what the terminal showed and exits with COMMAND's status.
on_terminal() {
  python3 - "$root" "$PATH_IN_ROOT" "$@" <<'PYTHON'
import os, pty, select, sys, time
root, path, question, end, answer = sys.argv[1:6]
pid, terminal = pty.fork()
if pid == 0:
    os.execv("/usr/sbin/chroot", ["chroot", root, "/usr/bin/env", "-i", "PATH=" + path, "HOME=/root",
             "LC_ALL=C.UTF-8", "DEBIAN_FRONTEND=teletype"] + sys.argv[6:])
seen, answered, deadline = b"", False, time.monotonic() + 300
while time.monotonic() < deadline:
    if select.select([terminal], [], [], 1)[0]:
        try:
            data = os.read(terminal, 4096)
        except OSError:
            break
        if not data:
            break
        seen += data
        at = seen.find(question.encode())
        if not answered and at >= 0 and end.encode() in seen[at:]:
            time.sleep(0.5)  # the rest of the prompt, then the program reads
            os.write(terminal, answer.encode() + b"\n")
            answered = True
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PYTHON
}
# su_with_pin, sudo_with_pin: real su (util-linux, setuid) run by nobody to become the
# test user, and real sudo run by the test user (a sudoers rule of its own), each on a
# terminal, the PIN typed at the module's "PIN: ": the command runs as the target user.
su_with_pin() {
  local out
  out=$(on_terminal "PIN" ": " "$PIN" setpriv --reuid=nobody --regid=nogroup --clear-groups \
    su "$TEST_USER" -c "id -un") || { echo "$out"; return 1; }
  echo "$out"
  grep -q "PIN: " <<<"$out" && tr -d '\r' <<<"$out" | grep -qx "$TEST_USER"
}
sudo_with_pin() {
  local out
  # Without use_pty (Debian's default): the root has no /dev/pts for sudo's own pty.
  printf 'Defaults:%s !use_pty\n%s ALL=(ALL) ALL\n' "$TEST_USER" "$TEST_USER" >"$root/etc/sudoers.d/secureroom-cycle"
  chmod 0440 "$root/etc/sudoers.d/secureroom-cycle"
  out=$(on_terminal "PIN" ": " "$PIN" setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
    sudo -k -- id -un) || { echo "$out"; rm -f "$root/etc/sudoers.d/secureroom-cycle"; return 1; }
  rm -f "$root/etc/sudoers.d/secureroom-cycle"
  echo "$out"
  grep -q "PIN: " <<<"$out" && tr -d '\r' <<<"$out" | grep -qx root
}
purge_answered_no() {
  local out
  out=$(on_terminal "Delete every PIN" "?" no apt-get purge -y libpam-secureroom secureroom) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "Delete every PIN and the vaults' recovery records?" <<<"$out" &&
    grep -q "kept /var/lib/secureroom" <<<"$out"
}
# reinstall_keeps_pin: the packages again, on the kept state: the profile enabled, the
# PIN authenticates.
reinstall_keeps_pin() { apt_install "./v2/*.deb" && enable_profile && authenticate "$PIN"; }
# purge_lists_vaults: apt purge (debconf's noninteractive frontend: the question's
# default, delete), whose output names the user's vault file that can no longer be opened.
purge_lists_vaults() {
  local out
  out=$(in_root apt-get purge -y libpam-secureroom secureroom 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "these vaults can then never be opened" <<<"$out" &&
    grep -qF "  $TEST_USER: /home/$TEST_USER/.local/share/secureroom/vault.sqlite" <<<"$out"
}
# authenticate ANSWER: pamtester's login service with ANSWER as the only line on stdin.
authenticate() {
  printf '%s\n' "$1" | in_root pamtester login "$TEST_USER" authenticate
}
refused() { ! authenticate "$1"; }
enable_authsucc() {
  in_root pam-auth-update --enable secureroom-authsucc &&
    grep -E '^[^#]*pam_secureroom\.so.*authsucc' "$root/etc/pam.d/common-auth"
}
# failures_are N: `secureroom status USER --json` reports N failures.
failures_are() {
  local report; report=$(in_root secureroom status "$TEST_USER" --json)
  echo "$report"
  grep -qE "\"failures\" *: *$1[,}]" <<<"$report"
}
# A wrong PIN 10 minutes old (its record's failed-at moved back; same file, mode and
# owner), then the right PIN through both profiles' common-auth: the PIN's success keeps
# the old failure for a year, and the authsucc line after it must not lift it (third red
# team, F1).
pin_login_keeps_old_failures() {
  local record=$root/var/lib/secureroom/users/$TEST_USER.lockout aged
  aged=$(awk '/^failed-at: / { $2 = $2 - 600 } { print }' "$record") && printf '%s\n' "$aged" > "$record" &&
    authenticate "$PIN" && failures_are 1
}
pepper_digest() { in_root sha256sum /var/lib/secureroom/pepper | cut -d' ' -f1; }
# The Secret Service provider: the systemd user unit and the D-Bus activation file.
provider_unit=/usr/lib/systemd/user/secureroom-secrets.service
provider_activation=/usr/share/dbus-1/services/org.freedesktop.secrets.secureroom.service
# has_lines FILE LINE...: FILE (in the root) has each LINE exactly.
has_lines() {
  local file=$1 line bad=0
  shift
  for line in "$@"; do
    if grep -qxF -- "$line" "$root$file"; then echo "$file: $line"; else echo "$file lacks: $line"; bad=1; fi
  done
  return "$bad"
}
provider_files() {
  file_is "$provider_unit" "regular file" "644 root:root" &&
    file_is "$provider_activation" "regular file" "644 root:root" &&
    has_lines "$provider_unit" Type=dbus BusName=org.freedesktop.secrets \
      'ExecStart=/usr/bin/secureroom-vault serve' 'RestartPreventExitStatus=5 6' &&
    has_lines "$provider_activation" '[D-BUS Service]' Name=org.freedesktop.secrets \
      'Exec=/usr/bin/secureroom-vault serve' SystemdService=secureroom-secrets.service
}
# The subcommand itself (an unknown one with --help would print the tool's own help).
serve_exists() {
  local help
  help=$(in_root secureroom-vault serve --help) || return 1
  printf '%s\n' "$help" | head -n 3
  grep -q -e '--prompt-timeout' <<<"$help"
}
# Started by D-Bus only: no [Install] section, so nothing (dh_installsystemduser, a
# preset) could have enabled it for every user.
provider_not_enabled() {
  local links
  links=$(find "$root/etc/systemd/user" "$root/usr/lib/systemd/user" -name secureroom-secrets.service -type l 2>/dev/null)
  echo "links to the unit: ${links:-none}"
  [ -z "$links" ] && ! grep -q '^\[Install\]' "$root$provider_unit"
}
same_pepper() {
  local now; now=$(pepper_digest)
  echo "pepper before: $pepper_before, after: $now"
  [ -n "$now" ] && [ "$now" = "$pepper_before" ]
}
enrolled() { in_root secureroom status "$TEST_USER"; }
no_profile_enabled() {
  if common_use_module; then grep -HE 'pam_secureroom' "$root"/etc/pam.d/common-*; return 1; fi
  ls "$root"/usr/share/pam-configs/secureroom "$root"/usr/share/pam-configs/secureroom-authsucc \
     "$root"/usr/share/pam-configs/secureroom-enrol
}
nothing_in_dpkg() {
  local out
  if out=$(in_root dpkg -S secureroom 2>&1); then echo "$out"; return 1; fi
  echo "dpkg -S secureroom: $out"
  ! in_root dpkg -l | grep -E '^[a-z]{2} +(libpam-)?secureroom '
}
nothing_on_disk() {
  local found
  # The user's home is theirs: their vault file stays, as the purge said.
  found=$(in_root find / -xdev \( -path /proc -o -path /tmp/secureroom-debs -o -path "/home/$TEST_USER" \) -prune -o \
            \( -iname '*secureroom*' -o -iname '*pam_secureroom*' \) -print)
  echo "found: ${found:-nothing}"
  [ -z "$found" ] || return 1
  if grep -rlI secureroom "$root"/etc 2>/dev/null; then return 1; fi
}

# The root has the host's architecture (mmdebstrap's default).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
module=/usr/lib/$multiarch/security/pam_secureroom.so

echo "# install $version1"
check "both packages name the libstdc++ linked into them (Static-Built-Using)" static_libstdcxx_named
check "apt installs libpam-secureroom and secureroom $version1" apt_install "./v1/*.deb"
check "both packages are installed at $version1" both_installed "$version1"
check "postinst initialised the state: /var/lib/secureroom (0700 root), its pepper (0600 root)" state_initialised
check "postinst made /run/secureroom (0755 root)" file_is /run/secureroom directory "755 root:root"
check "the module is $module (0644 root)" file_is "$module" "regular file" "644 root:root"
check "the helper is /usr/sbin/secureroom-helper, setuid root (4755)" file_is /usr/sbin/secureroom-helper "regular file" "4755 root:root"
check "the tools are /usr/bin/secureroom and /usr/bin/secureroom-vault" present /usr/bin/secureroom /usr/bin/secureroom-vault /etc/pam.d/secureroom-vault /etc/pam.d/secureroom-enrol /etc/security/secureroom.conf /usr/lib/tmpfiles.d/secureroom.conf
check "the German messages are /usr/share/locale/de/LC_MESSAGES/secureroom.mo (0644 root)" \
    file_is /usr/share/locale/de/LC_MESSAGES/secureroom.mo "regular file" "644 root:root"
dropin=/usr/lib/systemd/system/polkit-agent-helper@.service.d/secureroom.conf
check "the drop-in for polkit's sandboxed agent helper is $dropin (0644 root)" \
    file_is "$dropin" "regular file" "644 root:root"
check "the profiles are registered and none is enabled (Default: no)" no_profile_enabled
check "the configuration loads (secureroom policy show)" in_root secureroom policy show
check "the Secret Service unit and activation file are installed, naming /usr/bin/secureroom-vault serve" provider_files
check "the Secret Service unit is enabled nowhere (D-Bus activation only)" provider_not_enabled
check "their ExecStart exists: secureroom-vault serve --help names --prompt-timeout" serve_exists

echo "# use"
check "a user with a real password (useradd, chpasswd)" make_user
check "pam-auth-update --enable secureroom puts the module in common-auth" enable_profile
check "chpasswd still changes passwords with the profile enabled (common-password)" set_password
check "secureroom set $TEST_USER --stdin" set_pin
check "the PIN alone authenticates through pamtester login" authenticate "$PIN"
check "real su, run by nobody: the PIN at \"PIN: \" makes it $TEST_USER" su_with_pin
check "real sudo, run by $TEST_USER: the PIN at \"PIN: \" runs the command as root" sudo_with_pin
check "$TEST_USER makes a vault with the PIN (secureroom-vault init, as the user)" make_vault
check "a wrong PIN alone does not" refused "$WRONG_PIN"
check "pam-auth-update --enable secureroom-authsucc adds the authsucc line to common-auth" enable_authsucc
check "a PIN login through both profiles keeps a 10-minute-old failure counted" pin_login_keeps_old_failures
pepper_before=$(pepper_digest)

echo "# upgrade to $version2"
check "apt upgrades both packages to $version2" apt_install "./v2/*.deb"
check "both packages are installed at $version2" both_installed "$version2"
check "the pepper is unchanged (not re-initialised)" same_pepper
check "the profile is still enabled in common-auth" common_use_module
check "$TEST_USER is still enrolled (secureroom status)" enrolled
check "the PIN still authenticates through pamtester login" authenticate "$PIN"

echo "# remove"
check "apt remove libpam-secureroom secureroom" in_root apt-get remove -y libpam-secureroom secureroom
check "both packages are removed, their conffiles kept (rc)" both_config_files
check "common-* no longer name pam_secureroom" no_module_in_common
check "no file in /etc/pam.d names pam_secureroom but secureroom's kept conffile secureroom-vault" only_vault_service_names_module
check "that file is a conffile of secureroom, deleted at purge" vault_service_is_kept_conffile
check "the module, the helper, the tools and their messages are gone" absent "$module" /usr/sbin/secureroom-helper /usr/bin/secureroom /usr/bin/secureroom-vault /usr/share/pam-configs/secureroom /usr/share/locale/de/LC_MESSAGES/secureroom.mo "$dropin"
check "the Secret Service unit and activation file are gone" absent "$provider_unit" "$provider_activation"
check "remove keeps the state and the configuration" present /var/lib/secureroom/pepper /etc/security/secureroom.conf
check "the password authenticates through pamtester login" authenticate "$PASSWORD"
check "the PIN no longer does" refused "$PIN"

echo "# purge, answered no"
check "apt purge, \"no\" typed at debconf's question (teletype): /var/lib/secureroom is kept" purge_answered_no
check "dpkg knows neither package" both_gone
check "the pepper is kept, byte for byte" same_pepper
check "installed again on the kept state, the PIN authenticates (pamtester login)" reinstall_keeps_pin

echo "# purge"
check "apt purge libpam-secureroom secureroom lists $TEST_USER's vault file it leaves unreadable" purge_lists_vaults
check "dpkg knows neither package" both_gone
check "no /var/lib/secureroom, /run/secureroom, /etc/security/secureroom.conf, /etc/pam.d/secureroom-*" \
  absent /var/lib/secureroom /run/secureroom /etc/security/secureroom.conf /etc/pam.d/secureroom-vault /etc/pam.d/secureroom-enrol
check "nothing of ours in dpkg -S or dpkg -l" nothing_in_dpkg
check "nothing named *secureroom* on disk, nothing in /etc mentions it" nothing_on_disk
check "the password still authenticates" authenticate "$PASSWORD"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
