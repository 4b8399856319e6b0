#!/usr/bin/env python3
"""Celery peer benchmark: enqueue N no-op tasks and time until the last one has finished.

  python bench.py --backend none     --tasks 20000   # ignore_result; completion via counter
  python bench.py --backend postgres --tasks 5000    # results stored in PostgreSQL; waits on
                                                     # every AsyncResult

Needs a running worker on the same queue (see run.sh) and the env of tasks.py. Prints one
line of JSON on stdout; everything else goes to stderr.

The clock starts right before the first publish and stops when the last task is known to have
finished, so it covers publishing, broker round trip, execution, acks and (postgres) the
result round trip through the database. All tasks are published through one producer on one
broker connection, as fast as apply_async goes.

How completion is established:
  none      RabbitMQ without the management plugin only tells "ready" messages (a passive
            queue.declare's message_count). With acks_late the last prefetch window is
            delivered-but-unacked and not counted there, so an empty queue does not mean the
            work is done. Each worker process therefore records how many bench.noop tasks it
            has finished in a shared 8-byte counter file (tasks.py, task_postrun); the clock
            stops when the sum reaches baseline + N. Afterwards (untimed) the queue must show
            0 ready messages and the count must be exactly baseline + N (more means a
            redelivery ran a task twice, which is reported and fails the run).
  postgres  Every AsyncResult is waited on in publish order (AsyncResult.get, polling the
            database backend every --interval seconds), and each must be SUCCESS.

            Stock Celery (5.x) gives a client process that has not forked a new SQLAlchemy
            engine with NullPool for every backend call (celery/backends/database/session.py,
            SessionManager.get_engine), i.e. a fresh PostgreSQL connection, authentication and
            dialect set-up for each poll of each result: the waiting client, not the workers,
            then sets the pace. That is what a Celery user gets, so it is the default here.
            --pooled-client makes the client's session manager behave as in a forked worker
            (one cached, pooled engine); the figure is then bound by the workers and the
            database, and the JSON says "result_client": "pooled".
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from kombu import Queue  # noqa: E402

import tasks  # noqa: E402
from tasks import app, noop, noop_stored  # noqa: E402
from peerlib.completion import counter_sum, wait_counter  # noqa: E402


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# --- broker helpers ----------------------------------------------------------------------------

def queue_state(conn) -> tuple[int, int]:
    """(ready messages, consumers) of the bench queue, via a passive queue.declare."""
    _name, ready, consumers = conn.default_channel.queue_declare(queue=tasks.QUEUE, passive=True)
    return ready, consumers


def wait_for_consumer(conn, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _ready, consumers = queue_state(conn)
        except Exception as exc:  # queue not declared yet (worker still starting)
            conn.close()
            conn.connect()
            consumers, why = 0, repr(exc)
        else:
            why = "no consumer"
        if consumers > 0:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"no worker consuming {tasks.QUEUE!r} after {timeout}s ({why})")
        time.sleep(0.1)


def purge(conn) -> int:
    return Queue(tasks.QUEUE, channel=conn.default_channel).purge() or 0


# --- runs --------------------------------------------------------------------------------------

def publish(task, n: int, producer) -> list:
    return [task.apply_async(producer=producer) for _ in range(n)]


def run_none(n: int, args, conn) -> tuple[float, float]:
    directory = args.counter_dir
    if not directory or not os.path.isdir(directory):
        raise SystemExit("--backend none needs CELERY_BENCH_COUNTER_DIR (or --counter-dir), the "
                         "same directory the worker was started with")
    deadline = time.monotonic() + args.timeout
    with app.producer_or_acquire() as producer:
        if args.warmup:
            base = counter_sum(directory)
            publish(noop, args.warmup, producer)
            wait_counter(directory, base + args.warmup, deadline, args.poll)
        base = counter_sum(directory)

        t0 = time.perf_counter()
        publish(noop, n, producer)
        t_pub = time.perf_counter()
        wait_counter(directory, base + n, deadline, args.poll)
        t1 = time.perf_counter()

    ready, _ = queue_state(conn)
    done = counter_sum(directory) - base
    if ready != 0 or done != n:
        raise SystemExit(f"inconsistent end state: {ready} messages still ready, "
                         f"{done} executions for {n} tasks")
    return t1 - t0, t_pub - t0


def run_postgres(n: int, args, conn) -> tuple[float, float]:
    from sqlalchemy import text

    # Create the result tables now (untimed) and empty them, so every run starts alike and
    # the worker processes never race to create them.
    if args.pooled_client:
        # The flag Celery sets after fork (SessionManager._after_fork): cache one pooled engine.
        app.backend.session_manager.forked = True
    session = app.backend.ResultSession()
    try:
        for table in app.conf.database_table_names.values():
            session.execute(text(f'TRUNCATE TABLE "{table}"'))
        session.commit()
    finally:
        session.close()

    deadline = time.monotonic() + args.timeout

    def wait_all(results) -> None:
        for r in results:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SystemExit("timed out waiting for results")
            r.get(timeout=remaining, interval=args.interval, propagate=True)
            if r.state != "SUCCESS":
                raise SystemExit(f"task {r.id} ended {r.state}")

    with app.producer_or_acquire() as producer:
        if args.warmup:
            wait_all(publish(noop_stored, args.warmup, producer))

        t0 = time.perf_counter()
        results = publish(noop_stored, n, producer)
        t_pub = time.perf_counter()
        wait_all(results)
        t1 = time.perf_counter()

    ready, _ = queue_state(conn)
    if ready != 0:
        raise SystemExit(f"inconsistent end state: {ready} messages still ready")
    return t1 - t0, t_pub - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=["none", "postgres"], required=True)
    p.add_argument("--tasks", type=int, default=None,
                   help="number of tasks (default 20000 for none, 5000 for postgres)")
    p.add_argument("--warmup", type=int, default=200,
                   help="untimed tasks run first so worker connections are open (default 200)")
    p.add_argument("--timeout", type=float, default=600.0, help="give up after this many seconds")
    p.add_argument("--counter-dir", default=os.environ.get("CELERY_BENCH_COUNTER_DIR"))
    p.add_argument("--poll", type=float, default=0.002,
                   help="counter poll interval in seconds (backend none)")
    p.add_argument("--interval", type=float, default=0.005,
                   help="AsyncResult.get poll interval in seconds (backend postgres)")
    p.add_argument("--pooled-client", action="store_true",
                   help="postgres: reuse one pooled engine in this client instead of Celery's "
                        "stock new-NullPool-engine-per-poll (see the module docstring)")
    p.add_argument("--no-purge", action="store_true",
                   help="keep messages already in the queue (they would distort the figure)")
    args = p.parse_args()
    n = args.tasks if args.tasks is not None else (20000 if args.backend == "none" else 5000)
    if n < 1:
        p.error("--tasks must be >= 1")

    load_before = os.getloadavg()[0]
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=3)
        wait_for_consumer(conn, timeout=min(args.timeout, 60.0))
        if not args.no_purge:
            dropped = purge(conn)
            if dropped:
                log(f"purged {dropped} stale messages from {tasks.QUEUE}")
        run = run_none if args.backend == "none" else run_postgres
        seconds, publish_seconds = run(n, args, conn)

    extra = {}
    if args.backend == "postgres":
        extra["result_client"] = "pooled" if args.pooled_client else "stock"
    print(json.dumps({
        "peer": "celery",
        "backend": args.backend,
        "tasks": n,
        "seconds": round(seconds, 4),
        "tasks_per_second": round(n / seconds, 1),
        "publish_seconds": round(publish_seconds, 4),
        "prefetch_multiplier": app.conf.worker_prefetch_multiplier,
        "confirm_publish": bool((app.conf.broker_transport_options or {}).get("confirm_publish")),
        **extra,
        # 1-minute load average before the run: other work on this 2-core machine shows here.
        "loadavg_1m_before": round(load_before, 2),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
