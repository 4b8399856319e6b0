#!/usr/bin/env bash
# `reparto bench analyze`: a 120-scene synthetic script analysed under provider:openai --rate 20/s,
# against a stand-in OpenAI-compatible provider answering every request in 200 ms
# (bench/analyze/standin.py, never part of the shipped binary). The bench command creates a
# database of its own, starts one coordinator and two workers as its children (they inherit
# OPENAI_BASE_URL), sets the limit, submits the analysis and reports the achieved admission rate
# from the first scene job to the last against the limit, and the total time against the ideal.
# Needs the services of .reparto/env (or REPARTO_* in the environment). Release build unless
# REPARTO points at another binary. Extra arguments go to `reparto bench analyze`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
R="${REPARTO:-}"
[ -n "$R" ] || R="$(nice -n 5 scripts/build-release)"
PORT="${STANDIN_PORT:-18431}"
python3 bench/analyze/standin.py --port "$PORT" --delay 0.2 &
STANDIN=$!
trap 'kill "$STANDIN" 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$PORT/stats" >/dev/null && break; sleep 0.1; done
export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_TEXT_MODEL=bench-chat OPENAI_EMBEDDING_MODEL=bench-embed
unset OPENAI_API_KEY OPENAI_API_KEY_FILE ANTHROPIC_API_KEY ANTHROPIC_API_KEY_FILE
ENV_FILE=()
[ -f .reparto/env ] && ENV_FILE=(--env-file .reparto/env)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$R" bench analyze "${ENV_FILE[@]}" --scenes 120 --rate 20 "$@"
echo "stand-in saw: $(curl -fs "http://127.0.0.1:$PORT/stats")"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
