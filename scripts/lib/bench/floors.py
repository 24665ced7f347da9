# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The Swift floors of the loading and size rows: what the static Swift runtime costs by itself,
built here with the same toolchain: a hello-world program, a PAM module whose
pam_sm_authenticate returns PAM_IGNORE, and the smallest swift-argument-parser tool (one
subcommand with one argument, the version the tools use). All stripped as the installed
artifacts are, all linked as `swiftc -static-stdlib` links by default."""

from dataclasses import dataclass
from pathlib import Path

from .process import run

HELLO = 'print("hello")\n'
MINIMAL_MODULE = """@_cdecl("pam_sm_authenticate")
public func authenticate(_ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32,
                         _ argv: UnsafePointer<UnsafePointer<CChar>?>?) -> Int32 { 25 }  // PAM_IGNORE
"""


@dataclass(frozen=True)
class Floors:
    """The stripped hello-world program and minimal module."""

    hello: Path
    minimal_module: Path
    argument_parser: Path


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


def make_floors(work: Path, repo: Path) -> Floors:
    """Builds the floors in WORK/floor, once for the rows that need them; the argument parser is
    REPO's own checkout (.build/checkouts, made by scripts/build)."""
    directory = work / "floor"
    floors = Floors(directory / "hello", directory / "minimal.so", directory / "argument-parser")
    if floors.argument_parser.exists():
        return floors
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hello.swift").write_text(HELLO)
    (directory / "minimal.swift").write_text(MINIMAL_MODULE)
    run(["swiftc", "-O", "-static-stdlib", str(directory / "hello.swift"), "-o", str(directory / "hello.full")])
    run(["swiftc", "-O", "-static-stdlib", "-emit-library", str(directory / "minimal.swift"),
         "-o", str(directory / "minimal.full.so")])
    run(["strip", "--strip-unneeded", "-o", str(floors.hello), str(directory / "hello.full")])
    run(["strip", "--strip-unneeded", "-o", str(floors.minimal_module), str(directory / "minimal.full.so")])
    package = directory / "argument-parser-package"
    (package / "Sources" / "floor").mkdir(parents=True, exist_ok=True)
    checkout = repo / ".build" / "checkouts" / "swift-argument-parser"
    (package / "Package.swift").write_text(ARGUMENT_PARSER_PACKAGE.replace("{checkout}", str(checkout)))
    (package / "Sources" / "floor" / "main.swift").write_text(ARGUMENT_PARSER_MAIN)
    run(["swift", "build", "-c", "release", "--package-path", str(package), "-Xswiftc", "-static-stdlib"])
    run(["strip", "--strip-unneeded", "-o", str(floors.argument_parser),
         str(package / ".build" / "release" / "floor")])
    return floors
