"""PgQueuer consumer for the peer benchmark (bench/pgqueuer): a no-op entrypoint.

Run one process per worker: `pgq run consumer:main` (run.sh starts two).

Reads:
  REPARTO_DATABASE_URL        the server Reparto uses; the benchmark's database is another one
                              on it (bench_dsn: same credentials and options, database replaced)
  PGQUEUER_BENCH_DATABASE     that database's name (default "pgqueuer_bench"; bench.py setup
                              drops and recreates it, so it must start with "pgqueuer")
  PGQUEUER_BENCH_COUNTER_DIR  directory shared with bench.py; each worker process records the
                              jobs it finished and their latencies (see below)

Durability: jobs are rows in PgQueuer's tables, installed with `pgq install` (its default
durability, "durable": every table logged in the WAL), committed by each enqueue. A worker
marks the jobs it takes as picked (UPDATE ... FOR UPDATE SKIP LOCKED, `--batch-size` at a time)
and moves a job to the log (DELETE + INSERT) only after its entrypoint returned, so a worker
that dies leaves its picked jobs to be re-picked once their heartbeat is stale.
"""
from __future__ import annotations

import os
import struct
import re
from contextlib import asynccontextmanager
from urllib.parse import urlsplit, urlunsplit

import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import asyncpg  # noqa: E402
from pgqueuer import PgQueuer
from pgqueuer.db import AsyncpgDriver
from pgqueuer.models import Job  # noqa: E402

from peerlib.completion import CompletionFiles  # noqa: E402

ENTRYPOINT = "bench_noop"


def _require(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set (source .reparto/env)")
    return value


def bench_database() -> str:
    name = os.environ.get("PGQUEUER_BENCH_DATABASE", "pgqueuer_bench")
    # bench.py setup drops it: never a name that could be Reparto's or a test's database.
    if not re.fullmatch(r"pgqueuer[a-z0-9_]{0,40}", name):
        raise SystemExit(f"PGQUEUER_BENCH_DATABASE must match pgqueuer[a-z0-9_]*: {name!r}")
    return name


def server_dsn() -> str:
    """REPARTO_DATABASE_URL, checked: the benchmark connects to Reparto's server."""
    url = _require("REPARTO_DATABASE_URL")
    if urlsplit(url).scheme not in ("postgres", "postgresql"):
        raise SystemExit("REPARTO_DATABASE_URL must start with postgres:// or postgresql://")
    return url


def bench_dsn() -> str:
    """REPARTO_DATABASE_URL with the benchmark's own database instead of Reparto's."""
    return urlunsplit(urlsplit(server_dsn())._replace(path="/" + bench_database()))


# --- Completion recorder ------------------------------------------------------------------------
# The same method as bench/celery's --backend none and bench/dramatiq: every worker process keeps
# an 8-byte count of the no-op jobs it finished in <dir>/<pid>-<random>.count, mapped shared and
# bumped when the entrypoint body ends (before PgQueuer buffers the completion for its log
# write). Each job's payload is its enqueue time (8 bytes, CLOCK_MONOTONIC, one clock for every
# process on the machine); the latency enqueue→finish in nanoseconds is appended to
# <dir>/<pid>-<random>.lat *before* the count moves. The files are created when the process
# starts, so bench.py can wait for every worker process.
class CompletionRecorder(CompletionFiles):
    def finished(self, payload: bytes | None) -> None:  # type: ignore[override]
        # One event loop per process: no other writer between these calls.
        enqueued = struct.unpack("<q", payload)[0] if payload is not None and len(payload) == 8 else None
        super().finished(enqueued)


@asynccontextmanager
async def main():
    """The factory `pgq run consumer:main` calls: one connection, one no-op entrypoint."""
    recorder = CompletionRecorder(_require("PGQUEUER_BENCH_COUNTER_DIR"))
    connection = await asyncpg.connect(bench_dsn())
    try:
        pgq = PgQueuer(AsyncpgDriver(connection))

        @pgq.entrypoint(ENTRYPOINT)
        async def noop(job: Job) -> None:
            recorder.finished(job.payload)

        yield pgq
    finally:
        await connection.close()
        recorder.close()
