#!/usr/bin/env python3
"""PgQueuer peer benchmark: enqueue N no-op jobs and time until the last one has finished.

  python bench.py setup                       # (re)create the database, then `pgq install`
  python bench.py run --tasks 20000           # flat out: batches of --enqueue-batch rows
  python bench.py run --tasks 2000 --rate 250 # offered at 250 jobs/s, evenly (every 10 ms)

`run` needs running workers (`pgq run consumer:main`, see run.sh) with the same
PGQUEUER_BENCH_COUNTER_DIR. Prints one line of JSON on stdout; everything else goes to stderr.

The clock starts right before the first enqueue and stops when the last job is known to have
finished, so it covers the enqueue commits, PgQueuer's NOTIFY and dequeue, and the entrypoint.
All jobs are enqueued through one connection. Flat out they go in batches of --enqueue-batch
(one multi-row INSERT each, PgQueuer's list form of Queries.enqueue; Reparto's bench enqueues
1,000 per transaction as well); at a rate, every 10 ms the jobs due by then in one INSERT.

How completion is established (as bench/celery's --backend none and bench/dramatiq): every
worker process counts the jobs it finished in a shared 8-byte counter file and appends each
job's latency (enqueue → entrypoint returned, CLOCK_MONOTONIC) to a file of its own
(consumer.py, CompletionRecorder); the clock stops when the sum reaches baseline + N.
Afterwards (untimed) the count must be exactly baseline + N, and the queue table must empty
(PgQueuer writes completions through a buffer that flushes every 0.1 s or --batch-size jobs):
"settle_seconds" is how long after the clock stopped the last completion was committed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import asyncpg  # noqa: E402
from pgqueuer.db import AsyncpgDriver  # noqa: E402
from pgqueuer.queries import Queries  # noqa: E402

import consumer  # noqa: E402
from consumer import ENTRYPOINT  # noqa: E402
from peerlib import completion  # noqa: E402
from peerlib.completion import counter_files, counter_sum, latency_offsets, latency_summary  # noqa: E402


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# --- setup -------------------------------------------------------------------------------------

async def recreate_database() -> None:
    name = consumer.bench_database()
    admin = await asyncpg.connect(consumer.server_dsn())
    try:
        # FORCE: workers of an interrupted run may still hold connections.
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()


def setup() -> int:
    asyncio.run(recreate_database())
    # `pgq install` with its default durability (every table logged); the DSN goes through the
    # environment (PGDSN), never argv.
    pgq = os.path.join(os.path.dirname(sys.executable), "pgq")
    env = dict(os.environ, PGDSN=consumer.bench_dsn())
    subprocess.run([pgq, "install"], env=env, check=True, stdout=sys.stderr, timeout=120)
    return 0


# --- completion recorder files -----------------------------------------------------------------

async def wait_counter(directory: str, target: int, deadline: float, poll: float) -> int:
    """peerlib's wait, on a thread of its own so the event loop keeps running."""
    return await asyncio.to_thread(completion.wait_counter, directory, target, deadline, poll)


# --- runs --------------------------------------------------------------------------------------

async def enqueue(queries: Queries, k: int) -> None:
    stamp = struct.pack("<q", time.monotonic_ns())
    await queries.enqueue([ENTRYPOINT] * k, [stamp] * k, [0] * k)


async def enqueue_flat(queries: Queries, n: int, batch: int) -> None:
    sent = 0
    while sent < n:
        k = min(batch, n - sent)
        await enqueue(queries, k)
        sent += k


async def enqueue_at_rate(queries: Queries, n: int, rate: float) -> None:
    """Every 10 ms, the jobs due by then (rate x elapsed), on schedule (not sleep-after-work)."""
    start = time.monotonic()
    sent, tick = 0, 0
    while sent < n:
        tick += 1
        due = min(n, round(rate * tick / 100))
        if due > sent:
            await enqueue(queries, due - sent)
            sent = due
        pause = start + tick / 100 - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)


async def queued(queries: Queries) -> int:
    """Jobs still in the queue table (queued or picked), any entrypoint."""
    return sum(s.count for s in await queries.queue_size())


async def wait_for_workers(directory: str, processes: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while counter_files(directory) < processes:
        if time.monotonic() > deadline:
            raise SystemExit(f"{counter_files(directory)} of {processes} worker processes "
                             f"started after {timeout}s")
        await asyncio.sleep(0.1)


async def run(args) -> dict:
    directory = args.counter_dir
    if not directory or not os.path.isdir(directory):
        raise SystemExit("needs PGQUEUER_BENCH_COUNTER_DIR (or --counter-dir), the same directory "
                         "the workers were started with")
    connection = await asyncpg.connect(consumer.bench_dsn())
    try:
        queries = Queries(AsyncpgDriver(connection))
        synchronous_commit = await connection.fetchval("SHOW synchronous_commit")
        await wait_for_workers(directory, args.processes, min(args.timeout, 60.0))
        if not args.no_purge:
            stale = await queued(queries)
            if stale:
                await queries.clear_queue()
                log(f"cleared {stale} stale jobs from the queue")
        deadline = time.monotonic() + args.timeout
        if args.warmup:
            base = counter_sum(directory)
            await enqueue_flat(queries, args.warmup, args.enqueue_batch)
            await wait_counter(directory, base + args.warmup, deadline, args.poll)
        base = counter_sum(directory)
        offsets = latency_offsets(directory)

        t0 = time.perf_counter()
        if args.rate:
            await enqueue_at_rate(queries, args.tasks, args.rate)
        else:
            await enqueue_flat(queries, args.tasks, args.enqueue_batch)
        t_pub = time.perf_counter()
        await wait_counter(directory, base + args.tasks, deadline, args.poll)
        t1 = time.perf_counter()

        # Untimed: every completion committed (the queue table empties), nothing ran twice.
        while (left := await queued(queries)) > 0:
            if time.monotonic() > deadline:
                raise SystemExit(f"inconsistent end state: {left} jobs still in the queue table")
            await asyncio.sleep(args.poll)
        settle = time.perf_counter() - t1
    finally:
        await connection.close()

    done = counter_sum(directory) - base
    if done != args.tasks:
        raise SystemExit(f"inconsistent end state: {done} executions for {args.tasks} jobs")
    return {
        "seconds": t1 - t0, "publish_seconds": t_pub - t0, "settle_seconds": settle,
        **latency_summary(directory, offsets, args.tasks), "synchronous_commit": synchronous_commit,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("setup", help="drop and recreate the benchmark's database, then pgq install")
    r = sub.add_parser("run", help="one timed run against running workers")
    r.add_argument("--tasks", type=int, default=20000, help="number of jobs (default 20000)")
    r.add_argument("--rate", type=float, default=None,
                   help="offered load in jobs/s (default: as fast as possible)")
    r.add_argument("--enqueue-batch", type=int, default=1000,
                   help="jobs per INSERT when flat out (default 1000)")
    r.add_argument("--warmup", type=int, default=200,
                   help="untimed jobs run first so worker connections are warm (default 200)")
    r.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")
    r.add_argument("--processes", type=int,
                   default=int(os.environ.get("PGQUEUER_BENCH_PROCESSES", "2")),
                   help="worker processes to wait for")
    r.add_argument("--batch-size", type=int,
                   default=int(os.environ.get("PGQUEUER_BENCH_BATCH_SIZE", "10")),
                   help="the workers' pgq run --batch-size (for the JSON)")
    r.add_argument("--counter-dir", default=os.environ.get("PGQUEUER_BENCH_COUNTER_DIR"))
    r.add_argument("--poll", type=float, default=0.002, help="counter poll interval in seconds")
    r.add_argument("--no-purge", action="store_true",
                   help="keep jobs already in the queue (they would distort the figure)")
    args = p.parse_args()
    if args.command == "setup":
        return setup()
    if args.tasks < 1 or args.enqueue_batch < 1 or args.processes < 1 or args.batch_size < 1:
        r.error("--tasks, --enqueue-batch, --processes and --batch-size must be >= 1")
    if args.rate is not None and not args.rate > 0:
        r.error("--rate must be > 0")

    load_before = os.getloadavg()[0]
    result = asyncio.run(run(args))
    print(json.dumps({
        "peer": "pgqueuer",
        "backend": "none",
        "mode": "rate" if args.rate else "flat",
        "tasks": args.tasks,
        "offered_rate": args.rate,
        "seconds": round(result["seconds"], 4),
        "tasks_per_second": round(args.tasks / result["seconds"], 1),
        "publish_seconds": round(result["publish_seconds"], 4),
        "settle_seconds": round(result["settle_seconds"], 4),
        "p50_ms": round(result["p50_ms"], 3),
        "p90_ms": round(result["p90_ms"], 3),
        "p99_ms": round(result["p99_ms"], 3),
        "max_ms": round(result["max_ms"], 3),
        "processes": args.processes,
        "batch_size": args.batch_size,
        "enqueue_batch": None if args.rate else args.enqueue_batch,
        "synchronous_commit": result["synchronous_commit"],
        # 1-minute load average before the run: other work on this 2-core machine shows here.
        "loadavg_1m_before": round(load_before, 2),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
