# scripts/lib/swtpm.sh — a software TPM (swtpm) for bench rows and reliability items.
#
#   swtpm_start DIR   starts swtpm on a free-looking loopback port with its state in DIR,
#                     waits until it accepts connections, raises its dictionary-attack
#                     limit (100,000 tries, 1 s) so wrong PINs never lock it, and sets
#                     TPM_TCTI; `kill "$(cat DIR/pid)"` stops it
#   tpm_tool CMD...   a tpm2-tools command against it
# Needs the swtpm and tpm2-tools packages (scripts/setup installs both).

swtpm_start() {
  local dir=$1 port=$((20000 + (RANDOM % 9000) * 2)) i
  mkdir -p "$dir"
  swtpm socket --tpm2 --tpmstate dir="$dir" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
    --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
    --daemon --pid file="$dir/pid" --log file="$dir/log"
  for i in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  TPM_TCTI="swtpm:host=127.0.0.1,port=$port"
  tpm_tool tpm2_dictionarylockout --setup-parameters --max-tries=100000 --recovery-time=1 --lockout-recovery-time=1 >/dev/null
}
tpm_tool() { TPM2TOOLS_TCTI=$TPM_TCTI "$@"; }
