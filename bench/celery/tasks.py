"""Celery app for the peer benchmark (bench/celery): a no-op task on a dedicated queue.

Reads the same services Reparto uses:
  REPARTO_AMQP_URL      -> broker (amqp://user:pass@host:port/vhost)
  REPARTO_DATABASE_URL  -> result backend, as db+postgresql+psycopg2://... (SQLAlchemy)

Knobs (environment):
  CELERY_BENCH_QUEUE               queue name (default "celery-bench"; never a reparto.* name)
  CELERY_BENCH_PREFETCH_MULTIPLIER worker_prefetch_multiplier (default 4, Celery's own default:
                                   a window of 4 x concurrency = 8 unacked messages per worker)
  CELERY_BENCH_CONFIRM_PUBLISH     "1" makes the producer wait for a publisher confirm on
                                   every message (Celery's default is no confirms)
  CELERY_BENCH_COUNTER_DIR         directory shared with bench.py; when set, each worker
                                   process records how many tasks it has finished (see below)
"""
from __future__ import annotations

import mmap
import os
import struct
import uuid

from celery import Celery
from celery.signals import task_postrun, worker_process_shutdown
from kombu import Exchange, Queue

QUEUE = os.environ.get("CELERY_BENCH_QUEUE", "celery-bench")
if QUEUE.startswith("reparto."):
    raise SystemExit(f"refusing to use Reparto's queue namespace: {QUEUE!r}")


def _require(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set (source .reparto/env)")
    return value


def result_backend_url(database_url: str) -> str:
    """postgres://u:p@h:port/db or postgresql://... -> db+postgresql+psycopg2://u:p@h:port/db"""
    for prefix in ("postgresql://", "postgres://"):
        if database_url.startswith(prefix):
            return "db+postgresql+psycopg2://" + database_url[len(prefix):]
    raise SystemExit("REPARTO_DATABASE_URL must start with postgres:// or postgresql://")


app = Celery("celery_bench")
app.conf.update(
    broker_url=_require("REPARTO_AMQP_URL"),
    result_backend=result_backend_url(_require("REPARTO_DATABASE_URL")),
    # Own table names, so the benchmark never collides with anything in Reparto's schema.
    database_table_names={"task": "celery_bench_taskmeta", "group": "celery_bench_groupmeta"},
    # A dedicated durable queue (and direct exchange of the same name).
    task_queues=[Queue(QUEUE, Exchange(QUEUE, type="direct"), routing_key=QUEUE)],
    task_default_queue=QUEUE,
    task_default_exchange=QUEUE,
    task_default_routing_key=QUEUE,
    task_create_missing_queues=False,
    # Acknowledge after the task has run (at-least-once, like Reparto's workers).
    task_acks_late=True,
    worker_prefetch_multiplier=int(os.environ.get("CELERY_BENCH_PREFETCH_MULTIPLIER", "4")),
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_extended=False,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
)
if os.environ.get("CELERY_BENCH_CONFIRM_PUBLISH") == "1":
    app.conf.broker_transport_options = {"confirm_publish": True}


@app.task(name="bench.noop", ignore_result=True)
def noop() -> None:
    """No-op, result ignored (--backend none)."""
    return None


@app.task(name="bench.noop_stored", ignore_result=False)
def noop_stored() -> None:
    """No-op whose result (SUCCESS, None) is stored in PostgreSQL (--backend postgres)."""
    return None


# --- Completion counter for --backend none -------------------------------------------------
# With ignore_result there is nothing to wait on, and RabbitMQ (without the management plugin)
# only reports *ready* messages through a passive queue.declare: with acks_late the last
# prefetch window (delivered, running or finished-but-not-yet-acked) is invisible there, so
# "queue empty" alone would stop the clock early. Instead every worker process keeps an 8-byte
# count of bench.noop tasks it has finished in its own file <CELERY_BENCH_COUNTER_DIR>/<pid>-<random>.count,
# mapped shared, bumped in task_postrun (after the task body returned, i.e. the same point at
# which the result would have been stored). bench.py sums the files. Cost: one store into a
# shared page per task, no syscall.
_counter: mmap.mmap | None = None
_count = 0


def _open_counter() -> mmap.mmap | None:
    directory = os.environ.get("CELERY_BENCH_COUNTER_DIR")
    if not directory:
        return None
    # pid plus a random suffix: a replacement child that reuses a pid never clobbers a count.
    path = os.path.join(directory, f"{os.getpid()}-{uuid.uuid4().hex[:8]}.count")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.ftruncate(fd, 8)
        return mmap.mmap(fd, 8, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)


@task_postrun.connect
def _count_finished(sender=None, **_kwargs) -> None:
    global _counter, _count
    if getattr(sender, "name", None) != "bench.noop":
        return
    if _counter is None:
        _counter = _open_counter()
        if _counter is None:
            return
    _count += 1
    struct.pack_into("<Q", _counter, 0, _count)


@worker_process_shutdown.connect
def _close_counter(**_kwargs) -> None:
    if _counter is not None:
        _counter.flush()
