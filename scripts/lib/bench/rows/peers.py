# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""peers: pam_unix (yescrypt) + pam_faillock vs. pam_secureroom: wall time (hyperfine,
alternating) and peak RSS (/usr/bin/time, median of 5)."""

from statistics import median

from ..context import Bench, USER
from ..process import BenchError
from ..report import Row
from ..timing import Contender, med, ratio, spread, time_figure


def run(bench: Bench) -> None:
    """Times and weighs pam_unix + pam_faillock against pam_secureroom; writes peers.md."""
    row = Row(bench, "peers", "Peers: pam_unix (yescrypt) with pam_faillock vs. pam_secureroom")
    faillock = bench.work / "faillock"
    faillock.mkdir(exist_ok=True)
    pam = bench.pam
    pam.service("bench-unix", f"auth required pam_faillock.so preauth dir={faillock}",
                "auth [success=1 default=bad] pam_unix.so",
                f"auth [default=die] pam_faillock.so authfail dir={faillock}",
                f"auth sufficient pam_faillock.so authsucc dir={faillock}")
    pam.service("bench-auth", f"auth required {bench.module}")
    pam.service("bench-permit", "auth required pam_permit.so")
    stacks = {"unix": pam.login("bench-unix", USER), "secureroom": pam.login("bench-auth", USER),
              "permit": pam.authenticate("bench-permit", USER)}
    if stacks["unix"].run() != 0:
        raise BenchError("pam_unix did not accept the bench user's password")
    samples = bench.timer.alternate([Contender(name, command) for name, command in stacks.items()], bench.rounds)
    rss = {name: time_figure("%M", command, bench.work / "time") for name, command in stacks.items()}
    row.emit("The same user and secret (4739) in both: a yescrypt hash in /etc/shadow (Debian's default,",
             "`$y$j9T$`) checked by pam_unix inside the faillock stack of pam_faillock(8), and a PIN",
             "record checked by pam_secureroom at its defaults (argon2id 64 MiB, t=3, p=2). Peak RSS is",
             "pamtester's (/usr/bin/time), median of 5.",
             "",
             "| stack | median ms | range ms | peak RSS KiB |",
             "|---|---:|---:|---:|")
    labels = {"unix": "pam_faillock + pam_unix (yescrypt)", "secureroom": "pam_secureroom",
              "permit": "pam_permit (the host alone)"}
    for name, label in labels.items():
        row.emit(f"| {label} | {med(samples[name])} | {spread(samples[name])} | {rss[name]} |")
    row.emit("",
             f"pam_secureroom takes {ratio(median(samples['secureroom']), median(samples['unix']))}× pam_unix's "
             "time and",
             f"{ratio(rss['secureroom'], rss['unix'])}× its memory: argon2id's 64 MiB against yescrypt's 16 MiB, "
             "by design",
             "(the memory an offline guesser must spend per guess).",
             "")
