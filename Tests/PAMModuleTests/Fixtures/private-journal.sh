#!/bin/sh
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# private-journal.sh STORE SCRIPT: runs the real systemd-journald in a private mount
# namespace, with its journal in STORE (volatile, no kernel messages, nothing forwarded)
# and /dev/log its syslog socket, then SCRIPT (sh -c) in that namespace; stops journald
# before it returns, so STORE holds every line SCRIPT logged, each with the fields only
# journald sets (_UID, _PID, ...). /run and /dev are private tmpfs there; nothing outside
# the namespace changes. Used by Tests/PAMModuleTests/SyslogTests.swift; run as root.
set -eu
[ "$#" -eq 2 ] || { echo "usage: private-journal.sh STORE SCRIPT" >&2; exit 64; }
if [ -z "${SR_PRIVATE_JOURNAL_WORK:-}" ]; then
  work=$(mktemp -d)
  status=0
  SR_PRIVATE_JOURNAL_WORK=$work unshare --mount --propagation private -- "$0" "$@" || status=$?
  rm -rf "$work"
  exit "$status"
fi
store=$1 script=$2 work=$SR_PRIVATE_JOURNAL_WORK
# /dev: the usual nodes, and log as journald's syslog socket (bound once it exists).
mount --rbind /dev "$work"
mount -t tmpfs -o mode=0755,nosuid private-dev /dev
for node in null zero full random urandom tty; do
  touch "/dev/$node"
  mount --bind "$work/$node" "/dev/$node"
done
mount -t tmpfs -o mode=0755,nosuid private-run /run
mkdir -p /run/log/journal /run/systemd/journald.conf.d
mount --bind "$store" /run/log/journal
printf '[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\n' \
  > /run/systemd/journald.conf.d/private.conf
/lib/systemd/systemd-journald &
journald=$!
i=0
until [ -S /run/systemd/journal/dev-log ]; do
  i=$((i + 1))
  [ "$i" -le 100 ] || { echo "private-journal.sh: systemd-journald did not start" >&2; kill "$journald"; exit 1; }
  sleep 0.05
done
touch /dev/log
mount --bind /run/systemd/journal/dev-log /dev/log
status=0
sh -c "$script" || status=$?
kill -TERM "$journald"
wait "$journald" || true
exit "$status"
