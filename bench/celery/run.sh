#!/usr/bin/env bash
# Peer benchmark: Celery 5.x (prefork, 2 processes, acks_late) on the same RabbitMQ and
# PostgreSQL as Reparto. Prints one JSON line per backend on stdout; progress on stderr.
#
# Usage: bench/celery/run.sh
#   CELERY_BENCH_TASKS=20000     tasks for --backend none
#   CELERY_BENCH_TASKS_PG=5000   tasks for --backend postgres
#   CELERY_BENCH_CONCURRENCY=2   worker processes
#   CELERY_BENCH_PREFETCH_MULTIPLIER=4, CELERY_BENCH_CONFIRM_PUBLISH=1: see tasks.py
#   CELERY_BENCH_STEP_TIMEOUT=900  seconds allowed for each benchmark run
#   CELERY_BENCH_PG_POOLED=1     also run --backend postgres --pooled-client (a third line,
#                                "result_client": "pooled"; see bench.py)
# Needs python3 with venv (PyPI reachable) and the local services (scripts/services up).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENV_FILE="$HERE/../../.reparto/env"
VENV="$HERE/../.venv"
N_NONE=${CELERY_BENCH_TASKS:-20000}
N_PG=${CELERY_BENCH_TASKS_PG:-5000}
CONCURRENCY=${CELERY_BENCH_CONCURRENCY:-2}
STEP_TIMEOUT=${CELERY_BENCH_STEP_TIMEOUT:-900}
[ "$STEP_TIMEOUT" -ge 60 ] || { echo "CELERY_BENCH_STEP_TIMEOUT must be >= 60" >&2; exit 2; }
log() { printf 'celery-bench: %s\n' "$*" >&2; }

# 1. Virtualenv with pinned requirements (bench/.venv is git-ignored).
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
: "${REPARTO_AMQP_URL:?not set by $ENV_FILE}" "${REPARTO_DATABASE_URL:?not set by $ENV_FILE}"

# 3. Worker in the background, with a fresh completion-counter directory (see tasks.py).
WORK="$(mktemp -d "${TMPDIR:-/tmp}/celery-bench.XXXXXX")"
export CELERY_BENCH_COUNTER_DIR="$WORK/counters"
mkdir -p "$CELERY_BENCH_COUNTER_DIR"
WORKER_LOG="$WORK/worker.log"
WORKER_PID=""
cleanup() {
  local rc=$?
  if [ -n "$WORKER_PID" ] && kill -0 "$WORKER_PID" 2>/dev/null; then
    kill -TERM "$WORKER_PID" 2>/dev/null || true          # warm shutdown
    for _ in $(seq 1 100); do kill -0 "$WORKER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$WORKER_PID" 2>/dev/null; then
      log "worker did not stop in 10s; killing its process group"
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
log "starting worker (prefork, concurrency $CONCURRENCY)"
# Own session (setsid), so the prefork children can be stopped with it as one process group.
setsid "$VENV/bin/celery" -A tasks worker --concurrency "$CONCURRENCY" --pool prefork \
  -Q celery-bench --loglevel warning >"$WORKER_LOG" 2>&1 &
WORKER_PID=$!

# 4. Ready when it answers a ping (bounded: 30 tries of at most ~5 s each).
ready=0
for _ in $(seq 1 30); do
  kill -0 "$WORKER_PID" 2>/dev/null || { log "worker exited during start-up"; exit 1; }
  if timeout 10 "$VENV/bin/celery" -A tasks inspect ping --timeout 2 >/dev/null 2>&1; then
    ready=1; break
  fi
  sleep 1
done
[ "$ready" = 1 ] || { log "worker not ready after 30 pings"; exit 1; }
log "worker ready"

# 5. Both backends; each prints one JSON line.
log "backend none: $N_NONE tasks"
timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" --backend none --tasks "$N_NONE" \
  --timeout "$((STEP_TIMEOUT - 30))"
log "backend postgres: $N_PG tasks"
timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" --backend postgres --tasks "$N_PG" \
  --timeout "$((STEP_TIMEOUT - 30))"
if [ "${CELERY_BENCH_PG_POOLED:-0}" = 1 ]; then
  log "backend postgres, pooled client: $N_PG tasks"
  timeout "$STEP_TIMEOUT" "$VENV/bin/python" "$HERE/bench.py" --backend postgres --tasks "$N_PG" \
    --pooled-client --timeout "$((STEP_TIMEOUT - 30))"
fi
