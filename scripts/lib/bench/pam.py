# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""PAM transactions for the rows: pamtester under pam_wrapper, whose services are files in the
work directory (WORK/services), not /etc/pam.d."""

from pathlib import Path
from typing import Mapping, Optional

from .process import Command

PIN = "4739"
"""The bench users' PIN for SecureRoom, and the same 4739 as pam_unix's password."""
PIN_TYPED = f"{PIN}\n".encode()
"""What a login types at the prompt."""


class Pam:
    """The bench's PAM services and the pamtester commands that run them."""

    def __init__(self, services: Path, lib: Path):
        self.services = services
        self.services.mkdir(parents=True, exist_ok=True)
        self.wrapper = lib / "libpam_wrapper.so"

    def service(self, name: str, *lines: str) -> None:
        """Writes the service NAME, one stack line each."""
        (self.services / name).write_text("".join(line + "\n" for line in lines))

    def authenticate(self, service: str, user: str, *, typed: Optional[bytes] = None, preload: str = "",
                     env: Optional[Mapping[str, str]] = None) -> Command:
        """`pamtester SERVICE USER authenticate` under pam_wrapper, `typed` on its standard input;
        `preload` adds a library to LD_PRELOAD, `env` variables of its own."""
        return Command(("pamtester", service, user, "authenticate"), typed, {
            "LD_PRELOAD": f"{preload} {self.wrapper}" if preload else str(self.wrapper),
            "PAM_WRAPPER": "1",
            "PAM_WRAPPER_SERVICE_DIR": str(self.services),
            **(env or {}),
        })

    def login(self, service: str, user: str) -> Command:
        """One authentication of USER through SERVICE, the PIN (or password) 4739 typed."""
        return self.authenticate(service, user, typed=PIN_TYPED)
