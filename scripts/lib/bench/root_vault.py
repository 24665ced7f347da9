# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Root's vault, for the size, vault and secrets rows. The vault is root's here (with
even_deny_root, so root may use a PIN): every contender then runs as a plain child, with no
setpriv/env exec in front of it to be timed. Nothing in get, add or list depends on the uid."""

from pathlib import Path

from .context import Bench
from .pam import PIN, PIN_TYPED
from .process import run


def prepare_vault(bench: Bench) -> Path:
    """Root's PIN enrolled, its vault initialised and unlocked (vault_timeout=2h), once; returns the
    directory that holds the rows' vault files."""
    home = bench.work / "vault-home"
    if home.exists():
        return home
    home.mkdir(mode=0o700)
    Path(bench.config).write_text(f"dir={bench.state}\ntpm=off\neven_deny_root\nvault_timeout=2h\n")
    Path("/etc/pam.d/secureroom-vault").write_text(
        f"auth required {bench.module} nopin=fail\naccount required pam_permit.so\n"
        "session required pam_permit.so\npassword required pam_deny.so\n")
    bench.set_pin("root", PIN)
    run([str(bench.vault), "init", "--stdin", "--file", str(home / "init.sqlite")], input=PIN_TYPED)
    run([str(bench.vault), "unlock", "--stdin"], input=PIN_TYPED)
    return home
