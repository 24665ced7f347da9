# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The inner run's context: where things are, how many rounds, the bench users and services,
and the small steps every row uses (enrolling a PIN, reading a record, compiling a C program)."""

import os
import random
from pathlib import Path
from typing import Sequence

from .pam import PIN, Pam
from .process import BenchError, output, run
from .timing import Timer

USER = "benchuser"
USER_UID = 4242
TPM_USER = "benchtpm"
"""The tpm row's user, whose PIN is bound to a software TPM."""


def append(path: str, *lines: str) -> None:
    """Appends lines to a file (of the sandbox's copies of /etc)."""
    with open(path, "a") as file:
        file.write("".join(line + "\n" for line in lines))


class Bench:
    """What every row needs: the repository and its release build, the work directory, the output
    directory, the rounds per comparison, a Timer and the PAM services."""

    def __init__(self, repo: Path, work: Path, quick: bool):
        self.repo = repo
        self.work = work
        self.quick = quick
        self.rounds = int(os.environ.get("BENCH_ROUNDS") or (5 if quick else 15))
        self.rebuilt = os.environ.get("BENCH_BUILD", "1") != "0"
        self.bin = repo / ".build" / "release"
        self.module = self.bin / "pam_secureroom.so"
        self.cli = self.bin / "secureroom"
        self.vault = self.bin / "secureroom-vault"
        self.lib = Path("/usr/lib") / output(["gcc", "-print-multiarch"])
        self.out = repo / ".build" / "bench" / ("quick" if quick else "")
        self.out.mkdir(parents=True, exist_ok=True)
        self.state = work / "state"
        self.config = "/etc/security/secureroom.conf"
        self.timer = Timer(work)
        self.pam = Pam(work / "services", self.lib)

    def prepare_system(self) -> None:
        """The bench users in the sandbox's /etc, SecureRoom's configuration (tpm=off: no row may
        spend a real TPM's dictionary-attack counter; the tpm row brings its own software TPM), its
        state initialised and the bench user's PIN enrolled."""
        self.state.mkdir(parents=True)
        append("/etc/passwd", f"{USER}:x:{USER_UID}:{USER_UID}:SecureRoom bench:/nonexistent:/usr/sbin/nologin",
               f"{TPM_USER}:x:4243:4243:SecureRoom bench, TPM:/nonexistent:/usr/sbin/nologin")
        append("/etc/group", f"{USER}:x:{USER_UID}:", f"{TPM_USER}:x:4243:")
        append("/etc/shadow", f"{USER}:{yescrypt(PIN)}:20000:0:99999:7:::")
        Path(self.config).write_text(f"dir={self.state}\ntpm=off\nlocal_services=*\n")
        run([str(self.cli), "init"])
        self.set_pin(USER, PIN)

    def set_pin(self, user: str, pin: str, *options: str) -> None:
        """Enrols `user` with `pin` (`secureroom set USER --stdin`, options such as --config)."""
        run([str(self.cli), "set", user, "--stdin", *options], input=f"{pin}\n".encode())

    def record_value(self, user: str, key: str) -> str:
        """A value of the user's credential record (memory-kib, iterations, lanes: its argon2 cost)."""
        for line in (self.state / "users" / f"{user}.credential").read_text().splitlines():
            if line.startswith(f"{key}: "):
                return line.split(": ", 1)[1]
        raise BenchError(f"{user}'s credential record has no {key}")

    def compile_c(self, source: Path, binary: Path, *options: str, libraries: Sequence[str] = ()) -> Path:
        """Compiles a C file with gcc -O2 (and `options`, such as -shared), linking `libraries`."""
        run(["gcc", *options, "-O2", "-o", str(binary), str(source), *libraries])
        return binary


def yescrypt(password: str) -> str:
    """Debian's default password hash ($y$, yescrypt) of `password`, made by crypt(3) through perl.
    The salt: 16 characters of crypt's alphabet, i.e. 12 whole bytes (other lengths can be refused)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./"
    salt = "".join(random.SystemRandom().choice(alphabet) for _ in range(16))
    hashed = output(["perl", "-e", "print crypt($ARGV[0], q($y$j9T$) . $ARGV[1])", password, salt])
    if not hashed.startswith("$y$"):
        raise BenchError(f"crypt(3) made no yescrypt hash ({hashed})")
    return hashed
