# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""tune: `secureroom tune --target-ms 300`: how close a login with the proposal lands. The login
and the argon2 CLI with the same parameters are timed with hyperfine, alternating."""

import json
from statistics import median

from ..context import Bench, append
from ..pam import PIN
from ..process import output
from ..report import Row
from ..timing import Contender, med, ratio, spread
from .floor import argon2_cli

TUNED = "tuned"


def trial(measured: dict) -> str:
    """One of tune's trials: its parameters and the time tune measured."""
    return (f"m={measured['memory_kib']} KiB, t={measured['iterations']}, p={measured['lanes']}: "
            f"{measured['milliseconds']} ms")


def run(bench: Bench) -> None:
    """Times a login with tune's proposal against 300 ms; writes tune.md and tune.target."""
    row = Row(bench, "tune", "Tuning: `secureroom tune --target-ms 300`")
    tuned = json.loads(output([str(bench.cli), "tune", "--target-ms", "300", "--json"]))
    proposal = tuned["proposal"]
    m, t, p = (str(proposal[key]) for key in ("memory_kib", "iterations", "lanes"))
    append("/etc/passwd", f"{TUNED}:x:4244:4244::/nonexistent:/usr/sbin/nologin")
    config = bench.work / "tuned.conf"
    config.write_text(f"dir={bench.state}\ntpm=off\nargon2_memory={m}\nargon2_time={t}\nargon2_lanes={p}\n")
    bench.set_pin(TUNED, PIN, "--config", str(config))
    # The module must read the tuned configuration too: with the default one it would check
    # the tuned record once and then re-derive it with the default cost (as any login does
    # for a record whose cost differs from the configured one), and time that instead.
    bench.pam.service("bench-tuned", f"auth required {bench.module} conf={config}")
    samples = bench.timer.alternate([Contender("login", bench.pam.login("bench-tuned", TUNED)),
                                     Contender("cli", argon2_cli(m, t, p))], bench.rounds)
    row.emit(f"`secureroom tune --target-ms 300` tried: {'; '.join(trial(tried) for tried in tuned['trials'])}.",
             f"Its proposal, **m={m} KiB, t={t}, p={p}**, measured by tune at {proposal['milliseconds']} ms, was "
             "then used to enrol a",
             "user, whose whole login was timed against the argon2 CLI with the same parameters.",
             "",
             "| contender | median ms | range ms | vs. 300 ms |",
             "|---|---:|---:|---:|")
    for name, label in (("login", "pamtester login with the proposal"), ("cli", "argon2 CLI, same parameters")):
        row.emit(f"| {label} | {med(samples[name])} | {spread(samples[name])} | {ratio(median(samples[name]), 300)} |")
    row.emit()
    landed = ratio(median(samples["login"]), 300)
    row.target("tune: a login with the proposal / 300 ms", landed, "0.85–1.05",
               "yes" if 0.85 <= float(landed) <= 1.05 else "**no**")
