# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""attack: 1,000 concurrent wrong PINs for one user: argon2 runs (counted by an LD_PRELOAD
shim) vs. the policy's allowance, and the time until refusals are instant. The attempts run at
once (posix_spawn, one after the other, no waiting), so each is timed here, from its start to its
exit as os.waitpid sees it, on the wall clock (the lockout record's modification time is compared
with it)."""

import json
import os
import time
from typing import Dict, List, Tuple

from ..context import Bench, append
from ..pam import PIN
from ..process import environment, output, trace
from ..report import Row
from ..timing import fixed, med

VICTIM = "victim"


def run(bench: Bench) -> None:
    """Storms one user with wrong PINs, then times refusals; writes attack.md and attack.target."""
    row = Row(bench, "attack", "Under attack: concurrent wrong PINs for one user")
    attackers = 100 if bench.quick else 1000
    append("/etc/passwd", f"{VICTIM}:x:4243:4243::/nonexistent:/usr/sbin/nologin")
    bench.set_pin(VICTIM, PIN)
    counter = bench.compile_c(bench.repo / "Tests/PAMModuleTests/Fixtures/argon2-counter.c",
                              bench.work / "argon2-counter.so", "-shared", "-fPIC", libraries=["-ldl"])
    count_file = bench.work / "argon2-count"
    count_file.write_text("")
    # nodelay: libpam's failure delay (2 s by default) is a sleep, not work; leaving it out
    # shows when the answers become instant.
    bench.pam.service("bench-attack", f"auth required {bench.module} nodelay")

    attempts = bench.work / "attempts"
    attempts.mkdir()

    def attempt(pin: int) -> Tuple[int, float]:
        """Starts one wrong attempt, PIN as typed; returns its pid and the wall-clock time it started."""
        command = bench.pam.authenticate("bench-attack", VICTIM, preload=str(counter),
                                         env={"ARGON2_COUNTER_FILE": str(count_file)})
        typed = attempts / f"{pin:04d}"
        typed.write_text(f"{pin:04d}\n")
        trace(command.argv, command.env)
        start = time.time()
        return os.posix_spawnp(command.argv[0], command.argv, environment(command.env), file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, str(typed), os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ]), start

    def answered(started: Dict[int, float]) -> List[float]:
        """Waits for the attempts started (pid: start); returns each one's milliseconds, start to exit."""
        ms = []
        while started:
            pid, _ = os.waitpid(-1, 0)
            if pid in started:
                ms.append((time.time() - started.pop(pid)) * 1000)
        return ms

    # Distinct wrong PINs (a repeated guess is not counted again): 0000, 0001, ... without 4739.
    wrong = [pin for pin in range(attackers + 1) if pin != int(PIN)][:attackers]
    storm_start = time.time()
    answers = answered(dict(attempt(pin) for pin in wrong))
    storm_end = time.time()
    engaged = (bench.state / "users" / f"{VICTIM}.lockout").stat().st_mtime_ns / 1e9
    runs = count_file.stat().st_size
    failures = json.loads(output([str(bench.cli), "status", VICTIM, "--json"]))["failures"]
    # The allowance: failures before the first delay of the schedule (or deny).
    allowance = json.loads(output([str(bench.cli), "policy", "show", "--json"]))["schedule"][0]["failures"]
    # After the storm: one more wrong attempt at a time, timed, against the locked tally.
    locked = [answered(dict([attempt(9000 + i)]))[0] for i in range(bench.rounds)]
    last_runs = count_file.stat().st_size
    row.emit(f"{attackers} processes start at once, each one pamtester transaction with a different wrong",
             "PIN for the same user (service with `nodelay`; libpam's failure delay is a sleep). argon2",
             "runs are counted by an LD_PRELOAD shim around libargon2's argon2id_ctx.",
             "",
             "| measure | value |",
             "|---|---:|",
             f"| attempts | {attackers} |",
             f"| argon2 runs | **{runs}** |",
             f"| policy's allowance (failures before the first delay) | {allowance} |",
             f"| failures recorded | {failures} |",
             f"| all {attackers} answered after | {fixed((storm_end - storm_start) * 1000, 0)} ms |",
             f"| lockout in force after (last write of the lockout record) | "
             f"{fixed((engaged - storm_start) * 1000, 0)} ms |",
             f"| one attempt, process start to exit, median during the storm | {med(answers)} ms |",
             f"| one wrong attempt after the lockout, median of {bench.rounds} | {med(locked)} ms |",
             f"| argon2 runs by those {bench.rounds} attempts | {last_runs - runs} |",
             "")
    row.target(f"attack: argon2 runs for {attackers} wrong PINs", str(runs), f"= allowance ({allowance})",
               "yes" if runs == allowance else "**no**")
