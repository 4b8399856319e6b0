#!/usr/bin/env python3
"""Dramatiq peer benchmark: send N no-op messages and time until the last one has finished.

  python bench.py --tasks 20000               # flat out: sent as fast as send() goes
  python bench.py --tasks 2000 --rate 250     # offered at 250 jobs/s, evenly (every 10 ms)

Needs running workers on the same queue (see run.sh) and the env of actors.py, with the same
DRAMATIQ_BENCH_COUNTER_DIR. Prints one line of JSON on stdout; everything else goes to stderr.

The clock starts right before the first send and stops when the last job is known to have
finished, so it covers publishing (each send waits for RabbitMQ's publisher confirm), the
broker, the worker and the actor. All messages go through one producer thread on one broker
connection.

How completion is established (as bench/celery's --backend none): every worker process counts
the jobs it finished in a shared 8-byte counter file and appends each job's latency (enqueue →
actor returned, CLOCK_MONOTONIC) to a file of its own (actors.py, CompletionRecorder); the
clock stops when the sum reaches baseline + N. Afterwards (untimed) the queue must show 0 ready
messages and the count must be exactly baseline + N (more means a redelivery ran a job twice,
which fails the run). Latency percentiles are over the N jobs of the timed run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pika  # noqa: E402

import actors  # noqa: E402
from actors import broker, noop  # noqa: E402
from peerlib.completion import counter_sum, latency_offsets, latency_summary, wait_counter  # noqa: E402


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# --- broker helpers ----------------------------------------------------------------------------

def queue_state() -> tuple[int, int]:
    """(ready messages, consumers) of the bench queue, via a passive queue.declare."""
    ok = broker.channel.queue_declare(queue=actors.QUEUE, passive=True)
    return ok.method.message_count, ok.method.consumer_count


def wait_for_consumers(count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _ready, consumers = queue_state()
            why = f"{consumers} of {count} consumers"
        except pika.exceptions.ChannelClosedByBroker as exc:  # queue not declared yet
            del broker.channel  # a failed passive declare closes the channel
            consumers, why = 0, repr(exc)
        if consumers >= count:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"no {count} workers consuming {actors.QUEUE!r} after {timeout}s ({why})")
        time.sleep(0.1)


def send_flat(n: int) -> None:
    for _ in range(n):
        noop.send(time.monotonic_ns())


def send_at_rate(n: int, rate: float) -> None:
    """Every 10 ms, the messages due by then (rate x elapsed), on schedule (not sleep-after-work)."""
    start = time.monotonic()
    sent, tick = 0, 0
    while sent < n:
        tick += 1
        due = min(n, round(rate * tick / 100))
        while sent < due:
            noop.send(time.monotonic_ns())
            sent += 1
        wake = start + tick / 100
        pause = wake - time.monotonic()
        if pause > 0:
            time.sleep(pause)


def run(n: int, args) -> dict:
    directory = args.counter_dir
    if not directory or not os.path.isdir(directory):
        raise SystemExit("needs DRAMATIQ_BENCH_COUNTER_DIR (or --counter-dir), the same directory "
                         "the workers were started with")
    deadline = time.monotonic() + args.timeout
    if args.warmup:
        base = counter_sum(directory)
        send_flat(args.warmup)
        wait_counter(directory, base + args.warmup, deadline, args.poll)
    base = counter_sum(directory)
    offsets = latency_offsets(directory)

    t0 = time.perf_counter()
    if args.rate:
        send_at_rate(n, args.rate)
    else:
        send_flat(n)
    t_pub = time.perf_counter()
    wait_counter(directory, base + n, deadline, args.poll)
    t1 = time.perf_counter()

    ready, _ = queue_state()
    done = counter_sum(directory) - base
    if ready != 0 or done != n:
        raise SystemExit(f"inconsistent end state: {ready} messages still ready, "
                         f"{done} executions for {n} jobs")
    return {"seconds": t1 - t0, "publish_seconds": t_pub - t0, **latency_summary(directory, offsets, n)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=20000, help="number of jobs (default 20000)")
    p.add_argument("--rate", type=float, default=None,
                   help="offered load in jobs/s (default: as fast as possible)")
    p.add_argument("--warmup", type=int, default=200,
                   help="untimed jobs run first so worker connections are open (default 200)")
    p.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")
    p.add_argument("--processes", type=int, default=int(os.environ.get("DRAMATIQ_BENCH_PROCESSES", "2")),
                   help="worker processes to wait for (each is one consumer)")
    p.add_argument("--threads", type=int, default=int(os.environ.get("DRAMATIQ_BENCH_THREADS", "8")),
                   help="worker threads per process the workers were started with (for the JSON)")
    p.add_argument("--counter-dir", default=os.environ.get("DRAMATIQ_BENCH_COUNTER_DIR"))
    p.add_argument("--poll", type=float, default=0.002, help="counter poll interval in seconds")
    p.add_argument("--no-purge", action="store_true",
                   help="keep messages already in the queue (they would distort the figure)")
    args = p.parse_args()
    if args.tasks < 1:
        p.error("--tasks must be >= 1")
    if args.rate is not None and not args.rate > 0:
        p.error("--rate must be > 0")
    if args.processes < 1 or args.threads < 1:
        p.error("--processes and --threads must be >= 1")

    load_before = os.getloadavg()[0]
    wait_for_consumers(args.processes, timeout=min(args.timeout, 60.0))
    if not args.no_purge:
        before, _ = queue_state()
        broker.flush(actors.QUEUE)
        if before:
            log(f"purged {before} stale messages from {actors.QUEUE}")
    result = run(args.tasks, args)
    broker.close()

    # Dramatiq's default prefetch: 2 x threads per process, unless dramatiq_queue_prefetch is set.
    prefetch = int(os.environ.get("dramatiq_queue_prefetch", "0")) or 2 * args.threads
    print(json.dumps({
        "peer": "dramatiq",
        "backend": "none",
        "mode": "rate" if args.rate else "flat",
        "tasks": args.tasks,
        "offered_rate": args.rate,
        "seconds": round(result["seconds"], 4),
        "tasks_per_second": round(args.tasks / result["seconds"], 1),
        "publish_seconds": round(result["publish_seconds"], 4),
        "p50_ms": round(result["p50_ms"], 3),
        "p90_ms": round(result["p90_ms"], 3),
        "p99_ms": round(result["p99_ms"], 3),
        "max_ms": round(result["max_ms"], 3),
        "processes": args.processes,
        "threads": args.threads,
        "prefetch": prefetch,
        "confirm_delivery": broker.confirm_delivery,
        # 1-minute load average before the run: other work on this 2-core machine shows here.
        "loadavg_1m_before": round(load_before, 2),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
