# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# scripts/lib/swtpm.sh — a software TPM (swtpm) of one test's, bench row's or reliability
# item's own: the one launcher (the Swift tests' SoftwareTPM runs it too).
#
#   swtpm_start DIR [TRIES RECOVERY LOCKOUT-RECOVERY]
#                     starts swtpm on a free loopback port pair with its state in DIR,
#                     waits until it accepts connections, sets its dictionary-attack
#                     parameters (default 100,000 tries, 1 s, 1 s: wrong PINs never lock
#                     it), and sets TPM_TCTI; `kill "$(cat DIR/pid)"` stops it. The daemon
#                     keeps no descriptor of the caller's (a pipe it held open would never
#                     end for whoever reads it): its output goes to DIR/log and DIR/stderr
#   tpm_tool CMD...   a tpm2-tools command against it
# Needs the swtpm and tpm2-tools packages (scripts/setup installs both).
#
# Ports are picked below the kernel's ephemeral range (ip_local_port_range), where no
# client connection, such as one of an earlier TPM's thousands left in TIME_WAIT, can
# hold them; a port pair that is taken anyway is skipped (up to 20 tries).

swtpm_start() {
  local dir=$1 tries=${2:-100000} recovery=${3:-1} lockout_recovery=${4:-1} low port i try
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  mkdir -p "$dir"
  for try in $(seq 20); do
    port=$((10000 + (RANDOM % ((low - 10002) / 2)) * 2))
    if (
      for fd in /proc/$BASHPID/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
      exec swtpm socket --tpm2 --tpmstate dir="$dir" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
        --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
        --daemon --pid file="$dir/pid" --log file="$dir/log"
    ) </dev/null >/dev/null 2>>"$dir/stderr"; then
      for i in $(seq 50); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
          TPM_TCTI="swtpm:host=127.0.0.1,port=$port"
          tpm_tool tpm2_dictionarylockout --setup-parameters --max-tries="$tries" --recovery-time="$recovery" \
            --lockout-recovery-time="$lockout_recovery" >/dev/null
          return
        fi
        sleep 0.1
      done
      kill "$(cat "$dir/pid")" 2>/dev/null || true
    fi
  done
  echo "swtpm did not start in 20 tries (last port $port): $(tail -n 3 "$dir/stderr" 2>/dev/null)" >&2
  return 1
}
tpm_tool() { TPM2TOOLS_TCTI=$TPM_TCTI "$@"; }
