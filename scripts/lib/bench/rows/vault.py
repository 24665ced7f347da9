# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""vault: get/add/list with 10, 1,000 and 100,000 secrets vs. `pass` and `secret-tool`
(gnome-keyring, headless); target get < 10 ms. Every figure is a whole command, timed with
hyperfine, the contenders alternating."""

import itertools
import json
import os
from pathlib import Path
from typing import Dict, Iterator, List

from ..context import Bench
from ..process import Command, output, run as run_command
from ..report import Row, meets
from ..root_vault import prepare_vault
from ..secret_service import Keyring, lookup, search, store, title_of, value_of
from ..timing import Contender, fixed, med

PEER_TOOL_LIMIT = 1000
"""secret-tool's store time grows with the keyring (the whole file is rewritten each time): it is
filled to 1,000 items at most."""
OPERATIONS = ("get", "add", "list")


def secrets_json(count: int) -> bytes:
    """A JSON array of `count` secrets, as `secureroom-vault import` reads them."""
    return json.dumps([{"title": title_of(i), "value": value_of(i)} for i in range(1, count + 1)],
                      separators=(",", ":")).encode()


def disk_kib(path: Path) -> int:
    """The space a file takes on disk, KiB (du -k)."""
    return -(-path.stat().st_blocks // 2)


class Peers:
    """The vault's peers. pass: a throwaway GNUPGHOME with an unprotected key; entries past the
    first are copies of its ciphertext under other names (pass does not bind names into the
    ciphertext; `pass show` of a copy decrypts). secret-tool: gnome-keyring-daemon on a private
    session bus, filled by `secret-tool store`, up to PEER_TOOL_LIMIT items."""

    def __init__(self, bench: Bench):
        self.pass_store = bench.work / "pass"
        gnupg = bench.work / "gnupg"
        gnupg.mkdir(mode=0o700)
        self.pass_env = {"GNUPGHOME": str(gnupg), "PASSWORD_STORE_DIR": str(self.pass_store)}
        run_command(["gpg", "--batch", "--quiet", "--passphrase", "", "--quick-gen-key",
                     "SecureRoom bench <bench@example.invalid>", "future-default", "default", "never"],
                    env=self.pass_env, quiet=True)
        keys = output(["gpg", "--batch", "--with-colons", "--list-secret-keys"], env=self.pass_env)
        fingerprint = next(line.split(":")[9] for line in keys.splitlines() if line.startswith("fpr"))
        run_command(["pass", "init", fingerprint], env=self.pass_env)
        self.keyring = Keyring(bench.work / "keyring")
        self.pass_count = self.tool_count = 0
        self.store_ms: Dict[str, str] = {}
        self.timer = bench.timer

    def fill(self, count: int) -> None:
        """Both peers hold site-00001 ... site-COUNT (secret-tool only up to its limit); the first
        and the last of secret-tool's stores are timed."""
        if self.pass_count == 0:
            run_command(["pass", "insert", "-m", title_of(1)], input=value_of(1).encode(), env=self.pass_env)
            self.pass_count = 1
        ciphertext = (self.pass_store / f"{title_of(1)}.gpg").read_bytes()
        for i in range(self.pass_count + 1, count + 1):
            copy = os.open(self.pass_store / f"{title_of(i)}.gpg", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(copy, "wb") as file:
                file.write(ciphertext)
        self.pass_count = count
        if count > PEER_TOOL_LIMIT:
            return
        for i in range(self.tool_count + 1, count + 1):
            command = store(title_of(i), value_of(i), self.keyring.env)
            if i in (1, PEER_TOOL_LIMIT):
                self.store_ms["first" if i == 1 else "last"] = fixed(self.timer.once(command, "secret-tool store"))
            else:
                command.run(check=True)
        self.tool_count = count

    def contenders(self, count: int, middle: str, added: Iterator[int]) -> Dict[str, List[Contender]]:
        """pass's contenders for each operation, and secret-tool's when it holds `count` items."""
        pass_commands = {
            "get": Command(("pass", "show", middle), env=self.pass_env),
            "add": lambda: Command(("pass", "insert", "-m", f"added-{next(added)}"), b"new value\n", self.pass_env),
            "list": Command(("pass", "ls"), env=self.pass_env),
        }
        tool_commands = {
            "get": lookup(middle, self.keyring.env),
            "add": lambda: store(f"added-{next(added)}", "new value", self.keyring.env),
            "list": search(self.keyring.env),
        }
        with_tool = self.tool_count == count
        return {op: [Contender(f"pass_{op}", pass_commands[op])]
                + ([Contender(f"tool_{op}", tool_commands[op])] if with_tool else []) for op in OPERATIONS}

    def stop(self) -> None:
        """Stops gpg's agent and gnome-keyring."""
        run_command(["gpgconf", "--kill", "all"], env=self.pass_env, check=False, quiet=True)
        self.keyring.stop()


def run(bench: Bench) -> None:
    """Times get/add/list against pass and secret-tool; writes vault.md and vault.target."""
    row = Row(bench, "vault", "Vault: get, add and list against pass and secret-tool")
    sizes = (10, 1000) if bench.quick else (10, 1000, 100000)
    home = prepare_vault(bench)
    peers = Peers(bench)
    try:
        row.emit("`secureroom-vault` with the vault unlocked (data key in the keyring; root's vault, so that",
                 "no setpriv runs in front of any contender);",
                 "`pass` 1.7 with gpg (an unprotected key, agent running); `secret-tool` with",
                 "gnome-keyring-daemon on a private D-Bus session bus. Each figure is a whole command, timed",
                 "with hyperfine.",
                 "",
                 "| secrets | operation | secureroom-vault ms | pass ms | secret-tool ms |",
                 "|---:|---|---:|---:|---:|")
        imports = []
        for count in sizes:
            file = home / f"v{count}.sqlite"
            middle = title_of((count + 1) // 2)
            vault = str(bench.vault)
            import_ms = bench.timer.once(Command((vault, "import", "--file", str(file)), secrets_json(count)),
                                         f"importing {count} secrets")
            peers.fill(count)
            added = itertools.count(1)
            ours = {
                "get": Command((vault, "get", middle, "--file", str(file))),
                "add": lambda: Command((vault, "add", f"added-{next(added)}", "--file", str(file)), b"new value"),
                "list": Command((vault, "list", "--file", str(file))),
            }
            theirs = peers.contenders(count, middle, added)
            samples = {}
            for op in OPERATIONS:
                rounds = 5 if op == "list" and count >= 100000 else bench.rounds
                samples.update(bench.timer.alternate([Contender(f"sr_{op}", ours[op]), *theirs[op]], rounds))
            for op in OPERATIONS:
                peer = [med(samples[name]) if name in samples else "—" for name in (f"pass_{op}", f"tool_{op}")]
                row.emit(f"| {count} | {op} | {med(samples[f'sr_{op}'])} | {peer[0]} | {peer[1]} |")
            imports.append(f"| {count} | {fixed(import_ms / 1000, 1)} s | {disk_kib(file)} KiB |")
        row.emit("",
                 "Filling each vault: `secureroom-vault import` (one transaction):",
                 "",
                 "| secrets | import | file |",
                 "|---:|---:|---:|",
                 *imports,
                 "",
                 f"secret-tool was filled to {PEER_TOOL_LIMIT} items at most: each `store` rewrites the whole "
                 "keyring",
                 f"file, so storing one item took {peers.store_ms.get('first', '—')} ms at the start and "
                 f"{peers.store_ms.get('last', '—')} ms at {PEER_TOOL_LIMIT} items (—: not run).",
                 "")
        get_large = med(samples["sr_get"])
        row.target(f"vault: get with {sizes[-1]} secrets", f"{get_large} ms", "< 10 ms", meets(get_large, "<", 10))
    finally:
        peers.stop()
