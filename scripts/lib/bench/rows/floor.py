# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""floor: what a login spends beyond argon2. A full PAM authentication (pamtester under
pam_wrapper) against the same host with pam_permit, with argon2's own time taken inside the
login (an LD_PRELOAD shim around libargon2's argon2id_ctx); and, for reference, against the
argon2 CLI with the same parameters and input and one call of libargon2 from C. Timed with
hyperfine, alternating. Target: the login's work beyond argon2 <= 5% of argon2."""

import itertools
from statistics import median
from typing import Callable

from ..context import Bench, USER
from ..pam import PIN, PIN_TYPED
from ..process import BenchError, Command, output
from ..report import Row, meets
from ..timing import Contender, fixed, med, ratio, spread

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
    """Times a login against the host and argon2 inside it; writes floor.md and floor.target."""
    row = Row(bench, "floor", "What a login spends beyond argon2")
    m, t, p = (bench.record_value(USER, key) for key in ("memory-kib", "iterations", "lanes"))
    bench.pam.service("bench-auth", f"auth required {bench.module}")
    bench.pam.service("bench-host", "auth required pam_permit.so")
    timer = bench.compile_c(bench.repo / "Tests/PAMModuleTests/Fixtures/argon2-counter.c",
                            bench.work / "argon2-counter.so", "-shared", "-fPIC", libraries=["-ldl"])
    timings = bench.work / "argon2-timings"
    timings.mkdir()
    runs = itertools.count()

    def timed(service: str) -> Callable[[], Command]:
        """SERVICE's login under the shim, which both the login and the host carry (so that
        loading it is not counted as the module's); each run writes to a file of its own."""
        def command() -> Command:
            log = timings / f"{service}-{next(runs)}"
            log.write_text("")
            return bench.pam.authenticate(service, USER, preload=str(timer), typed=PIN_TYPED,
                                          env={"ARGON2_TIMER_FILE": str(log)})
        return command

    source = bench.work / "argon2-library.c"
    source.write_text(LIBRARY_CALL)
    library = bench.compile_c(source, bench.work / "argon2-library", libraries=["-largon2"])
    # Argon2's time varies by tens of milliseconds between runs on a shared machine: three
    # times the rounds. Each round's login is paired with the argon2 inside it.
    rounds = bench.rounds * 3
    samples = bench.timer.alternate([
        Contender("pam", timed("bench-auth")),
        Contender("host", timed("bench-host")),
        Contender("cli", argon2_cli(m, t, p)),
        Contender("library", Command((str(library), t, m, p))),
    ], rounds, must_succeed=("pam", "host"))
    # Every login ran argon2 exactly once, the host never; the first login was the warm-up's.
    logins = sorted(timings.glob("bench-auth-*"), key=lambda log: int(log.name.rsplit("-", 1)[1]))
    lines = [log.read_text().split() for log in logins]
    counts = [len(login) for login in lines]
    if counts != [1] * (rounds + 1) or any(log.read_text() for log in timings.glob("bench-host-*")):
        raise BenchError(f"argon2 runs per login: {counts}; one each expected, none in the host")
    inside = [int(login[0]) / 1e6 for login in lines[1:]]
    beyond = [login_ms - argon2_ms - host_ms
              for login_ms, argon2_ms, host_ms in zip(samples["pam"], inside, samples["host"])]
    shares = [extra / argon2_ms for extra, argon2_ms in zip(beyond, inside)]
    share = fixed(median(shares) * 100, 1)
    a, b, c = (median(samples[name]) for name in ("pam", "cli", "library"))
    row.emit(f"argon2id m={m} KiB, t={t}, p={p} (the defaults). `pamtester` under pam_wrapper runs the",
             "whole transaction: process start, libpam, loading the module, the conversation, the pepper,",
             "records read, argon2, records written. The host is the same pamtester with `pam_permit`",
             "instead. argon2's own time is taken inside each login by an LD_PRELOAD shim around",
             "libargon2's `argon2id_ctx` (its memory's allocation included), which both carry.",
             "",
             "| contender | median ms | range ms |",
             "|---|---:|---:|",
             f"| pamtester + pam_secureroom, right PIN | {med(samples['pam'])} | {spread(samples['pam'])} |",
             f"| argon2 inside that login | {med(inside)} | {spread(inside)} |",
             f"| the host: pamtester + pam_permit | {med(samples['host'])} | {spread(samples['host'])} |",
             f"| beyond argon2 and the host (each login less its own argon2 and its round's host) | "
             f"{med(beyond)} | {spread(beyond)} |",
             f"| argon2 CLI, same parameters | {med(samples['cli'])} | {spread(samples['cli'])} |",
             f"| libargon2 called once from C, same parameters | {med(samples['library'])} | "
             f"{spread(samples['library'])} |",
             "",
             f"**Beyond argon2: {share}% of argon2** (median of the rounds' shares; target ≤ 5%), "
             f"{rounds} rounds.",
             f"Whole processes: the login takes {ratio(a, b)}× the argon2 CLI and {ratio(a, c)}× the C program",
             "that calls libargon2 once; both include their own process start, and Debian's `argon2`",
             "CLI does not use libargon2.so.1 (ldd: libc only): it carries its own build of the code",
             f"({xmm_instructions('/usr/bin/argon2')} SSE instructions against the library's "
             f"{xmm_instructions(str(bench.lib / 'libargon2.so.1'))}), and",
             f"the library alone takes {ratio(c, b)}× the CLI's time here.")
    row.target("floor: a login beyond argon2 and the host / argon2", f"{share}%", "≤ 5%", meets(share, "<=", 5))
    row.emit()
