#!/usr/bin/env bash
# Set up, build and run the whole test suite through ctest.
#   scripts/test.sh            everything (what .ci/run runs)
#   scripts/test.sh --quick    the quick tier (ctest -L quick): every register class, type family
#                              and tool once, for after each edit
# Any other arguments go to ctest (e.g. -R ArmKernels). Per-test times land in
# build/Testing/ctest-junit.xml (scripts/test-times.sh reads them). Then the skipped tests are
# counted by reason, and a skip that setup.sh should have ruled out (qemu, the aarch64 cross
# libraries, the CUDA toolkit: scripts/test-skips.sh) fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for a in "$@"; do
  if [ "$a" = "--quick" ]; then args+=(-L quick); else args+=("$a"); fi
done
scripts/setup.sh
build="${BUILD_DIR:-build}"
junit="$PWD/$build/Testing/ctest-junit.xml"
log="$PWD/$build/Testing/ctest-output.txt"
mkdir -p "$build/Testing"
set +e
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --output-junit "$junit" \
  ${args[@]+"${args[@]}"}) 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
skips=0
scripts/test-skips.sh "$junit" || skips=1
# ctest's summary once more, last, where a reader (and CI) looks for it.
grep -E "tests passed, [0-9]+ tests failed out of" "$log" | tail -n 1 || true
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit "$skips"
