# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The Secret Service side of the vault and secrets rows: private D-Bus session buses,
gnome-keyring-daemon (headless) on one of them, the secrets every contender holds, and the
`secret-tool` commands that use them."""

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Mapping, Optional, Tuple

from .process import BenchError, Command, environment, output, trace

TITLE_FORMAT = "site-%05d.example"
VALUE_FORMAT = "value-%05d-abcdefghijklm"


def title_of(i: int) -> str:
    """Secret I's title, the same in every contender: site-0000I.example."""
    return TITLE_FORMAT % i


def value_of(i: int) -> str:
    """Secret I's value, 24 bytes."""
    return VALUE_FORMAT % i


def session_bus(directory: Path) -> Tuple[str, int]:
    """Starts a private D-Bus session bus (dbus-daemon, HOME=DIRECTORY); returns its address and pid."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    address, pid = output(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1",
                           "--nopidfile"], env={"HOME": str(directory)}).splitlines()
    return address, int(pid)


def secrets_provided(address: str) -> bool:
    """Whether org.freedesktop.secrets gets an owner on the bus at `address` within 5 s."""
    for _ in range(100):
        reply = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/",
                                "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"],
                               env=environment({"DBUS_SESSION_BUS_ADDRESS": address}), capture_output=True, text=True)
        if "boolean true" in reply.stdout:
            return True
        time.sleep(0.05)
    return False


def peak_rss(pid: int) -> int:
    """The peak resident set of process `pid` so far (VmHWM), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise BenchError(f"process {pid} has no VmHWM")


class Keyring:
    """gnome-keyring-daemon, headless, its login keyring unlocked (empty password), on a private
    session bus of its own; `env` is what a client needs to reach it."""

    def __init__(self, directory: Path):
        runtime = directory / "run"
        runtime.mkdir(mode=0o700, parents=True)
        directory.chmod(0o700)
        address, self.bus_pid = session_bus(directory / "home")
        self.env: Mapping[str, str] = {"XDG_RUNTIME_DIR": str(runtime), "DBUS_SESSION_BUS_ADDRESS": address}
        daemon = {**self.env, "HOME": str(directory / "home"), "XDG_DATA_HOME": str(directory / "home/.local/share")}
        argv = ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"]
        trace(argv, daemon)
        self.process = subprocess.Popen(argv, env=environment(daemon), stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # An empty password is one line; with no input the daemon wants a graphical prompt.
        self.process.stdin.write(b"\n")
        self.process.stdin.close()
        if not secrets_provided(address):
            self.stop()
            raise BenchError("gnome-keyring-daemon did not take org.freedesktop.secrets")

    def stop(self) -> None:
        """Stops the daemon and its bus."""
        self.process.terminate()
        self.process.wait()
        os.kill(self.bus_pid, signal.SIGTERM)


def secret_tool(*arguments: str, env: Mapping[str, str], input: Optional[bytes] = None) -> Command:
    """A `secret-tool` command against the provider that `env` reaches."""
    return Command(("secret-tool", *arguments), input, env)


def lookup(title: str, env: Mapping[str, str]) -> Command:
    """`secret-tool lookup app bench title TITLE`: one secret's value."""
    return secret_tool("lookup", "app", "bench", "title", title, env=env)


def search(env: Mapping[str, str], title: Optional[str] = None) -> Command:
    """`secret-tool search --all app bench`: every bench secret, or (with `title`) the one titled so."""
    return secret_tool("search", "--all", "app", "bench", *(("title", title) if title else ()), env=env)


def store(title: str, value: str, env: Mapping[str, str]) -> Command:
    """`secret-tool store` of a secret labelled and titled TITLE (attribute app bench)."""
    return secret_tool("store", f"--label={title}", "app", "bench", "title", title, env=env, input=value.encode())
