#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Tests/e2e/stall-holder.py: what an unprivileged caller can do to their own su or sudo
while it holds another user's lock, or their own (case i of Tests/e2e/su-sudo.sh).

Usage, as the caller:  stall-holder.py KIND PIN CGROUP COMMAND...

Runs COMMAND (`su srtest -c true`, say) on a new pty, in a process group of its own
that has the terminal (as a shell runs a job), types PIN at its "PIN:" prompt and steps
it with KIND's own stop (about 100 us of running at a time; SIGSTOP for tstp) until /proc/locks shows it
holding a flock: a user's lock, taken for the module's short record writes. It then
leaves the command stalled with KIND:

    stop    SIGSTOP from the caller
    tstp    Ctrl-Z typed on the terminal (SIGTSTP from the tty to the foreground job);
            util-linux su blocks SIGTSTP while it authenticates, sudo does not
    freeze  cgroup v2 freezer: the command runs in CGROUP/holder, a cgroup the caller
            owns, and the caller writes 1 to its cgroup.freeze

(A fourth way, SCHED_IDLE with the caller's busy loops on the command's CPU, holds
nothing on Linux 6.18: a command caught holding its lock, then woken among 48 busy loops
under SCHED_IDLE, let go within 1 s in 20 of 20 tries. A woken task gets its slice.)

A stall that landed after the command let go is undone and tried again (the same wrong
PIN is counted once). Prints "stalled PID" once the command is stalled holding its
lock, then waits for a line on standard input, undoes the stall, answers a password
prompt with a wrong password, and prints "ended RC": the command's exit status as a
shell gives it (137: killed by SIGKILL). Exit status 0, or 2 with a reason on standard
error.
"""
import os
import pty
import select
import signal
import sys
import time

KINDS = ("stop", "tstp", "freeze")
STEP_SECONDS = 0.0001


def fail(message):
    print("stall-holder: " + message, file=sys.stderr)
    sys.exit(2)


def holds_flock(pid):
    """Whether /proc/locks lists a flock held (not waited for) by pid."""
    with open("/proc/locks") as locks:
        for line in locks:
            fields = line.split()
            if len(fields) >= 5 and fields[1] == "FLOCK" and fields[4] == str(pid):
                return True
    return False


def state_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def children_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as children:
            return [int(child) for child in children.read().split()]
    except OSError:
        return []


class Terminal:
    """The pty master and what has been read from it."""

    def __init__(self, fd):
        self.fd = fd
        self.seen = b""

    def read_for(self, seconds):
        """Reads what arrives within `seconds`; False once the terminal is closed."""
        ready, _, _ = select.select([self.fd], [], [], seconds)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            return False
        self.seen += data
        return bool(data)

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while text not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0 or not self.read_for(left):
                return text in self.seen
        return True

    def write(self, data):
        os.write(self.fd, data)


def spin(seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pass


class Attempt:
    """One run of the command on a new pty. The pty's session leader (this program's child)
    runs it in a process group of its own, gives that the terminal, waits for it to exit
    (not to stop) and writes "__RC=N" on the terminal."""

    def __init__(self, kind, command, cgroup, cpu):
        self.kind = kind
        self.cgroup = cgroup
        pid, fd = pty.fork()
        if pid == 0:
            try:
                self.run_command(command, cpu)
            finally:
                os._exit(127)
        self.leader = pid
        self.terminal = Terminal(fd)
        self.target = None

    def run_command(self, command, cpu):
        child = os.fork()
        if child == 0:
            try:
                os.setpgid(0, 0)
                signal.signal(signal.SIGTTOU, signal.SIG_IGN)
                os.tcsetpgrp(0, os.getpgrp())
                signal.signal(signal.SIGTTOU, signal.SIG_DFL)
                if self.kind == "freeze":
                    with open(os.path.join(self.cgroup, "holder", "cgroup.procs"), "w") as procs:
                        procs.write(str(os.getpid()))
                os.sched_setaffinity(0, {cpu})
                os.execvp(command[0], command)
            finally:
                os._exit(127)
        _, status = os.waitpid(child, 0)
        code = os.waitstatus_to_exitcode(status)
        print("__RC=%d" % (128 - code if code < 0 else code), flush=True)
        os._exit(0)

    def find_target(self, seconds=10):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for child in children_of(self.leader):
                self.target = child
                return True
            time.sleep(0.01)
        return False

    def freeze(self, on):
        with open(os.path.join(self.cgroup, "holder", "cgroup.freeze"), "w") as freeze:
            freeze.write("1" if on else "0")

    def frozen(self):
        with open(os.path.join(self.cgroup, "holder", "cgroup.events")) as events:
            return "frozen 1" in events.read()

    def pause(self, how):
        """Stops the command by `how` (KIND, or "stop"); True once it is held."""
        if how == "tstp":
            self.terminal.write(b"\x1a")
        elif how == "freeze":
            self.freeze(True)
        else:
            os.kill(self.target, signal.SIGSTOP)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            state = state_of(self.target)
            if state == "gone":
                return False
            if self.frozen() if how == "freeze" else state == "T":
                return True
        return False

    def resume(self, how):
        if how == "freeze":
            self.freeze(False)
        else:
            os.kill(self.target, signal.SIGCONT)

    def catch(self, seconds=30):
        """Steps the command until it is held, by KIND, holding a flock. Ctrl-Z steps
        badly (the command may catch SIGTSTP while it talks to the terminal), so for
        tstp the stepping stops with SIGSTOP, and the Ctrl-Z follows the SIGCONT at once."""
        how = "stop" if self.kind == "tstp" else self.kind
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self.pause(how):
                return False
            if holds_flock(self.target):
                break
            self.resume(how)
            spin(STEP_SECONDS)
        else:
            return False
        if how != self.kind:
            self.resume(how)
            if not self.pause(self.kind):
                return False
        return holds_flock(self.target)

    def wake(self):
        try:
            self.resume(self.kind)
        except ProcessLookupError:
            pass

    def finish(self, seconds=30):
        """Answers a password prompt with a wrong password; returns the exit status."""
        deadline = time.monotonic() + seconds
        answered = False
        while time.monotonic() < deadline and b"__RC=" not in self.terminal.seen:
            if not answered and b"assword" in self.terminal.seen:
                self.terminal.write(b"not-the-password\n")
                answered = True
            if not self.terminal.read_for(0.1):
                break
        if b"__RC=" not in self.terminal.seen:
            os.kill(self.leader, signal.SIGKILL)
        os.waitpid(self.leader, 0)
        text = self.terminal.seen.split(b"__RC=", 1)
        return text[1].split()[0].decode() if len(text) == 2 else "unknown"


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in KINDS:
        fail("usage: stall-holder.py stop|tstp|freeze PIN CGROUP COMMAND...")
    kind, pin, cgroup, command = sys.argv[1], sys.argv[2].encode(), sys.argv[3], sys.argv[4:]
    if kind == "freeze":
        os.makedirs(os.path.join(cgroup, "holder"), exist_ok=True)
    # The command on one CPU, this program on another (it spins while the command runs).
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        fail("needs two CPUs")
    os.sched_setaffinity(0, {cpus[0]})
    for _ in range(20):
        attempt = Attempt(kind, command, cgroup, cpus[-1])
        if not attempt.terminal.wait_for(b"PIN:", 20) or not attempt.find_target():
            fail("%s showed no PIN: prompt: %r" % (command[0], attempt.terminal.seen[-200:]))
        attempt.terminal.write(pin + b"\n")
        if attempt.catch():
            print("stalled %d" % attempt.target, flush=True)
            sys.stdin.readline()
            attempt.wake()
            print("ended %s" % attempt.finish(), flush=True)
            return
        # It let go before it was held: let it end, and try again.
        attempt.wake()
        attempt.finish()
    fail("%s was never caught holding a lock in 20 attempts" % command[0])


if __name__ == "__main__":
    main()
