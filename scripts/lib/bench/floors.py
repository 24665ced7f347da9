# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The Swift floors of the loading and size rows: what the static Swift runtime costs by itself,
built here with the same toolchain as `swiftc -static-stdlib` links by default (the floors
the targets were set against): a hello-world program, a PAM module whose
pam_sm_authenticate returns PAM_IGNORE, and, for the size row only, the smallest
swift-argument-parser tool (one subcommand with one argument; the checkout the tools use).
Also the hello-world and that tool linked as scripts/build links the artifacts (it writes
those options to .build/swift-link-flags: lld, packed relocations, libstdc++ static; not
the module's version script and -z nodelete, nor the package's -z now), to show what the
options are worth. All stripped as the installed artifacts are."""

from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

from .process import BenchError, run

HELLO = 'print("hello")\n'
MINIMAL_MODULE = """@_cdecl("pam_sm_authenticate")
public func authenticate(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                         _ argv: UnsafePointer<UnsafePointer<CChar>?>?) -> Int32 { 25 }  // PAM_IGNORE
"""


@dataclass(frozen=True)
class Floors:
    """The stripped hello-world programs and minimal module."""

    hello: Path
    minimal_module: Path
    hello_linked: Path
    """The hello-world linked with scripts/build's options."""


ARGUMENT_PARSER_PACKAGE = """// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "floor",
    dependencies: [.package(path: "{checkout}")],
    targets: [.executableTarget(name: "floor", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")])])
"""
ARGUMENT_PARSER_MAIN = """import ArgumentParser
struct Status: ParsableCommand {
    @Argument(help: "A user.") var user: String
    func run() { print(user) }
}
struct Tool: ParsableCommand {
    static let configuration = CommandConfiguration(subcommands: [Status.self])
}
Tool.main()
"""


def link_flags(repo: Path) -> List[str]:
    """The swiftc options scripts/build links every Swift artifact with (beside the module's
    version script and -z nodelete)."""
    recorded = repo / ".build" / "swift-link-flags"
    if not recorded.is_file():
        raise BenchError(f"{recorded} is missing: run scripts/build first")
    return recorded.read_text().split("\n")[:-1]


def make_floors(work: Path, repo: Path) -> Floors:
    """Builds the hello-world (twice: as swiftc links by default, and linked as the artifacts)
    and the minimal module in WORK/floor, once for the rows that need them."""
    directory = work / "floor"
    floors = Floors(directory / "hello", directory / "minimal.so", directory / "hello-linked")
    if floors.hello_linked.exists():
        return floors
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hello.swift").write_text(HELLO)
    (directory / "minimal.swift").write_text(MINIMAL_MODULE)
    run(["swiftc", "-O", "-static-stdlib", str(directory / "hello.swift"), "-o", str(directory / "hello.full")])
    run(["swiftc", "-O", "-static-stdlib", "-emit-library", str(directory / "minimal.swift"),
         "-o", str(directory / "minimal.full.so")])
    run(["swiftc", "-O", *link_flags(repo), str(directory / "hello.swift"), "-o", str(directory / "hello-linked.full")])
    for full, stripped in (("hello.full", floors.hello), ("minimal.full.so", floors.minimal_module),
                           ("hello-linked.full", floors.hello_linked)):
        run(["strip", "--strip-unneeded", "-o", str(stripped), str(directory / full)])
    return floors


def argument_parser_floors(work: Path, repo: Path) -> Tuple[Path, Path]:
    """Builds the smallest swift-argument-parser tool in WORK/floor, on REPO's checkout of the
    parser (.build/checkouts, made by scripts/build): stripped, as swiftc links by default and
    linked as the artifacts."""
    checkout = repo / ".build" / "checkouts" / "swift-argument-parser"
    if not checkout.is_dir():
        raise BenchError(f"{checkout} is missing: run scripts/build first")
    programs = (work / "floor" / "argument-parser", work / "floor" / "argument-parser-linked")
    if all(program.exists() for program in programs):
        return programs
    for program, flags in zip(programs, (["-static-stdlib"], link_flags(repo))):
        package = work / "floor" / f"{program.name}-package"
        (package / "Sources" / "floor").mkdir(parents=True, exist_ok=True)
        (package / "Package.swift").write_text(ARGUMENT_PARSER_PACKAGE.replace("{checkout}", str(checkout)))
        (package / "Sources" / "floor" / "main.swift").write_text(ARGUMENT_PARSER_MAIN)
        to_swiftc = [option for flag in flags for option in ("-Xswiftc", flag)]
        run(["swift", "build", "-c", "release", "--package-path", str(package), *to_swiftc])
        run(["strip", "--strip-unneeded", "-o", str(program), str(package / ".build" / "release" / "floor")])
    return programs
