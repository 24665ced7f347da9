# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""scale: login time with 1, 100 and 10,000 enrolled users (hyperfine, alternating); N
concurrent logins of different users vs. the single-login rate (target >= 1.8x), timed here
around the workers, which run at once."""

import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from statistics import median

from ..context import Bench, USER, append
from ..pam import PIN
from ..process import run as run_command
from ..report import Row, cpus, meets
from ..timing import Contender, fixed, med, ratio, spread, time_figure

WORKERS = (1, 2, 4, 8)


def filler(i: int) -> str:
    """Filler user I: bench0000I (passwd entries after benchuser, so her lookup stays first)."""
    return f"bench{i:05d}"


def enrol_fillers(bench: Bench, count: int) -> float:
    """Adds `count` fillers to /etc/passwd and enrols them with cheap argon2 (their records only
    need to exist) through `secureroom set`, two at a time; returns the seconds the enrolment took."""
    append("/etc/passwd", *(f"{filler(i)}:x:{50000 + i}:{50000 + i}::/nonexistent:/usr/sbin/nologin"
                            for i in range(1, count + 1)))
    cheap = bench.work / "cheap.conf"
    cheap.write_text(f"dir={bench.state}\ntpm=off\nargon2_memory=8\nargon2_time=1\nargon2_lanes=1\n"
                     "argon2_below_floor\n")

    def enrol(i: int) -> None:
        run_command([str(bench.cli), "set", filler(i), "--stdin", "--config", str(cheap)], input=PIN.encode())

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(enrol, range(1, count + 1)))
    return time.perf_counter() - start


def state_with(bench: Bench, name: str, users: list) -> str:
    """WORK/NAME: a state directory holding the pepper and the records of `users` only."""
    directory = bench.work / name
    (directory / "users").mkdir(parents=True)
    shutil.copy2(bench.state / "pepper", directory)
    for path in (directory, directory / "users"):
        path.chmod(0o700)
    for user in users:
        for record in (bench.state / "users").glob(f"{user}.*"):
            shutil.copy2(record, directory / "users")
    return str(directory)


def concurrent_logins(bench: Bench, users: list, per_worker: int) -> float:
    """Seconds for one worker per user, all at once, each logging its user in `per_worker` times
    in a row (right PIN) through the service with every user enrolled."""
    def worker(user: str) -> None:
        for _ in range(per_worker):
            bench.pam.login("bench-large", user).run()

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(users)) as pool:
        list(pool.map(worker, users))
    return time.perf_counter() - start


def run(bench: Bench) -> None:
    """Times logins against the enrolled users' count and concurrency; writes scale.md and scale.target."""
    row = Row(bench, "scale", "Scale: enrolled users, and concurrent logins")
    large = 100 if bench.quick else 10000
    per_worker = 2 if bench.quick else 6
    enrol_seconds = enrol_fillers(bench, large)
    for i in range(1, 9):
        bench.set_pin(filler(i), PIN)
    count = len(list((bench.state / "users").glob("*.credential")))
    pam = bench.pam
    pam.service("bench-1", f"auth required {bench.module} dir={state_with(bench, 'state-1', [USER])}")
    hundred = state_with(bench, "state-100", [USER, *(filler(i) for i in range(1, 100))])
    pam.service("bench-100", f"auth required {bench.module} dir={hundred}")
    pam.service("bench-large", f"auth required {bench.module} dir={bench.state}")
    samples = bench.timer.alternate([Contender(name, pam.login(f"bench-{name}", USER))
                                     for name in ("1", "100", "large")], bench.rounds * 2)
    one = median(samples["1"])
    row.emit(f"Login time of one user (right PIN, defaults) with 1, 100 and {count} users enrolled in the",
             f"state directory (and as many in /etc/passwd). Enrolling the {large} fillers (cheap argon2)",
             f"through `secureroom set`, two at a time, took {fixed(enrol_seconds, 0)} s.",
             "",
             "| users enrolled | median ms | range ms | ratio to 1 user |",
             "|---:|---:|---:|---:|",
             f"| 1 | {med(samples['1'])} | {spread(samples['1'])} | {ratio(one, one)} |",
             f"| 100 | {med(samples['100'])} | {spread(samples['100'])} | {ratio(median(samples['100']), one)} |",
             f"| {count} | {med(samples['large'])} | {spread(samples['large'])} | "
             f"{ratio(median(samples['large']), one)} |",
             "")
    growth = ratio(median(samples["large"]), one)
    row.target(f"scale: login with {count} users / with 1", growth, "≤ 1.05 (no growth)", meets(growth, "<=", 1.05))
    # Throughput: N workers, each logging in its own user per_worker times in a row; once
    # with users at the defaults (lanes=2) and once with users enrolled with lanes=1.
    lanes1 = bench.work / "lanes1.conf"
    lanes1.write_text(f"dir={bench.state}\nargon2_lanes=1\n")
    for i in range(9, 17):
        bench.set_pin(filler(i), PIN, "--config", str(lanes1))
    cpu = time_figure("%P", pam.login("bench-large", filler(1)), bench.work / "time")
    row.emit(f"Concurrent logins of different users on {cpus()} cores: N workers, each logging in its own",
             f"user {per_worker} times in a row (right PIN). At the defaults (lanes=2) one login already runs",
             f"argon2 on two threads: a lone login keeps {cpu}% of one core busy (user+system / wall, median of 5).",
             "",
             "| argon2 lanes | workers | logins | wall s | logins/s | vs. 1 worker |",
             "|---:|---:|---:|---:|---:|---:|")
    for lanes, offset in ((2, 0), (1, 8)):
        rates, speed_ups = [], []
        for workers in WORKERS:
            wall = fixed(concurrent_logins(bench, [filler(offset + i) for i in range(1, workers + 1)], per_worker), 2)
            rates.append(fixed(workers * per_worker / float(wall), 2))
            speed_ups.append(ratio(float(rates[-1]), float(rates[0])))
            row.emit(f"| {lanes} | {workers} | {workers * per_worker} | {wall} | {rates[-1]} | {speed_ups[-1]} |")
        best = max(speed_ups, key=float)
        row.target(f"scale: concurrent logins / one at a time, lanes={lanes}{' (default)' if lanes == 2 else ''}",
                   best, "≥ 1.8", meets(best, ">=", 1.8))
    row.emit()
