# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""offline: an offline search of all 10,000 PINs by someone holding the state AND the pepper:
libargon2 with the record's parameters, one at a time (one process, timed with hyperfine) and one
per core at once (timed here around the processes, which run together); the time for all 10,000
and the expected time (half)."""

import subprocess
import time

from ..context import Bench, USER
from ..process import Command, trace
from ..report import Row, cpus
from ..timing import fixed

SEARCH = r"""#include <argon2.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned char out[32];
    char pin[8];
    for (int i = 0; i < atoi(argv[4]); i++) {
        snprintf(pin, sizeof pin, "%04d", i);
        if (argon2id_hash_raw(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), pin, 4, "benchsaltbenchsa", 16,
                              out, 32) != 0)
            return 1;
    }
    return 0;
}
"""
"""The attacker's inner loop: libargon2 with the record's parameters (the pepper and the associated
data are inputs, not costs), K candidate PINs."""


def minutes(ms_per_pin: float) -> str:
    """The minutes all 10,000 PINs take at `ms_per_pin`."""
    return fixed(ms_per_pin * 10000 / 60000, 1)


def run(bench: Bench) -> None:
    """Times the offline search, one process and one per core; writes offline.md and offline.target."""
    row = Row(bench, "offline", "Offline search: all 10,000 PINs, given the state and the pepper")
    k = 8 if bench.quick else 40
    m, t, p = (bench.record_value(USER, key) for key in ("memory-kib", "iterations", "lanes"))
    cores = cpus()
    source = bench.work / "argon2-search.c"
    source.write_text(SEARCH)
    search = [str(bench.compile_c(source, bench.work / "argon2-search", libraries=["-largon2"])), t, m, p, str(k)]
    sequential = bench.timer.once(Command(search), "the offline search") / 1000
    trace(search)
    start = time.perf_counter()
    for process in [subprocess.Popen(search) for _ in range(cores)]:
        process.wait()
    parallel = time.perf_counter() - start
    per_one = fixed(1000 * sequential / k, 1)
    per_all = fixed(1000 * parallel / (k * cores), 1)
    best = min(per_one, per_all, key=float)
    expected = fixed(float(minutes(float(best))) / 2, 1)
    row.emit(f"argon2id m={m} KiB, t={t}, p={p} (the record's parameters, the defaults), Debian's libargon2,",
             f"{k} candidates per process. The pepper and the user's name are inputs to argon2, not extra",
             "work: whoever holds them pays one argon2 run per candidate, nothing more. The lockout",
             "record's tags of wrong guesses are derived from argon2 outputs (FORMAT.md §2): searching",
             "them costs the same per candidate.",
             "",
             "| way | ms per PIN | all 10,000 PINs |",
             "|---|---:|---:|",
             f"| one at a time ({p} threads) | {per_one} | {minutes(float(per_one))} min |",
             f"| {cores} at once (one per core) | {per_all} | {minutes(float(per_all))} min |",
             "",
             f"**All 10,000 PINs in {minutes(float(best))} min on this machine; a PIN falls in {expected} min on "
             "average.**",
             "A GPU or more cores divide this further. Only a TPM, which takes part in every guess and",
             "counts failures, changes the order of magnitude (docs/SECURITY.md §1).")
    row.target(f"offline: all 10,000 PINs, state + pepper, {cores} cores", f"{minutes(float(best))} min",
               "(a figure, not a target)", "—")
