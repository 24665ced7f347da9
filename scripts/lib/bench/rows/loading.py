# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""loading: a stack that loads pam_secureroom.so without calling it vs. the same stack without
it, and with a minimal static-Swift module instead (the floor). Timed with hyperfine,
alternating; target: within 1.1x the stack without it (issue "A login costs argon2...")."""

from statistics import median

from ..context import Bench, USER
from ..floors import make_floors
from ..report import Row, meets
from ..timing import Contender, difference, med, ratio, spread


def run(bench: Bench) -> None:
    """Times stacks that load a module without calling it; writes loading.md and loading.target."""
    row = Row(bench, "loading", "Loading cost: a stack that loads the module without calling it")
    floors = make_floors(bench.work, bench.repo)
    pam = bench.pam
    pam.service("bench-without", "auth sufficient pam_permit.so")
    pam.service("bench-with", "auth sufficient pam_permit.so", f"auth required {bench.bin}/stripped/pam_secureroom.so")
    pam.service("bench-minimal", "auth sufficient pam_permit.so", f"auth required {floors.minimal_module}")
    rounds = bench.rounds * 4
    samples = bench.timer.alternate([Contender(name, pam.authenticate(f"bench-{name}", USER))
                                     for name in ("without", "with", "minimal")], rounds)
    a, b, c = (median(samples[name]) for name in ("with", "without", "minimal"))
    added, floor = difference(a, b), difference(c, b)
    row.emit("`auth sufficient pam_permit.so` ends the stack before the second module is called, but",
             "libpam has already loaded it: pam_secureroom.so is a small C front that loads the Swift core",
             "(pam_secureroom_core.so, with the static Swift runtime's initialisers) on its first pam_sm_*",
             "call only. For comparison, a minimal static-Swift module built here (one",
             "`pam_sm_authenticate` that returns PAM_IGNORE), which pays the Swift runtime at load; the",
             "module is the stripped one that is installed.",
             "",
             "| stack | median ms | range ms |",
             "|---|---:|---:|",
             f"| pam_permit only | {med(samples['without'])} | {spread(samples['without'])} |",
             f"| pam_permit, then a minimal static-Swift module (not reached) | {med(samples['minimal'])} | "
             f"{spread(samples['minimal'])} |",
             f"| pam_permit, then pam_secureroom (not reached) | {med(samples['with'])} | {spread(samples['with'])} |",
             "",
             f"**Added: {added} ms; a minimal static-Swift module adds {floor} ms** (target: the stack within",
             "1.1× of the same stack without the module);",
             f"{rounds} rounds, timed with hyperfine.")
    row.target("loading: module loaded, not called", f"{added} ms", "< 3 ms", meets(added, "<", 3))
    within = ratio(a, b)
    row.target("loading: stack with the module, not called / without it", within, "≤ 1.1", meets(within, "<=", 1.1))
    row.emit()
