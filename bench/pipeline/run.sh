#!/usr/bin/env bash
# A feature-length table read (generated script, ~1,500 speakable lines) from submission to the
# assembled WAV, on a coordinator and two workers in one process, against espeak-ng run directly
# on the same lines, one process per core, and libespeak-ng called directly from C (the stricter
# peer, bench/speech/espeak-loop.c); then the same with loudness normalization and MP3 for
# espeak-ng, flite and Piper (against each engine's own command run directly: the flite command,
# Piper's `python -m piper` in two processes; and against the by-hand baseline: that run, then
# the lines joined, normalized with ffmpeg's loudnorm in two passes and encoded with LAME).
# Release build; local services from scripts/services (which also install Piper and its voice).
# Extra arguments go to `reparto bench pipeline` (--lines, --workers, --concurrency, --lines-per-job).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
scripts/services up >/dev/null
R="$(scripts/build-release)"
PEER_DIR="$(mktemp -d)"; trap 'rm -rf "$PEER_DIR"' EXIT
cc -O2 -o "$PEER_DIR/espeak-loop" bench/speech/espeak-loop.c -lespeak-ng
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
$R bench pipeline --lines 1500 --workers 2 --skip-by-hand --library-peer "$PEER_DIR/espeak-loop" "$@"
$R bench pipeline --lines 1500 --workers 2 --lines-per-job 4 --skip-by-hand --library-peer "$PEER_DIR/espeak-loop" "$@"
$R bench pipeline --lines 1500 --workers 2 --formats wav,mp3 "$@"
$R bench pipeline --lines 1500 --workers 2 --formats wav,mp3 --provider flite "$@"
$R bench pipeline --lines 1500 --workers 2 --formats wav,mp3 --provider piper "$@"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
