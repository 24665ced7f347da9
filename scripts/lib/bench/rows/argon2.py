# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""argon2: argon2id at the record's parameters through Debian's libargon2 (the module's library,
with the pepper as argon2's secret and the user as associated data) against libsodium's argon2id,
the other packaged implementation (it picks AVX2 or AVX-512 code at run time); one process per
contender, several hashes each, timed with hyperfine, alternating."""

from statistics import median

from ..context import Bench, USER
from ..process import Command
from ..report import Row
from ..timing import Contender, med, ratio, spread

HARNESS = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_SODIUM
#include <sodium.h>
#else
#include <argon2.h>
#endif
/* argon2-speed T M P COUNT: COUNT argon2id hashes of a 4-digit PIN, 32 bytes out. */
int main(int argc, char **argv) {
    if (argc != 5) return 64;
    unsigned t = (unsigned)atoi(argv[1]), m = (unsigned)atoi(argv[2]), p = (unsigned)atoi(argv[3]);
    int count = atoi(argv[4]);
    unsigned char out[32], salt[16] = "benchsaltbenchsa", secret[32] = {1}, pin[4] = {'4', '7', '3', '9'};
#ifdef WITH_SODIUM
    if (p != 1 || sodium_init() < 0) return 65; /* libsodium's argon2id has one lane */
#endif
    for (int i = 0; i < count; i++) {
#ifdef WITH_SODIUM
        if (crypto_pwhash(out, sizeof out, (const char *)pin, sizeof pin, salt, t, (size_t)m * 1024,
                          crypto_pwhash_ALG_ARGON2ID13) != 0) return 1;
#else
        argon2_context context = {
            .out = out, .outlen = sizeof out, .pwd = pin, .pwdlen = sizeof pin, .salt = salt,
            .saltlen = sizeof salt, .secret = secret, .secretlen = sizeof secret,
            .ad = (uint8_t *)"benchuser", .adlen = 9, .t_cost = t, .m_cost = m, .lanes = p, .threads = p,
            .version = ARGON2_VERSION_13, .flags = ARGON2_DEFAULT_FLAGS};
        if (argon2id_ctx(&context) != ARGON2_OK) return 1;
#endif
    }
    return 0;
}
"""
"""The harness: the module's call into libargon2 (argon2_ctx with secret and associated data), or
libsodium's crypto_pwhash (no secret, no associated data: it cannot compute SecureRoom's records)."""


def run(bench: Bench) -> None:
    """Times libargon2 against libsodium's argon2id; writes argon2.md and argon2.target."""
    row = Row(bench, "argon2", "argon2id: Debian's libargon2 against libsodium on this CPU")
    t, m, p = (int(bench.record_value(USER, key)) for key in ("iterations", "memory-kib", "lanes"))
    count = 2 if bench.quick else 4
    source = bench.work / "argon2-speed.c"
    source.write_text(HARNESS)
    libargon2 = bench.compile_c(source, bench.work / "argon2-speed", libraries=["-largon2"])
    sodium = bench.compile_c(source, bench.work / "argon2-speed-sodium", "-DWITH_SODIUM", libraries=["-lsodium"])
    def hashes(binary, lanes: int) -> Command:
        return Command((str(binary), str(t), str(m), str(lanes), str(count)))

    contenders = [
        Contender("libargon2, 1 lane", hashes(libargon2, 1)),
        Contender("libsodium, 1 lane", hashes(sodium, 1)),
        Contender(f"libargon2, {p} lanes (the default)", hashes(libargon2, p)),
    ]
    samples = bench.timer.alternate(contenders, bench.rounds)
    per_hash = {name: [ms / count for ms in runs] for name, runs in samples.items()}
    one, sodium_one = median(per_hash["libargon2, 1 lane"]), median(per_hash["libsodium, 1 lane"])
    row.emit(f"argon2id t={t}, m={m} KiB (the record's parameters), {count} hashes per process, the figures per",
             f"hash; {bench.rounds} rounds, timed with hyperfine. Debian 12 packages libargon2 built without",
             "AVX2 code (its reference implementation, `objdump` shows no ymm register), and libsodium, whose",
             "argon2id picks AVX2 or AVX-512 code at run time but takes one lane only and has no secret and",
             "no associated data: it cannot compute a SecureRoom record, whose argon2 has the pepper as its",
             "secret and the user's name as associated data (docs/FORMAT.md §2).",
             "",
             "| implementation | median ms per hash | range ms |",
             "|---|---:|---:|")
    for name, runs in per_hash.items():
        row.emit(f"| {name} | {med(runs)} | {spread(runs)} |")
    row.emit("",
             f"**libargon2 / libsodium, one lane: {ratio(one, sodium_one)}** (the module's library against the",
             "fastest packaged one).")
    row.target("argon2: libargon2 / libsodium, one lane", ratio(one, sodium_one), "(a figure: docs/DESIGN.md §3)",
               "—")
