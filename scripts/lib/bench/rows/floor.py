# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""floor: a full PAM authentication (pamtester under pam_wrapper) vs. the argon2 CLI with the
same parameters and input, and vs. one call of libargon2 (the module's library) from C.
Timed with hyperfine, alternating."""

from statistics import median

from ..context import Bench, USER
from ..pam import PIN
from ..process import BenchError, Command, output
from ..report import Row, meets
from ..timing import Contender, difference, med, ratio, spread

LIBRARY_CALL = r"""#include <argon2.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    unsigned char out[32];
    return argon2id_hash_raw(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), "4739", 4, "benchsaltbenchsa", 16, out, 32);
}
"""


def argon2_cli(memory_kib: str, iterations: str, lanes: str) -> Command:
    """Debian's argon2 CLI hashing the PIN with a 16-byte salt and the given cost."""
    return Command(("argon2", "benchsaltbenchsa", "-id", "-t", iterations, "-k", memory_kib, "-p", lanes, "-l", "32",
                    "-r"), PIN.encode())


def xmm_instructions(binary: str) -> int:
    """How many of the binary's disassembled instructions use SSE registers."""
    return sum("xmm" in line for line in output(["objdump", "-d", binary]).splitlines())


def run(bench: Bench) -> None:
    """Times a login against the argon2 CLI and libargon2; writes floor.md and floor.target."""
    row = Row(bench, "floor", "Overhead over the floor: one login vs. the argon2 CLI")
    m, t, p = (bench.record_value(USER, key) for key in ("memory-kib", "iterations", "lanes"))
    bench.pam.service("bench-auth", f"auth required {bench.module}")
    login = bench.pam.login("bench-auth", USER)
    source = bench.work / "argon2-library.c"
    source.write_text(LIBRARY_CALL)
    library = bench.compile_c(source, bench.work / "argon2-library", libraries=["-largon2"])
    if login.run() != 0:
        raise BenchError("the right PIN did not authenticate")
    # Argon2's time varies by tens of milliseconds between runs on a shared machine: three
    # times the rounds.
    samples = bench.timer.alternate([
        Contender("pam", login),
        Contender("cli", argon2_cli(m, t, p)),
        Contender("library", Command((str(library), t, m, p))),
    ], bench.rounds * 3)
    a, b, c = (median(samples[name]) for name in ("pam", "cli", "library"))
    row.emit(f"argon2id m={m} KiB, t={t}, p={p} (the defaults). `pamtester` under pam_wrapper runs the",
             "whole transaction: process start, libpam, loading the module, the conversation, the pepper,",
             "records read, argon2, records written. `argon2` (Debian's CLI) hashes the same PIN with the",
             "same parameters and a 16-byte salt, without pepper or associated data.",
             "",
             "| contender | median ms | range ms |",
             "|---|---:|---:|",
             f"| pamtester + pam_secureroom, right PIN | {med(samples['pam'])} | {spread(samples['pam'])} |",
             f"| argon2 CLI, same parameters | {med(samples['cli'])} | {spread(samples['cli'])} |",
             f"| libargon2 called once from C, same parameters | {med(samples['library'])} | "
             f"{spread(samples['library'])} |",
             "",
             f"**Ratio {ratio(a, b)}** (target ≤ 1.05); overhead {difference(a, b)} ms over the CLI,",
             f"{difference(a, c)} ms (ratio {ratio(a, c)}) over the library the module links. Debian's `argon2`",
             "CLI does not use libargon2.so.1 (ldd: libc only); it carries its own build of the code",
             f"({xmm_instructions('/usr/bin/argon2')} SSE instructions against the library's "
             f"{xmm_instructions(str(bench.lib / 'libargon2.so.1'))}), and",
             f"the library alone takes {ratio(c, b)}× the CLI's time here.")
    for label, figure in (("floor: login / argon2 CLI", ratio(a, b)),
                          ("floor: login / libargon2 from C (the module's library)", ratio(a, c))):
        row.target(label, figure, "≤ 1.05", meets(figure, "<=", 1.05))
    row.emit()
