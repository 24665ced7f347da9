# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Running the bench's commands: what a command is (arguments, standard input, variables of its
own) and how it is started, traced when BENCH_TRACE is set (as `bash -x` traced the inner run of
the bash version)."""

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

TRACE = bool(os.environ.get("BENCH_TRACE"))


class BenchError(Exception):
    """A row cannot go on: scripts/bench prints the message after "bench: " and exits 1."""


def trace(argv: Sequence[str], env: Optional[Mapping[str, str]] = None) -> None:
    """Prints the command about to run on stderr, its own variables first, when BENCH_TRACE is set."""
    if TRACE:
        assignments = [f"{name}={value}" for name, value in (env or {}).items()]
        print("+ " + shlex.join([*assignments, *argv]), file=sys.stderr, flush=True)


def environment(env: Optional[Mapping[str, str]]) -> dict:
    """This process's environment with `env` added."""
    return {**os.environ, **(env or {})}


def stdin(input: Optional[bytes]) -> dict:
    """subprocess.run's arguments for a standard input of `input`, or of /dev/null."""
    return {"stdin": subprocess.DEVNULL} if input is None else {"input": input}


@dataclass(frozen=True)
class Command:
    """One process to run: its arguments, the bytes it reads on standard input (none: /dev/null)
    and the variables it gets besides the bench's own."""

    argv: Sequence[str]
    input: Optional[bytes] = None
    env: Mapping[str, str] = field(default_factory=dict)

    def run(self, check: bool = False, quiet: bool = True) -> int:
        """Runs the command, its output discarded (its errors too when quiet); returns its exit
        status, or raises BenchError when check is set and it failed."""
        return run(self.argv, input=self.input, env=self.env, check=check, quiet=quiet)

    def output(self) -> str:
        """Runs the command and returns what it printed, standard error included (as `$(cmd 2>&1)`)."""
        trace(self.argv, self.env)
        done = subprocess.run(self.argv, env=environment(self.env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              check=False, **stdin(self.input))
        return done.stdout.decode().rstrip("\n")


def run(argv: Sequence[str], *, input: Optional[bytes] = None, env: Optional[Mapping[str, str]] = None,
        check: bool = True, quiet: bool = False) -> int:
    """Runs argv with its standard output discarded; standard error too when quiet. With check, a
    failure raises BenchError; otherwise the exit status is returned."""
    trace(argv, env)
    done = subprocess.run(argv, env=environment(env), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL if quiet else None, check=False, **stdin(input))
    if check and done.returncode != 0:
        raise BenchError(f"`{shlex.join(argv)}` exited with status {done.returncode}")
    return done.returncode


def output(argv: Sequence[str], *, input: Optional[bytes] = None, env: Optional[Mapping[str, str]] = None) -> str:
    """What argv prints on standard output (its last newline removed); a failure raises BenchError."""
    trace(argv, env)
    done = subprocess.run(argv, env=environment(env), stdout=subprocess.PIPE, check=False, **stdin(input))
    if done.returncode != 0:
        raise BenchError(f"`{shlex.join(argv)}` exited with status {done.returncode}")
    return done.stdout.decode().rstrip("\n")
