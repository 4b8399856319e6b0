#!/usr/bin/env bash
# Benchmarks the Reparto screenplay parser against screenplain and Jouvence (Python) on the
# same generated Fountain files, and prints the speed ratio.
#
# Usage: bench/parse/run.sh [ITERATIONS]
# Needs python3 with venv/pip (PyPI access) and a Swift toolchain.
# REPARTO_BIN=/path/to/reparto skips the release build (the binary must have `bench parse`);
# BENCH_USE_RUNNER=1 skips the CLI and times with bench/parse/runner (same ParseBenchmark loop).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
ITERATIONS=${1:-50}
OUT=${BENCH_OUT:-$ROOT/.build-bench-parse}
mkdir -p "$OUT"

# 1. Inputs: a ~150 KB feature and a ~600 KB long script (deterministic).
python3 bench/parse/generate.py "$OUT/feature.fountain" --target-bytes 150000 --seed 1
python3 bench/parse/generate.py "$OUT/long.fountain" --target-bytes 600000 --seed 2
FILES=("$OUT/feature.fountain" "$OUT/long.fountain")

# 2. Python parsers in bench/.venv.
if [ ! -x bench/.venv/bin/python ]; then python3 -m venv bench/.venv; fi
bench/.venv/bin/pip install -q screenplain jouvence

# 3. Reparto (release build): `reparto bench parse` when the CLI builds and has it mounted,
#    else bench/parse/runner, which runs the same RepartoBench.ParseBenchmark loop.
SCRATCH=${SCRATCH:-.build-screenplay-release}
SWIFT_CMD=()
if [ -z "${REPARTO_BIN:-}" ] && [ -z "${BENCH_USE_RUNNER:-}" ] && swift build -c release --scratch-path "$SCRATCH" --product reparto >&2; then
  REPARTO_BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/reparto"
fi
if [ -n "${REPARTO_BIN:-}" ] && "$REPARTO_BIN" bench parse --help >/dev/null 2>&1; then
  SWIFT_CMD=("$REPARTO_BIN" bench parse)
  echo "timing: $REPARTO_BIN bench parse" >&2
else
  echo "reparto bench parse unavailable; using bench/parse/runner (same ParseBenchmark loop)" >&2
  swift build -c release --package-path bench/parse/runner --scratch-path "$SCRATCH-runner" >&2
  SWIFT_CMD=("$(swift build -c release --package-path bench/parse/runner --scratch-path "$SCRATCH-runner" --show-bin-path)/parse-bench")
fi

echo "== reparto (Swift, release) =="
"${SWIFT_CMD[@]}" "${FILES[@]}" --iterations "$ITERATIONS" | tee "$OUT/swift.tsv"
PY_ITER=$(( ITERATIONS / 5 > 3 ? ITERATIONS / 5 : 3 ))
echo "== screenplain =="
bench/.venv/bin/python bench/parse/time_python.py screenplain "${FILES[@]}" --iterations "$PY_ITER" | tee "$OUT/screenplain.tsv"
echo "== jouvence =="
bench/.venv/bin/python bench/parse/time_python.py jouvence "${FILES[@]}" --iterations "$PY_ITER" | tee "$OUT/jouvence.tsv"

echo "== ratio (mean time of the Python parser / mean time of reparto) =="
python3 - "$OUT" <<'PY'
import sys, os
out = sys.argv[1]
def load(name, file_col, mean_col):
    rows = {}
    for line in open(os.path.join(out, name)):
        parts = line.rstrip("\n").split("\t")
        if parts[0] == "file":
            continue
        rows[os.path.basename(parts[file_col])] = float(parts[mean_col])
    return rows
swift = load("swift.tsv", 0, 3)
sp = load("screenplain.tsv", 1, 3)
jv = load("jouvence.tsv", 1, 3)
print(f"{'file':<20}{'reparto ms':>12}{'screenplain ms':>16}{'jouvence ms':>13}{'x screenplain':>15}{'x jouvence':>12}")
for f, ms in swift.items():
    print(f"{f:<20}{ms:>12.3f}{sp[f]:>16.1f}{jv[f]:>13.1f}{sp[f] / ms:>14.0f}x{jv[f] / ms:>11.0f}x")
PY
