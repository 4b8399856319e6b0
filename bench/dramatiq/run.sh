#!/usr/bin/env bash
# Peer benchmark: Dramatiq 2.x (2 worker processes, confirmed persistent messages on durable
# queues, acks after the actor ran) on the same RabbitMQ as Reparto. Prints one JSON line per
# run on stdout (flat out, then at a fixed offered rate); progress on stderr.
#
# Usage: bench/dramatiq/run.sh
#   DRAMATIQ_BENCH_TASKS=20000       jobs sent flat out
#   DRAMATIQ_BENCH_RATE_TASKS=10000  jobs offered at DRAMATIQ_BENCH_RATE
#   DRAMATIQ_BENCH_RATE=1000         offered load, jobs/s (0: skip the rate run)
#   DRAMATIQ_BENCH_PROCESSES=2       worker processes
#   DRAMATIQ_BENCH_THREADS=8         worker threads per process (Dramatiq's default)
#   DRAMATIQ_BENCH_PREFETCH          unacked messages per process (default: Dramatiq's, 2 x threads)
#   DRAMATIQ_BENCH_STEP_TIMEOUT=900  seconds allowed for each benchmark run
# Needs python3 with venv (PyPI reachable) and the local services (scripts/services up).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENV_FILE="$HERE/../../.reparto/env"
VENV="$HERE/../.venv"
N_FLAT=${DRAMATIQ_BENCH_TASKS:-20000}
N_RATE=${DRAMATIQ_BENCH_RATE_TASKS:-10000}
RATE=${DRAMATIQ_BENCH_RATE:-1000}
export DRAMATIQ_BENCH_PROCESSES=${DRAMATIQ_BENCH_PROCESSES:-2}
export DRAMATIQ_BENCH_THREADS=${DRAMATIQ_BENCH_THREADS:-8}
STEP_TIMEOUT=${DRAMATIQ_BENCH_STEP_TIMEOUT:-900}
[ "$STEP_TIMEOUT" -ge 60 ] || { echo "DRAMATIQ_BENCH_STEP_TIMEOUT must be >= 60" >&2; exit 2; }
if [ -n "${DRAMATIQ_BENCH_PREFETCH:-}" ]; then
  export dramatiq_queue_prefetch="$DRAMATIQ_BENCH_PREFETCH"   # read by dramatiq.worker
fi
log() { printf 'dramatiq-bench: %s\n' "$*" >&2; }

# 1. Virtualenv with pinned requirements (bench/.venv is git-ignored, shared with the other peers).
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  timeout 120 python3 -m venv "$VENV"
fi
timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt" >&2

# 2. Service URLs (the file holds plain NAME=value lines; never echoed).
[ -f "$ENV_FILE" ] || { log "missing $ENV_FILE: run scripts/services up"; exit 1; }
set -a
# shellcheck disable=SC1090
. "$ENV_FILE"
set +a
: "${REPARTO_AMQP_URL:?not set by $ENV_FILE}"

# 3. Workers in the background, with a fresh completion-recorder directory (see actors.py).
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dramatiq-bench.XXXXXX")"
export DRAMATIQ_BENCH_COUNTER_DIR="$WORK/counters"
mkdir -p "$DRAMATIQ_BENCH_COUNTER_DIR"
WORKER_LOG="$WORK/worker.log"
WORKER_PID=""
cleanup() {
  local rc=$?
  if [ -n "$WORKER_PID" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
    kill -TERM "$WORKER_PID" 2>/dev/null || true          # graceful shutdown of every process
    for _ in $(seq 1 100); do kill -0 "$WORKER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$WORKER_PID" 2>/dev/null; then
      log "workers did not stop in 10s; killing their process group"
      kill -KILL -- "-$WORKER_PID" 2>/dev/null || kill -KILL "$WORKER_PID" 2>/dev/null || true
    fi
    wait "$WORKER_PID" 2>/dev/null || true
  fi
  if [ "$rc" -ne 0 ] && [ -s "$WORKER_LOG" ]; then
    log "worker log (last 30 lines):"; tail -n 30 "$WORKER_LOG" >&2
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$HERE"
log "starting workers ($DRAMATIQ_BENCH_PROCESSES processes x $DRAMATIQ_BENCH_THREADS threads)"
# Own session (setsid), so the worker processes can be stopped with it as one process group.
# bench.py waits (bounded) until every process consumes the queue before it sends anything.
setsid "$VENV/bin/dramatiq" actors --processes "$DRAMATIQ_BENCH_PROCESSES" \
  --threads "$DRAMATIQ_BENCH_THREADS" >"$WORKER_LOG" 2>&1 &
WORKER_PID=$!

# 4. Flat out, then at the offered rate; each prints one JSON line.
log "flat out: $N_FLAT jobs"
timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" --tasks "$N_FLAT" \
  --timeout "$((STEP_TIMEOUT - 30))"
if [ "$RATE" != 0 ]; then
  log "offered at $RATE jobs/s: $N_RATE jobs"
  timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" --tasks "$N_RATE" --rate "$RATE" \
    --timeout "$((STEP_TIMEOUT - 30))"
fi
