"""How the Python peers (bench/dramatiq, bench/pgqueuer) see their jobs finish, without loading
the broker or the database: each worker process keeps an 8-byte count of the no-op jobs it
finished in <dir>/<pid>-<random>.count, mapped shared, and appends each job's latency
(enqueue -> body returned, CLOCK_MONOTONIC nanoseconds, one clock for every process on the
machine) to <dir>/<pid>-<random>.lat *before* the count moves, so once the bench has counted N
jobs their N latencies are in the files. Cost: one store into a shared page and one 8-byte write
per job. The same method as bench/celery's --backend none.
"""
from __future__ import annotations

import math
import mmap
import os
import struct
import time
import uuid


class CompletionFiles:
    """A worker process's count and latency files (one writer: the caller serializes calls)."""

    def __init__(self, directory: str) -> None:
        # pid plus a random suffix: a replacement process that reuses a pid never clobbers a count.
        stem = os.path.join(directory, f"{os.getpid()}-{uuid.uuid4().hex[:8]}")
        fd = os.open(stem + ".count", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            os.ftruncate(fd, 8)
            self.counter = mmap.mmap(fd, 8, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        self.latencies = os.open(stem + ".lat", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.count = 0

    def finished(self, enqueued_ns: int | None) -> None:
        """One job done; `enqueued_ns` is its enqueue time (None or 0: unknown, no latency)."""
        now = time.monotonic_ns()
        if isinstance(enqueued_ns, int) and enqueued_ns > 0:
            os.write(self.latencies, struct.pack("<q", now - enqueued_ns))
        self.count += 1
        struct.pack_into("<Q", self.counter, 0, self.count)

    def flush(self) -> None:
        self.counter.flush()


def counter_files(directory: str) -> int:
    return sum(1 for name in os.listdir(directory) if name.endswith(".count"))


def counter_sum(directory: str) -> int:
    total = 0
    for name in os.listdir(directory):
        if not name.endswith(".count"):
            continue
        try:
            with open(os.path.join(directory, name), "rb") as f:
                raw = f.read(8)
        except FileNotFoundError:
            continue
        if len(raw) == 8:
            total += struct.unpack("<Q", raw)[0]
    return total


def counted(directory: str, target: int) -> tuple[bool, int]:
    """Whether the workers counted `target` jobs; confirmed with a second read, so a value read
    mid-store can never stop the clock early."""
    total = counter_sum(directory)
    return total >= target and counter_sum(directory) >= target, total


def wait_counter(directory: str, target: int, deadline: float, poll: float) -> int:
    """Blocks until the workers counted `target` jobs; past `deadline` (monotonic) the run fails."""
    while True:
        done, total = counted(directory, target)
        if done:
            return total
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {total} of {target} jobs counted as finished")
        time.sleep(poll)


def latency_offsets(directory: str) -> dict[str, int]:
    """Bytes already in each latency file: the records of earlier runs (warm-up)."""
    return {name: os.path.getsize(os.path.join(directory, name))
            for name in os.listdir(directory) if name.endswith(".lat")}


def latencies_since(directory: str, offsets: dict[str, int]) -> list[int]:
    values: list[int] = []
    for name in os.listdir(directory):
        if not name.endswith(".lat"):
            continue
        with open(os.path.join(directory, name), "rb") as f:
            f.seek(offsets.get(name, 0))
            raw = f.read()
        whole = len(raw) - len(raw) % 8
        values.extend(v for (v,) in struct.iter_unpack("<q", raw[:whole]))
    return values


def percentile(sorted_values: list[int], p: float) -> float:
    """Nearest rank, in milliseconds."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1] / 1e6


def latency_summary(directory: str, offsets: dict[str, int], jobs: int) -> dict[str, float]:
    """p50, p90, p99 and max (ms) of the timed run's `jobs` latencies; fewer or more recorded fails the run."""
    lat = sorted(latencies_since(directory, offsets))
    if len(lat) != jobs:
        raise SystemExit(f"{len(lat)} latencies recorded for {jobs} jobs")
    return {"p50_ms": percentile(lat, 50), "p90_ms": percentile(lat, 90),
            "p99_ms": percentile(lat, 99), "max_ms": lat[-1] / 1e6}
