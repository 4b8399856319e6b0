#!/usr/bin/env bash
# Fuzzes the Screenplay parsers (Fountain, FDX, Markdown) with libFuzzer + AddressSanitizer.
#
# Usage: scripts/fuzz-parsers.sh [SECONDS]   (default 60; FUZZ_JOBS=N for parallel workers)
# Leak detection is off: FoundationXML leaks one 72-byte CFError per malformed XML document
# (inside _CFErrorCreateFromXMLInterface), which is outside this code.
# Crashing inputs are written to .build-fuzz/artifacts/; keep each one as a regression test
# in Tests/ScreenplayTests/FuzzRegressionTests.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-60}
SCRATCH=.build-fuzz

FLAGS=(-Xswiftc -sanitize=fuzzer -Xswiftc -sanitize=address -Xswiftc -parse-as-library
       -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp)
# SwiftPM does not reliably rebuild every object when -Xswiftc flags change, and stale
# objects without (or with old-style) coverage make libFuzzer blind; rebuild on change.
mkdir -p "$SCRATCH"
if [ "$(cat "$SCRATCH/flags.stamp" 2>/dev/null)" != "${FLAGS[*]}" ]; then
  rm -rf "$SCRATCH"/*-unknown-linux-gnu "$SCRATCH/release" "$SCRATCH/build.db"
  echo "${FLAGS[*]}" > "$SCRATCH/flags.stamp"
fi
swift build -c release "${FLAGS[@]}" --package-path fuzz --scratch-path "$SCRATCH" --product ScreenplayFuzz
BIN="$(swift build -c release --package-path fuzz --scratch-path "$SCRATCH" --show-bin-path)/ScreenplayFuzz"

CORPUS="$SCRATCH/corpus"
mkdir -p "$CORPUS" "$SCRATCH/artifacts"
cp Tests/ScreenplayTests/Fixtures/* "$CORPUS/" 2>/dev/null || true
if [ -f bench/parse/generate.py ]; then
  python3 bench/parse/generate.py "$CORPUS/generated.fountain" --target-bytes 4000 --seed 7 || true
fi

SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$BIN" "$CORPUS" \
  -max_total_time="$SECONDS_TO_RUN" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=65536 \
  ${FUZZ_JOBS:+-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS} \
  -artifact_prefix="$SCRATCH/artifacts/" \
  -detect_leaks=0 \
  -print_final_stats=1
