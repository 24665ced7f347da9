# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""tpm: a login whose PIN is bound to a TPM (swtpm, on loopback, started by scripts/lib/swtpm.sh)
vs. one that is not (hyperfine, alternating), and what the offline search finds of each."""

import contextlib
import os
import signal
from pathlib import Path
from statistics import median

from ..context import Bench, TPM_USER, USER
from ..pam import PIN
from ..process import output
from ..report import Row, meets
from ..timing import Contender, difference, med, ratio, spread


def start_swtpm(bench: Bench, directory: Path) -> str:
    """A software TPM of the row's own, through scripts/lib/swtpm.sh's swtpm_start; returns its TCTI.
    `kill "$(cat DIRECTORY/pid)"` stops it."""
    return output(["bash", "-c", 'source "$1" && swtpm_start "$2" && echo "$TPM_TCTI"', "bash",
                   str(bench.repo / "scripts/lib/swtpm.sh"), str(directory)])


def run(bench: Bench) -> None:
    """Times a TPM-bound login against an unbound one; writes tpm.md and tpm.target."""
    row = Row(bench, "tpm", "A PIN bound to a TPM (swtpm) vs. one that is not")
    directory = bench.work / "swtpm"
    tcti = start_swtpm(bench, directory)
    config = Path(bench.config)
    saved = config.read_text().rstrip("\n")
    try:
        # Bound PINs need their chip whatever tpm= says: tpm=off keeps benchuser's PIN unbound
        # (no binding at its login), tpm=required binds benchtpm's.
        config.write_text(f"{saved}\ntpm=required\ntpm_tcti={tcti}\n")
        bench.set_pin(TPM_USER, PIN)
        config.write_text(f"{saved}\ntpm=off\ntpm_tcti={tcti}\n")
        bench.pam.service("bench-tpm", f"auth required {bench.module}")
        samples = bench.timer.alternate([Contender("unbound", bench.pam.login("bench-tpm", USER)),
                                         Contender("bound", bench.pam.login("bench-tpm", TPM_USER))], bench.rounds)
        a, b = median(samples["bound"]), median(samples["unbound"])
        header = (bench.state / "users" / f"{TPM_USER}.credential").read_text().splitlines()[0]
        row.emit(f"Default argon2 (m=65536 KiB, t=3, p=2) for both; `{header}` for the bound one. A bound",
                 "check adds two TPM connections over loopback TCP (the PIN's counter read before the",
                 "prompt; then PolicySecret with the PIN's index and the unseal); a real chip is slower",
                 "per command than swtpm.",
                 "",
                 "| login | median ms | range ms |",
                 "|---|---:|---:|",
                 f"| PIN not bound | {med(samples['unbound'])} | {spread(samples['unbound'])} |",
                 f"| PIN bound to swtpm | {med(samples['bound'])} | {spread(samples['bound'])} |",
                 "",
                 f"**Added by the TPM: {difference(a, b)} ms** ({ratio(a, b)}×); {bench.rounds} rounds.",
                 "Offline, with the state and the pepper but not the chip: an unbound PIN falls in the",
                 "offline row's time; a bound one cannot be tested at all (`OfflineAttackTests`: the",
                 "documented derivation finds nothing in 10,000 candidates).")
        row.target("tpm: a bound login / an unbound one", ratio(a, b), "≤ 1.2", meets(ratio(a, b), "<=", 1.2))
    finally:
        config.write_text(f"{saved}\n")
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((directory / "pid").read_text()), signal.SIGTERM)
