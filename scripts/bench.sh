#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh), then times tisa's kernels against oneDNN, libxsmm and
# OpenBLAS on every reference workload at 1 and 2 threads (bench/tisa-bench) and writes
# results/<date>-<host>/results.md and chart.svg. Extra arguments go to tisa-bench, e.g.
#   scripts/bench.sh --filter bert --threads 1
# Run it on a quiet machine: 2-thread numbers mean nothing while another process uses a core.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR="${BUILD_DIR:-build}"
out="results/$(date +%Y-%m-%d)-$(hostname -s)"
"$BUILD_DIR/bin/tisa-bench" --report "$out" "$@"
echo "bench: $out/results.md, $out/chart.svg"
