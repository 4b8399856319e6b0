"""Dramatiq broker and actor for the peer benchmark (bench/dramatiq): a no-op on its own queue.

Reads the same service Reparto uses:
  REPARTO_AMQP_URL  -> RabbitmqBroker(url=..., confirm_delivery=True)

Durability: Dramatiq declares its queues durable and publishes every message persistent
(delivery_mode=2); confirm_delivery=True makes every send wait for RabbitMQ's publisher confirm.
Messages are acknowledged after the actor has run (Dramatiq's only mode: at-least-once).

Knobs (environment):
  DRAMATIQ_BENCH_QUEUE        queue name (default "dramatiq-bench"; never a reparto.* name).
                              Dramatiq adds "<queue>.DQ" (delays) and "<queue>.XQ" (dead letters).
  DRAMATIQ_BENCH_COUNTER_DIR  directory shared with bench.py; when set, each worker process
                              records the jobs it finished and their latencies (see below)
"""
from __future__ import annotations

import os
import threading
import time

import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import dramatiq  # noqa: E402
from dramatiq.brokers.rabbitmq import RabbitmqBroker  # noqa: E402
from dramatiq.middleware import Middleware  # noqa: E402

from peerlib.completion import CompletionFiles  # noqa: E402

QUEUE = os.environ.get("DRAMATIQ_BENCH_QUEUE", "dramatiq-bench")
if QUEUE.startswith("reparto."):
    raise SystemExit(f"refusing to use Reparto's queue namespace: {QUEUE!r}")
ACTOR = "bench_noop"


def _require(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set (source .reparto/env)")
    return value


# --- Completion recorder ------------------------------------------------------------------------
# The same method as bench/celery's --backend none: RabbitMQ without the management plugin only
# reports *ready* messages, and the last prefetch window (delivered, running or finished but not
# yet acked) is invisible there, so "queue empty" would stop the clock early. Every worker process
# therefore keeps an 8-byte count of the no-op jobs it finished in <dir>/<pid>-<random>.count,
# mapped shared and bumped right after the actor returned (after_process_message, the point of
# Celery's task_postrun: before the ack). Each job carries its enqueue time (CLOCK_MONOTONIC,
# one clock for every process on the machine); the latency enqueue→finish in nanoseconds is
# appended to <dir>/<pid>-<random>.lat as 8 bytes *before* the count moves, so once bench.py
# has counted N jobs their N latencies are in the files. Cost: one store into a shared page and
# one 8-byte write per job.
class CompletionRecorder(Middleware):
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: CompletionFiles | None = None

    def after_process_message(self, broker, message, *, result=None, exception=None) -> None:
        if exception is not None or message.actor_name != ACTOR:
            return
        with self.lock:  # worker threads share the process's files
            if self.files is None:
                directory = os.environ.get("DRAMATIQ_BENCH_COUNTER_DIR")
                if not directory:
                    return
                self.files = CompletionFiles(directory)
            self.files.finished(message.args[0] if message.args else None)

    def before_worker_shutdown(self, broker, worker) -> None:
        if self.files is not None:
            self.files.flush()


broker = RabbitmqBroker(url=_require("REPARTO_AMQP_URL"), confirm_delivery=True)
broker.add_middleware(CompletionRecorder())
dramatiq.set_broker(broker)


@dramatiq.actor(actor_name=ACTOR, queue_name=QUEUE)
def noop(enqueued_ns: int) -> None:
    """No-op. The argument is the enqueue time (time.monotonic_ns()) the recorder reads."""
    return None
