# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The Swift floors of the loading and size rows: what the static Swift runtime costs by itself,
built here with the same toolchain: a hello-world program and a PAM module whose
pam_sm_authenticate returns PAM_IGNORE. Both stripped as the installed artifacts are."""

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


def make_floors(work: Path) -> Floors:
    """Builds the floors in WORK/floor, once for the rows that need them."""
    directory = work / "floor"
    floors = Floors(directory / "hello", directory / "minimal.so")
    if floors.hello.exists():
        return floors
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "hello.swift").write_text(HELLO)
    (directory / "minimal.swift").write_text(MINIMAL_MODULE)
    run(["swiftc", "-O", "-static-stdlib", str(directory / "hello.swift"), "-o", str(directory / "hello.full")])
    run(["swiftc", "-O", "-static-stdlib", "-emit-library", str(directory / "minimal.swift"),
         "-o", str(directory / "minimal.full.so")])
    run(["strip", "--strip-unneeded", "-o", str(floors.hello), str(directory / "hello.full")])
    run(["strip", "--strip-unneeded", "-o", str(floors.minimal_module), str(directory / "minimal.full.so")])
    return floors
