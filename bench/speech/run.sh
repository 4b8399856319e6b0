#!/usr/bin/env bash
# Speech benchmark: the same ~200 lines through Reparto vs espeak-ng called directly.
#
#   bench/speech/run.sh [LINES]        (default 200; CONFIG=release for an optimized build;
#                                        REPARTO_BIN=path to use an existing binary;
#                                        CLUSTER=0 to skip the cluster part)
#
# Measurements 1-3 are pinned to CPU 0 with taskset:
#   1. shell:   a bash loop running `espeak-ng --stdout -v en-us` once per line, WAV to a file
#   2. cli:     `reparto speak --lines FILE --output-dir DIR` (one process, EspeakProvider, WAV files)
#   3. inproc:  `reparto bench speech` (Process-per-line baseline vs provider inside one process)
#   4. cluster: `reparto bench speech --cluster` (needs RabbitMQ + PostgreSQL, e.g. scripts/services up):
#               espeak-ng directly with 1 and 2 pinned processes, libespeak-ng directly from C
#               (bench/speech/espeak-loop.c, compiled here) with 1 and 2, `reparto speak --lines`, and 1 and 2
#               pinned `reparto worker`s running generate jobs in a database of their own, fresh content
#               keys per run (nothing reused; the report says so), peers back-to-back in each round.
# Prints seconds and overhead of Reparto over the direct calls. Not a test: nothing asserts.
set -euo pipefail
cd "$(dirname "$0")/../.."
N="${1:-200}"
CONFIG="${CONFIG:-debug}"
if [[ "$CONFIG" == release ]]; then SCRATCH="${SCRATCH:-.build-speech-release}"; else SCRATCH="${SCRATCH:-.build-speech}"; fi
VOICE="${VOICE:-en-us}"
PIN=(taskset -c 0)
command -v taskset >/dev/null || PIN=()

if [[ -n "${REPARTO_BIN:-}" ]]; then
  BIN="$REPARTO_BIN"                       # an already built reparto (or stand-in with the same commands)
else
  swift build --scratch-path "$SCRATCH" -c "$CONFIG" --product reparto >/dev/null
  BIN="$SCRATCH/$CONFIG/reparto"
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 - "$N" > "$WORK/lines.txt" <<'PY'
import sys
subjects = ["Isolde", "The old captain", "Tristan", "A waiter", "The radio", "Marke", "Nobody", "The kettle"]
verbs = ["looks out over", "slowly crosses", "whispers about", "points at", "forgets", "circles back to"]
objects = ["the harbour at night.", "a letter nobody wrote.", "the empty kitchen.", "the last train home.",
           "three cold cups of tea.", "the storm rolling in from the west."]
for i in range(int(sys.argv[1])):
    print(f"{subjects[i % 8]} {verbs[(i // 3) % 6]} {objects[(i // 7) % 6]}")
PY

shell_run() {
  mkdir -p "$WORK/shell"; local i=0
  while IFS= read -r line; do
    i=$((i + 1)); printf '%s' "$line" | espeak-ng --stdout -v "$VOICE" > "$WORK/shell/$i.wav"
  done < "$WORK/lines.txt"
}
export -f shell_run; export WORK VOICE

ROUNDS="${ROUNDS:-5}"
# /usr/bin/time gives wall seconds and user+system CPU seconds including children (the espeak-ng
# processes): CPU time is the steadier figure on a machine shared with other builds.
measure() { /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >/dev/null; awk '{printf "%s %.3f\n", $1, $2 + $3}' "$WORK/time"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$WORK/shell.t"; : > "$WORK/cli.t"
for ((round = 1; round <= ROUNDS; round++)); do   # alternate the two sides so load changes hit both
  measure "${PIN[@]}" bash -c shell_run >> "$WORK/shell.t"
  measure "${PIN[@]}" "$BIN" speak --lines "$WORK/lines.txt" --output-dir "$WORK/cli" --voice "$VOICE" --quiet >> "$WORK/cli.t"
done
SW=$(cut -d' ' -f1 "$WORK/shell.t" | median); SC=$(cut -d' ' -f2 "$WORK/shell.t" | median)
CW=$(cut -d' ' -f1 "$WORK/cli.t" | median);   CC=$(cut -d' ' -f2 "$WORK/cli.t" | median)
echo "lines: $N  voice: $VOICE  config: $CONFIG  rounds: $ROUNDS (medians)  pinned: ${PIN[*]:-no}"
printf '%-24s wall %6.3f s (%5.2f ms/line)   cpu %6.3f s\n' "shell loop espeak-ng" "$SW" "$(echo "$SW * 1000 / $N" | bc -l)" "$SC"
printf '%-24s wall %6.3f s (%5.2f ms/line)   cpu %6.3f s\n' "reparto speak --lines" "$CW" "$(echo "$CW * 1000 / $N" | bc -l)" "$CC"
printf 'overhead: wall %.1f %%, cpu %.1f %%\n' "$(echo "($CW / $SW - 1) * 100" | bc -l)" "$(echo "($CC / $SC - 1) * 100" | bc -l)"
echo "files: shell $(ls "$WORK/shell" | wc -l), reparto $(ls "$WORK/cli" | wc -l)"

echo "--- in-process (reparto bench speech) ---"
"${PIN[@]}" "$BIN" bench speech --lines "$WORK/lines.txt" --voice "$VOICE" --rounds "$ROUNDS"

if [[ "${CLUSTER:-1}" != 0 ]]; then
  echo "--- cluster (reparto bench speech --cluster; load average: $(cut -d' ' -f1-3 /proc/loadavg)) ---"
  # Not pinned itself: it pins its children (CPU 0, and CPU 1 for the second process / worker).
  # The strictest peer: libespeak-ng called directly from C (bench/speech/espeak-loop.c).
  PEER=()
  if cc -O2 -o "$WORK/espeak-loop" bench/speech/espeak-loop.c -lespeak-ng; then PEER=(--library-peer "$WORK/espeak-loop"); fi
  "$BIN" bench speech --cluster --count "$N" --voice "$VOICE" --rounds "${CLUSTER_ROUNDS:-3}" "${PEER[@]}" 2>/dev/null
fi
