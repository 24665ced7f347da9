# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""secrets: `secret-tool` lookup, search and store at 1,000 items against `secureroom-vault
serve` (the Secret Service provider) vs. gnome-keyring (headless), each on a private session
bus; the two daemons' peak RSS. Target: lookup within 2x gnome-keyring's. Each figure is a whole
`secret-tool` command, timed with hyperfine, the providers alternating; so is each provider's
filling, by one client process."""

import itertools
import os
import signal
import subprocess
import sys
from statistics import median
from typing import Dict

from ..context import Bench
from ..pam import PIN_TYPED
from ..process import BenchError, Command, environment, trace
from ..report import Row, meets
from ..root_vault import prepare_vault
from ..secret_service import (TITLE_FORMAT, VALUE_FORMAT, Keyring, lookup, peak_rss, search, secrets_provided,
                              session_bus, store, title_of, value_of)
from ..timing import Contender, fixed, med, ratio, spread

ITEMS = 1000
FILL_CLIENT = """
import sys, secretstorage
count, title_format, value_format = int(sys.argv[1]), sys.argv[2], sys.argv[3]
collection = secretstorage.get_default_collection(secretstorage.dbus_init())
for i in range(1, count + 1):
    title = title_format % i
    collection.create_item(title, {"app": "bench", "title": title}, (value_format % i).encode())
"""
"""Fills a provider with ITEMS items: SecretStorage (a real Secret Service client; a CreateItem per
item, in a dh-ietf1024 session), with the attributes and labels the vault row gives secret-tool's
items. Debian's python3 (/usr/bin), whose modules scripts/bench's packages install."""

SERVE = ('"$1" unlock --stdin >/dev/null && echo "[]" | "$1" import --file "$2" '
         '&& exec "$1" serve --file "$2" </dev/null')
"""serve, and the unlock that puts the vault's key where serve reads it, run in a user namespace of
their own (root as root): its user keyring is its own, so no other root process on the machine (a
test run that unlocks or locks root's vault) changes the key during the row. The vault file is
made there too, empty, sealed with that key."""


def start_serve(bench: Bench, file: str, env: Dict[str, str], log) -> subprocess.Popen:
    """`secureroom-vault serve --file FILE` on the bus `env` reaches, as SERVE says."""
    argv = ["unshare", "--user", "--map-root-user", "--", "/bin/sh", "-c", SERVE, "sh", str(bench.vault), file]
    trace(argv, env)
    serve = subprocess.Popen(argv, env=environment(env), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log)
    serve.stdin.write(PIN_TYPED)
    serve.stdin.close()
    return serve


def stop_serve(serve: subprocess.Popen) -> None:
    """SIGTERM, which serve must answer by exiting 0 within 5 s (else it is killed)."""
    serve.terminate()
    try:
        status = serve.wait(timeout=5)
    except subprocess.TimeoutExpired:
        print("bench: `secureroom-vault serve` still runs 5 s after SIGTERM (expected: exit 0); killed",
              file=sys.stderr)
        serve.kill()
        status = serve.wait()
    if status != 0:
        print(f"bench: `secureroom-vault serve` exited with status {status} on SIGTERM (expected 0)", file=sys.stderr)


def run(bench: Bench) -> None:
    """Times secret-tool against serve and gnome-keyring; writes secrets.md and secrets.target."""
    row = Row(bench, "secrets", "Secret Service: `secret-tool` against `secureroom-vault serve` and gnome-keyring")
    file = str(prepare_vault(bench) / "secrets.sqlite")
    log_path = bench.work / "serve.log"
    keyring = Keyring(bench.work / "secrets-keyring")
    address, serve_bus = session_bus(bench.work / "secrets-serve")
    # Both providers' clients get the keyring's runtime directory; each its own bus.
    env = {"serve": {**keyring.env, "DBUS_SESSION_BUS_ADDRESS": address}, "keyring": dict(keyring.env)}
    with open(log_path, "w") as log:
        serve = start_serve(bench, file, env["serve"], log)
    try:
        if not secrets_provided(address):
            raise BenchError(f"`secureroom-vault serve --file {file}` did not take org.freedesktop.secrets; its log "
                             f"(and unlock's, import's):\n{log_path.read_text()}")
        fill_s = {}
        for provider in ("serve", "keyring"):
            fill = Command(("/usr/bin/python3", "-c", FILL_CLIENT, str(ITEMS), TITLE_FORMAT, VALUE_FORMAT),
                           env=env[provider])
            fill_s[provider] = fixed(bench.timer.once(fill, f"filling {provider} with {ITEMS} items") / 1000, 1)
        pids = {"serve": serve.pid, "keyring": keyring.process.pid}
        rss_filled = {provider: peak_rss(pid) for provider, pid in pids.items()}
        middle, expected = title_of((ITEMS + 1) // 2), value_of((ITEMS + 1) // 2)
        # Each provider must answer right before its times mean anything.
        for provider in ("serve", "keyring"):
            got = lookup(middle, env[provider]).output()
            found = sum(line.startswith("[") for line in search(env[provider], middle).output().splitlines())
            if got != expected or found != 1:
                raise BenchError(f"{provider}: `secret-tool lookup app bench title {middle}` printed '{got}' "
                                 f"(expected '{expected}'); `secret-tool search --all app bench title {middle}` "
                                 f"found {found} items (expected 1)")
        added = itertools.count(1)
        operations = {
            "lookup": lambda provider: lookup(middle, env[provider]),
            "search": lambda provider: search(env[provider], middle),
            "store": lambda provider: lambda: store(f"added-{next(added)}", "new value", env[provider]),
        }
        samples = {}
        for op, command in operations.items():
            samples.update(bench.timer.alternate([Contender(f"{provider}_{op}", command(provider))
                                                  for provider in ("serve", "keyring")], bench.rounds))
        if serve.poll() is not None:
            raise BenchError(f"`secureroom-vault serve` exited during the rounds; its log:\n{log_path.read_text()}")
        rss_end = {provider: peak_rss(pid) for provider, pid in pids.items()}
        row.emit("Each provider owns org.freedesktop.secrets on a private D-Bus session bus of its own:",
                 "`secureroom-vault serve` with root's vault unlocked (`secureroom-vault unlock`: the data key in",
                 "root's kernel keyring, in a user namespace of serve's own), gnome-keyring-daemon",
                 "(`--components=secrets`) with its login keyring unlocked (empty password). Both hold",
                 f"the same {ITEMS} items (label and attribute `title` site-NNNNN.example, attribute `app` bench,",
                 "24-byte values), stored by one SecretStorage client each (a CreateItem per item). Each figure",
                 "is a whole `secret-tool` command (libsecret: a session, the search, the secret), timed with",
                 f"hyperfine, the two providers alternating, {bench.rounds} rounds.",
                 "",
                 "| operation | secureroom-vault serve ms | range ms | gnome-keyring ms | range ms | ratio |",
                 "|---|---:|---:|---:|---:|---:|")
        labels = {"lookup": f"`lookup app bench title {middle}`",
                  "search": f"`search --all`, the same 1 item of {ITEMS}",
                  "store": f"`store` a new item (after the {ITEMS})"}
        for op, label in labels.items():
            ours, theirs = samples[f"serve_{op}"], samples[f"keyring_{op}"]
            row.emit(f"| {label} | {med(ours)} | {spread(ours)} | {med(theirs)} | {spread(theirs)} | "
                     f"{ratio(median(ours), median(theirs))} |")
        row.emit("",
                 f"| provider | {ITEMS} items stored (one client) | peak RSS after them | peak RSS at the end |",
                 "|---|---:|---:|---:|",
                 *(f"| {label} | {fill_s[provider]} s | {rss_filled[provider]} KiB | {rss_end[provider]} KiB |"
                   for provider, label in (("serve", "secureroom-vault serve"), ("keyring", "gnome-keyring-daemon"))),
                 "",
                 "Peak RSS: VmHWM of each daemon (/proc/PID/status).",
                 "")
        lookup_ratio = ratio(median(samples["serve_lookup"]), median(samples["keyring_lookup"]))
        row.target(f"secrets: secret-tool lookup at {ITEMS} items / gnome-keyring's", lookup_ratio, "≤ 2",
                   meets(lookup_ratio, "<=", 2))
    finally:
        if serve.poll() is None:
            stop_serve(serve)
        os.kill(serve_bus, signal.SIGTERM)
        keyring.stop()
