# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""size: stripped sizes and start-up of the module, the helper and the tools vs. a static
hello-world Swift program, and vs. the smallest swift-argument-parser tool (what the tools'
parser costs by itself). Start-up timed with hyperfine, alternating. Targets: module <= 7 MB;
helper <= 1.2x, `secureroom status` and `secureroom-vault get` <= 1.5x the hello-world's."""

from pathlib import Path
from statistics import median

from ..context import Bench, USER
from ..floors import argument_parser_floors, make_floors
from ..process import Command, output, run as run_command
from ..report import Row, meets
from ..root_vault import prepare_vault
from ..timing import Contender, fixed, med, ratio, spread


def megabytes(size: int) -> str:
    """Bytes in MB (10^6), two decimals."""
    return fixed(size / 1_000_000, 2)


def text_size(path: Path) -> int:
    """The text column of `size` (code and read-only data)."""
    return int(output(["size", str(path)]).splitlines()[1].split()[0])


def run(bench: Bench) -> None:
    """Measures sizes and start-up against the Swift floor; writes size.md and size.target."""
    row = Row(bench, "size", "Size and start-up: the module, the helper and the tools against the Swift floor")
    floors = make_floors(bench.work, bench.repo)
    parser_floor, parser_linked = argument_parser_floors(bench.work, bench.repo)
    prepare_vault(bench)
    run_command([str(bench.vault), "add", "bench-title"], input=b"bench value\n", check=False, quiet=True)
    stripped = bench.bin / "stripped"
    hello_size = floors.hello.stat().st_size
    row.emit("Stripped as installed (`.build/release/stripped`, debug info in NAME.debug). Text: the",
             "`size` text column (code and read-only data, what is mapped executable or read-only).",
             "",
             "| artifact | on disk MB | text MB | vs. hello-world on disk |",
             "|---|---:|---:|---:|")
    artifacts = {"hello-world": floors.hello, "hello-world, linked as the artifacts": floors.hello_linked,
                 "minimal-module": floors.minimal_module, "minimal argument-parser tool": parser_floor,
                 "minimal argument-parser tool, linked as the artifacts": parser_linked}
    artifacts.update((name, stripped / name) for name in
                     ("pam_secureroom.so", "pam_secureroom_core.so", "secureroom-helper", "secureroom",
                      "secureroom-vault"))
    for name, path in artifacts.items():
        size = path.stat().st_size
        row.emit(f"| {name} | {megabytes(size)} | {megabytes(text_size(path))} | {ratio(size, hello_size)} |")
    # The module: its front, which every stack that lists it loads, and the core it loads when called.
    module_mb = megabytes(sum((stripped / name).stat().st_size
                              for name in ("pam_secureroom.so", "pam_secureroom_core.so")))
    row.emit()
    rounds = bench.rounds * 8
    samples = bench.timer.alternate([
        Contender("truth", Command(("/bin/true",))),
        Contender("hello", Command((str(floors.hello),))),
        Contender("linked", Command((str(floors.hello_linked),))),
        Contender("parser", Command((str(parser_floor), "status", USER))),
        Contender("parser-linked", Command((str(parser_linked), "status", USER))),
        Contender("helper", Command((str(stripped / "secureroom-helper"),))),
        Contender("status", Command((str(stripped / "secureroom"), "status", USER))),
        Contender("get", Command((str(stripped / "secureroom-vault"), "get", "bench-title"))),
    ], rounds)
    h = median(samples["hello"])
    row.emit(f"Start-up, {rounds} rounds each, alternating, timed with hyperfine. The helper runs with no request (it",
             "checks its caller, refuses the usage and exits); `status` reads one user's records;",
             "`get` opens the unlocked vault (10 ms budget) and prints one secret. The floors are linked as",
             "`swiftc -static-stdlib` links by default; the same programs linked as scripts/build links the",
             "artifacts (lld, packed relocations, libstdc++ static) show what those options are worth.",
             "The minimal argument-parser tool is the smallest program on swift-argument-parser that the",
             "tools' `status USER` can be: one subcommand with one argument, which it prints.",
             "",
             "| program | median ms | range ms | vs. hello-world |",
             "|---|---:|---:|---:|")
    programs = {"truth": "/bin/true", "hello": "static hello-world Swift",
                "linked": "static hello-world Swift, linked as the artifacts",
                "parser": "minimal argument-parser tool, `status USER`",
                "parser-linked": "minimal argument-parser tool, linked as the artifacts",
                "helper": "secureroom-helper",
                "status": "secureroom status USER", "get": "secureroom-vault get TITLE"}
    for name, label in programs.items():
        row.emit(f"| {label} | {med(samples[name])} | {spread(samples[name])} | {ratio(median(samples[name]), h)} |")
    row.emit()
    row.target("size: module stripped (front and core)", f"{module_mb} MB", "≤ 7 MB", meets(module_mb, "<=", 7))
    for name, label, limit in (("helper", "helper start", 1.2), ("status", "secureroom status", 1.5),
                               ("get", "secureroom-vault get", 1.5)):
        figure = ratio(median(samples[name]), h)
        row.target(f"size: {label} / hello-world", figure, f"≤ {limit}", meets(figure, "<=", limit))
