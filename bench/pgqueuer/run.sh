#!/usr/bin/env bash
# Peer benchmark: PgQueuer 1.x (2 worker processes, `pgq run`, durable tables) on the same
# PostgreSQL as Reparto, in a database of its own (recreated on every run). Prints one JSON line
# per run on stdout (flat out, then at a fixed offered rate); progress on stderr.
#
# Usage: bench/pgqueuer/run.sh
#   PGQUEUER_BENCH_TASKS=20000          jobs enqueued flat out
#   PGQUEUER_BENCH_RATE_TASKS=10000     jobs offered at PGQUEUER_BENCH_RATE
#   PGQUEUER_BENCH_RATE=1000            offered load, jobs/s (0: skip the rate run)
#   PGQUEUER_BENCH_PROCESSES=2          worker processes (one `pgq run` each)
#   PGQUEUER_BENCH_BATCH_SIZE=10        jobs a worker picks per dequeue (pgq run's default)
#   PGQUEUER_BENCH_ENQUEUE_BATCH=1000   jobs per INSERT when flat out
#   PGQUEUER_BENCH_DATABASE=pgqueuer_bench  the benchmark's database (dropped and recreated)
#   PGQUEUER_BENCH_STEP_TIMEOUT=900     seconds allowed for each benchmark run
# Needs python3 with venv (PyPI reachable) and the local services (scripts/services up).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENV_FILE="$HERE/../../.reparto/env"
VENV="$HERE/../.venv"
N_FLAT=${PGQUEUER_BENCH_TASKS:-20000}
N_RATE=${PGQUEUER_BENCH_RATE_TASKS:-10000}
RATE=${PGQUEUER_BENCH_RATE:-1000}
export PGQUEUER_BENCH_PROCESSES=${PGQUEUER_BENCH_PROCESSES:-2}
export PGQUEUER_BENCH_BATCH_SIZE=${PGQUEUER_BENCH_BATCH_SIZE:-10}
ENQUEUE_BATCH=${PGQUEUER_BENCH_ENQUEUE_BATCH:-1000}
STEP_TIMEOUT=${PGQUEUER_BENCH_STEP_TIMEOUT:-900}
[ "$STEP_TIMEOUT" -ge 60 ] || { echo "PGQUEUER_BENCH_STEP_TIMEOUT must be >= 60" >&2; exit 2; }
[ "$PGQUEUER_BENCH_PROCESSES" -ge 1 ] || { echo "PGQUEUER_BENCH_PROCESSES must be >= 1" >&2; exit 2; }
log() { printf 'pgqueuer-bench: %s\n' "$*" >&2; }

# 1. Virtualenv with pinned requirements (bench/.venv is git-ignored, shared with the other peers).
if [ ! -x "$VENV/bin/python" ]; then
  log "creating $VENV"
  timeout 120 python3 -m venv "$VENV"
fi
timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt" >&2

# 2. Service URLs (the file holds plain NAME=value lines; never echoed). consumer.py derives
#    the benchmark database's URL from REPARTO_DATABASE_URL.
[ -f "$ENV_FILE" ] || { log "missing $ENV_FILE: run scripts/services up"; exit 1; }
set -a
# shellcheck disable=SC1090
. "$ENV_FILE"
set +a
: "${REPARTO_DATABASE_URL:?not set by $ENV_FILE}"

cd "$HERE"
log "recreating database ${PGQUEUER_BENCH_DATABASE:-pgqueuer_bench} and installing PgQueuer's schema"
timeout 180 "$VENV/bin/python" "$HERE/bench.py" setup

# 3. Workers in the background, with a fresh completion-recorder directory (see consumer.py).
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pgqueuer-bench.XXXXXX")"
export PGQUEUER_BENCH_COUNTER_DIR="$WORK/counters"
mkdir -p "$PGQUEUER_BENCH_COUNTER_DIR"
WORKER_PIDS=()
cleanup() {
  local rc=$? pid
  for pid in "${WORKER_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done   # graceful
  for pid in "${WORKER_PIDS[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "worker $pid did not stop in 10s; killing its process group"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ]; then
    for f in "$WORK"/worker-*.log; do
      [ -s "$f" ] && { log "$(basename "$f") (last 30 lines):"; tail -n 30 "$f" >&2; }
    done
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "starting $PGQUEUER_BENCH_PROCESSES workers (pgq run, --batch-size $PGQUEUER_BENCH_BATCH_SIZE)"
for i in $(seq 1 "$PGQUEUER_BENCH_PROCESSES"); do
  # Own session each (setsid), so a worker can be stopped with its process group.
  setsid "$VENV/bin/pgq" run consumer:main --batch-size "$PGQUEUER_BENCH_BATCH_SIZE" \
    --log-level WARNING >"$WORK/worker-$i.log" 2>&1 &
  WORKER_PIDS+=($!)
done
# Each worker creates its counter file when its factory runs; stop early if one exits instead.
for _ in $(seq 1 300); do
  for pid in "${WORKER_PIDS[@]}"; do
    kill -0 "$pid" 2>/dev/null || { log "worker $pid exited during start-up"; exit 1; }
  done
  n=$(find "$PGQUEUER_BENCH_COUNTER_DIR" -name '*.count' | wc -l)
  [ "$n" -ge "$PGQUEUER_BENCH_PROCESSES" ] && break
  sleep 0.1
done
# bench.py waits again (bounded), and its warm-up jobs go through the workers before the clock.

# 4. Flat out, then at the offered rate; each prints one JSON line.
log "flat out: $N_FLAT jobs"
timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" run --tasks "$N_FLAT" \
  --enqueue-batch "$ENQUEUE_BATCH" --timeout "$((STEP_TIMEOUT - 30))"
if [ "$RATE" != 0 ]; then
  log "offered at $RATE jobs/s: $N_RATE jobs"
  timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" run --tasks "$N_RATE" --rate "$RATE" \
    --timeout "$((STEP_TIMEOUT - 30))"
fi
