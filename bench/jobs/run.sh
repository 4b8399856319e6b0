#!/usr/bin/env bash
# Job throughput and latency, Reparto next to its peers, on the same RabbitMQ and PostgreSQL.
#
#   bench/jobs/run.sh            # 50,000 no-op jobs flat out, then 10,000 at 1,000 jobs/s,
#                                # then Celery, Dramatiq and PgQueuer
#
# Every run of every system starts with 200 untimed warm-up jobs through the same producer and
# workers (`bench jobs --warmup`, the peers' --warmup), so the figures are of warm connections.
# Reparto runs a coordinator and one worker process with 128 handler slots (release build; it
# refuses to start beside workers or coordinators already running on this machine), its
# deployment for one machine: the worker's threads use every core, and a second process on the
# same cores only doubles the round trips per job (see docs/architecture.md, "Figures");
# BENCH_WORKERS=2 runs two workers of 64 slots each instead. Every job is fully durable: row
# committed, message persistent and confirmed, completion committed before the ack.
# The peers (bench/celery, bench/dramatiq, bench/pgqueuer; their READMEs state the settings) run
# with two worker processes each, one per core (a Python process runs on one core at a time),
# and print one JSON line per run. Dramatiq and PgQueuer get the
# same counts and rate as Reparto: BENCH_JOBS flat out, BENCH_RATE_JOBS at BENCH_RATE jobs/s.
#   BENCH_RATE=quarter offers a quarter of Reparto's flat-out rate measured just before, to every
#   peer alike (latency at a quarter of the cluster's capacity, the usual operating point).
#   BENCH_SKIP_REPARTO=1 BENCH_SKIP_CELERY=1 BENCH_SKIP_DRAMATIQ=1 BENCH_SKIP_PGQUEUER=1 skip one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
COUNT="${BENCH_JOBS:-50000}"
RATE_COUNT="${BENCH_RATE_JOBS:-10000}"
RATE="${BENCH_RATE:-1000}"
if [ "$RATE" = quarter ] && [ "${BENCH_SKIP_REPARTO:-0}" = "1" ]; then
    echo "bench/jobs/run.sh: BENCH_RATE=quarter needs Reparto's flat-out run (unset BENCH_SKIP_REPARTO)" >&2
    exit 2
fi
WORKERS="${BENCH_WORKERS:-1}"
case "$WORKERS" in [1-9]|[1-9][0-9]) ;; *) echo "bench/jobs/run.sh: BENCH_WORKERS must be a whole number from 1 to 99, not '$WORKERS'" >&2; exit 2 ;; esac
case "$RATE" in quarter|[1-9]|[1-9][0-9]*) ;; *) echo "bench/jobs/run.sh: BENCH_RATE must be a whole number of jobs/s or quarter, not '$RATE'" >&2; exit 2 ;; esac

scripts/services up >/dev/null

# A worker or coordinator left running (another checkout's, a profiling script's) would claim the
# benchmark's jobs and take its CPU: every figure would be off. The reports count them too.
strays="$(for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = reparto ] || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qE '^[^ ]*reparto( -[^ ]+)* (worker|coordinator)( |$)' && echo -n "${p#/proc/} "
done)"
if [ -n "$strays" ]; then
    echo "bench/jobs/run.sh: Reparto workers or coordinators already run on this machine (pids ${strays% }); stop them first" >&2
    exit 1
fi

if [ "${BENCH_SKIP_REPARTO:-0}" != "1" ]; then
    R="$(scripts/build-release 2>/tmp/reparto-build-release.log)" || { grep -E "error:" /tmp/reparto-build-release.log; exit 1; }
    $R migrate >/dev/null

    pids=()
    cleanup() { for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
    trap cleanup EXIT
    mkdir -p .reparto/logs
    $R coordinator --log-level warning >.reparto/logs/bench-coordinator.log 2>&1 & pids+=($!)
    slots=$(( (128 + WORKERS - 1) / WORKERS ))
    for n in $(seq 1 "$WORKERS"); do
        $R worker --log-level warning --concurrency "$slots" --prefetch 1000 >".reparto/logs/bench-worker-$n.log" 2>&1 & pids+=($!)
    done
    sleep 1 # let the workers declare their queues and register
    echo "# reparto: $WORKERS worker process(es) of $slots handler slots"

    echo "# reparto: $COUNT no-op jobs, as fast as possible"
    flat="$($R bench jobs --count "$COUNT" --json)"
    echo "$flat"
    if [ "$RATE" = quarter ]; then
        RATE="$(printf '%s\n' "$flat" | sed -n 's/.*"jobs_per_second":\([0-9]*\).*/\1/p')"
        RATE=$(( ${RATE:-0} / 4 ))
        [ "$RATE" -ge 1 ] || { echo "bench/jobs/run.sh: no flat-out rate to take a quarter of" >&2; exit 1; }
    fi
    echo "# reparto: $RATE_COUNT no-op jobs offered at $RATE jobs/s"
    $R bench jobs --count "$RATE_COUNT" --rate "$RATE" --json
    cleanup
    pids=()
fi

if [ "${BENCH_SKIP_CELERY:-0}" != "1" ]; then
    echo "# celery (peer), same broker and database"
    bench/celery/run.sh
fi

if [ "${BENCH_SKIP_DRAMATIQ:-0}" != "1" ]; then
    echo "# dramatiq (peer), same broker: $COUNT jobs flat out, then $RATE_COUNT at $RATE jobs/s"
    DRAMATIQ_BENCH_TASKS="$COUNT" DRAMATIQ_BENCH_RATE_TASKS="$RATE_COUNT" DRAMATIQ_BENCH_RATE="$RATE" \
        bench/dramatiq/run.sh
fi

if [ "${BENCH_SKIP_PGQUEUER:-0}" != "1" ]; then
    echo "# pgqueuer (peer), same database server: $COUNT jobs flat out, then $RATE_COUNT at $RATE jobs/s"
    PGQUEUER_BENCH_TASKS="$COUNT" PGQUEUER_BENCH_RATE_TASKS="$RATE_COUNT" PGQUEUER_BENCH_RATE="$RATE" \
        bench/pgqueuer/run.sh
fi
