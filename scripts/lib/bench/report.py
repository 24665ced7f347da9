# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""What the rows write: ROW.md (a section of docs/BENCHMARKS.md) and ROW.target (its lines of
the targets' table), in .build/bench; then, unless --quick, the copies kept in docs/bench and
docs/BENCHMARKS.md assembled from them."""

import datetime
import os
import platform
import re
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from .context import Bench


def cpu_model() -> str:
    """The first `model name` of /proc/cpuinfo."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def cpus() -> int:
    """The CPUs this process may run on (what nproc prints)."""
    return len(os.sched_getaffinity(0))


def commit_measured(repo: Path) -> str:
    """The commit the figures measure, "+changes" when tracked files (docs aside) differ from it."""
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    commit = head.stdout.strip() if head.returncode == 0 else "unknown"
    clean = subprocess.run(["git", "-C", str(repo), "diff", "--quiet", "HEAD", "--", ".", ":!docs"],
                           capture_output=True).returncode == 0
    return commit if clean else commit + "+changes"


def meets(figure: str, operator: str, limit: float) -> str:
    """"yes" when the figure as printed holds `operator limit` (<=, < or >=), else a bold "no"."""
    value = float(figure)
    holds = {"<=": value <= limit, "<": value < limit, ">=": value >= limit}[operator]
    return "yes" if holds else "**no**"


class Row:
    """One row's output files: OUT/NAME.md, begun with the row's title and what was measured when,
    and OUT/NAME.target, begun empty."""

    def __init__(self, bench: Bench, name: str, title: str):
        self.markdown = bench.out / f"{name}.md"
        self.targets = bench.out / f"{name}.target"
        self.targets.write_text("")
        rebuilt = "" if bench.rebuilt else " (BENCH_BUILD=0: .build/release as found, not rebuilt)"
        today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        self.markdown.write_text("")
        self.emit(f"## {title}", "")
        if bench.quick:
            self.emit(f"*Quick run (--quick): smaller scales, {bench.rounds} rounds; not for comparison.*", "")
        self.emit(f"*Measured at commit {commit_measured(bench.repo)}{rebuilt}, {today}, "
                  f"on {cpu_model()} ({cpus()} CPUs).*", "")

    def emit(self, *lines: str) -> None:
        """Appends lines to ROW.md; with none, an empty line."""
        with self.markdown.open("a") as markdown:
            markdown.write("".join(line + "\n" for line in lines or ("",)))

    def target(self, label: str, figure: str, target: str, met: str) -> None:
        """One line of the targets' table, in ROW.target."""
        with self.targets.open("a") as targets:
            targets.write(f"| {label} | {figure} | {target} | {met} |\n")


def keep(bench: Bench, rows: Sequence[str]) -> None:
    """Copies the rows' ROW.md and ROW.target into docs/bench."""
    kept = bench.repo / "docs" / "bench"
    kept.mkdir(parents=True, exist_ok=True)
    for row in rows:
        for suffix in (".md", ".target"):
            shutil.copy(bench.out / f"{row}{suffix}", kept / f"{row}{suffix}")


def machine() -> Sequence[str]:
    """The lines of the Machine section: CPU, memory, kernel and system, Swift, the peers' versions."""
    kib = int(re.search(r"^MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text(), re.M).group(1))
    release = dict(re.findall(r'^(\w+)="?(.*?)"?$', Path("/etc/os-release").read_text(), re.M))
    swift = "/opt/swift/usr/bin/swift" if Path("/opt/swift/usr/bin/swift").exists() else "swift"
    swift_version = subprocess.run([swift, "--version"], capture_output=True, text=True)
    peers = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}, ", "libpam-modules", "argon2", "pass",
                            "gnupg", "libsecret-tools", "gnome-keyring"], capture_output=True, text=True)
    return [
        f"- CPU of the latest run (each row names its own): {cpu_model()}, {cpus()} online",
        f"- Memory: {kib / 1048576:.1f} GiB",
        f"- Kernel: {platform.release()}; {release.get('PRETTY_NAME', '')}",
        f"- {(swift_version.stdout or swift_version.stderr).splitlines()[0]}",
        f"- Peers: {peers.stdout.removesuffix(', ')}",
    ]


def assemble(bench: Bench, all_rows: Sequence[str]) -> Path:
    """docs/BENCHMARKS.md: the machine, the targets of every row kept in docs/bench, every row kept
    there (or a line saying it is not measured yet); runs of empty lines squeezed to one (cat -s).
    The reading of the figures is hand-written in docs/BENCHMARKS.notes.md, which the page names
    but does not copy."""
    docs = bench.repo / "docs"
    kept = docs / "bench"
    text = [
        "# Benchmarks", "",
        "Made by `scripts/bench` (see its header for what each row runs) from the rows kept in",
        "docs/bench/, each from one real run on the machine below, at the commit it names. Medians",
        "of alternating runs, each whole process timed by hyperfine; no pass/fail on absolute times.",
        "Re-run a row with `scripts/bench ROW`; the other rows keep their last figures. What the",
        "misses mean is written by hand in docs/BENCHMARKS.notes.md.", "",
        "## Machine", "",
        *machine(), "",
        "## Targets", "",
        "| row | figure | target | met |",
        "|---|---|---|---|",
    ]
    text += [line for row in all_rows if (kept / f"{row}.target").exists()
             for line in (kept / f"{row}.target").read_text().splitlines()]
    text.append("")
    for row in all_rows:
        section = kept / f"{row}.md"
        if section.exists():
            text += section.read_text().splitlines()
        else:
            text += [f"## {row}", "", f"Not measured yet: `scripts/bench {row}`."]
        text.append("")
    document = docs / "BENCHMARKS.md"
    document.write_text(re.sub(r"\n{3,}", "\n\n", "\n".join(text) + "\n"))
    return document
