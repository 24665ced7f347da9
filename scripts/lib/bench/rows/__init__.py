# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""The rows, one module each, in the order scripts/bench runs them; each module's `run(bench)`
measures its row and writes its ROW.md and ROW.target (bench.report.Row)."""

from . import argon2, attack, floor, loading, offline, peers, scale, secrets, size, tpm, tune, vault

ROWS = {
    "floor": floor.run,
    "loading": loading.run,
    "size": size.run,
    "peers": peers.run,
    "scale": scale.run,
    "attack": attack.run,
    "vault": vault.run,
    "secrets": secrets.run,
    "tune": tune.run,
    "tpm": tpm.run,
    "offline": offline.run,
    "argon2": argon2.run,
}
