# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Timing whole processes with hyperfine, contenders alternating, and the figures made of the
samples (Python's `statistics`).

Each round is one `hyperfine -N --runs 1` invocation that runs every contender once, in turn,
after a warm-up round that is discarded; `--export-json` gives each run's wall time and exit
status. A contender that needs standard input or variables of its own runs as
`sh -c 'export ...; exec CMD < FILE'`, and so then does every contender of its comparison.
Why this way and not hyperfine's own runs per command: scripts/bench's header, "Timing".
"""

import hashlib
import json
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Callable, Dict, List, Optional, Sequence, Union

from .process import BenchError, Command, run, trace

Samples = Dict[str, List[float]]
"""Milliseconds per contender, one figure per round."""


@dataclass(frozen=True)
class Contender:
    """A named command in a comparison; a function makes a new command for every run (a new
    title for each `add`, say)."""

    name: str
    command: Union[Command, Callable[[], Command]]

    def next_command(self) -> Command:
        """The command of the next run."""
        return self.command() if callable(self.command) else self.command


@dataclass(frozen=True)
class Run:
    """One timed run: its wall time and its exit status."""

    ms: float
    status: int


class Timer:
    """Runs hyperfine for the rows; its scratch files (inputs, the JSON export) live in `work`."""

    def __init__(self, work: Path):
        self.inputs = work / "inputs"
        self.inputs.mkdir(parents=True, exist_ok=True)
        self.export = work / "hyperfine.json"

    def alternate(self, contenders: Sequence[Contender], rounds: int, must_succeed: Sequence[str] = ()) -> Samples:
        """A warm-up round, then `rounds` rounds each running every contender once, in turn.
        Exit statuses are not checked (a comparison may time refusals), but for the contenders
        named in `must_succeed`, whose every run must exit 0 (else BenchError)."""
        samples: Samples = {contender.name: [] for contender in contenders}
        unknown = set(must_succeed) - set(samples)
        if unknown:
            raise BenchError(f"must_succeed names no contender: {sorted(unknown)}")
        for number in range(rounds + 1):
            runs = self._hyperfine([contender.next_command() for contender in contenders])
            for contender, timed in zip(contenders, runs):
                if contender.name in must_succeed and timed.status != 0:
                    when = f"round {number}" if number else "the warm-up round"
                    raise BenchError(f"{contender.name} exited with status {timed.status} in {when}")
                if number:
                    samples[contender.name].append(timed.ms)
        return samples

    def once(self, command: Command, what: str = "") -> float:
        """Milliseconds of one run of `command`, no warm-up. With `what`, a failure raises
        BenchError saying what failed."""
        timed = self._hyperfine([command])[0]
        if what and timed.status != 0:
            raise BenchError(f"{what} failed (exit status {timed.status})")
        return timed.ms

    def _hyperfine(self, commands: Sequence[Command]) -> List[Run]:
        """One hyperfine invocation running each command once, in order."""
        wrapped = any(command.input is not None or command.env for command in commands)
        argv = ["hyperfine", "-N", "--runs", "1", "--ignore-failure", "--style", "none",
                "--export-json", str(self.export), *(self._render(command, wrapped) for command in commands)]
        trace(argv)
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              check=False)
        if done.returncode != 0:
            raise BenchError(f"hyperfine failed: {done.stderr.decode().strip()}")
        results = json.loads(self.export.read_text())["results"]
        return [Run(result["times"][0] * 1000, result["exit_codes"][0]) for result in results]

    def _render(self, command: Command, wrapped: bool) -> str:
        """The command line hyperfine -N runs: the arguments themselves, or (wrapped) a shell that
        sets the command's variables and execs it with its input on standard input."""
        if not wrapped:
            return shlex.join(command.argv)
        exports = "".join(f"export {name}={shlex.quote(value)}; " for name, value in command.env.items())
        script = f"{exports}exec {shlex.join(command.argv)} < {shlex.quote(self._input_file(command.input))}"
        return shlex.join(["sh", "-c", script])

    def _input_file(self, data: Optional[bytes]) -> str:
        """A file holding `data` (named by its hash, so each is written once), or /dev/null."""
        if data is None:
            return "/dev/null"
        path = self.inputs / hashlib.sha256(data).hexdigest()[:16]
        if not path.exists():
            path.write_bytes(data)
        return str(path)


def time_figure(specifier: str, command: Command, scratch: Path) -> int:
    """A figure of /usr/bin/time (-f %M peak RSS KiB, %P CPU) for `command`, the median of 5 runs.
    The command's variables apply to /usr/bin/time too (LD_PRELOAD: the figure is the command's)."""
    figures = []
    for _ in range(5):
        run(["/usr/bin/time", "-f", specifier, "-o", str(scratch), *command.argv], input=command.input,
            env=command.env, check=False, quiet=True)
        figures.append(int(scratch.read_text().splitlines()[-1].rstrip("%")))
    return int(median(figures))


def fixed(value: float, decimals: int = 3) -> str:
    """`value` with `decimals` decimals."""
    return f"{value:.{decimals}f}"


def med(values: Sequence[float]) -> str:
    """The median of millisecond samples, as the tables print it."""
    return fixed(median(values))


def spread(values: Sequence[float]) -> str:
    """The range of millisecond samples: min–max."""
    return f"{fixed(min(values))}–{fixed(max(values))}"


def ratio(a: float, b: float, decimals: int = 3) -> str:
    """a / b."""
    return fixed(a / b, decimals)


def difference(a: float, b: float) -> str:
    """a - b, in hundredths."""
    return fixed(a - b, 2)
