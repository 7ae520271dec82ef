#!/usr/bin/env bash
# Fuzzes tisa with libFuzzer: installs clang-22's runtimes, builds build-fuzz/
# with every tisa source instrumented (-fsanitize=fuzzer-no-link, ASan, UBSan),
# then runs each fuzz target for a time budget over a working corpus seeded
# from the shipped descriptions and the test inputs.
#   scripts/fuzz.sh [SECONDS per target, default 600]
# TISA_FUZZ_TARGETS picks some of: descriptions targets matcher (default all).
# Crashes land in fuzz-out/<target>/; copy each into test/fuzz/crashes/<kind>/
# once fixed, where ctest replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-600}"
# clang-22's sanitizer and libFuzzer runtimes (not needed by the normal build).
export TISA_EXTRA_PACKAGES="libclang-rt-22-dev"
export BUILD_DIR="${BUILD_DIR:-build-fuzz}"
export TISA_CMAKE_ARGS="-DTISA_FUZZ=ON -DLLVM_USE_SANITIZER=Address;Undefined -DLLVM_UBSAN_FLAGS=-fsanitize=undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo"
scripts/setup.sh
# allow_user_poisoning=0: as in scripts/sanitize.sh (LLVM's allocators poison
# in instrumented code and not in libMLIR, which shares them).
export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

run() { # target, file pattern, seed directories...
  local target="$1" pattern="$2"; shift 2
  local out="fuzz-out/$target" corpus="fuzz-out/$target/corpus"
  mkdir -p "$corpus"
  for seed in "$@"; do
    [ -e "$seed" ] && find "$seed" -type f -name "$pattern" -exec cp -n {} "$corpus/" \;
  done
  "$BUILD_DIR/bin/$target" -max_total_time="$budget" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$out/" -print_final_stats=1 "$corpus"
}
targets="${TISA_FUZZ_TARGETS:-descriptions targets matcher}"
for t in $targets; do
  case "$t" in
    descriptions) run tisa-fuzz-descriptions '*.mlir' isa-descriptions test/lit/Inputs \
                    test/lit/errors test/fuzz/crashes/descriptions ;;
    targets) run tisa-fuzz-targets '*.json' targets/data test/lit test/fuzz/crashes/targets ;;
    matcher) run tisa-fuzz-matcher '*.mlir' test/lit test/fuzz/crashes/programs ;;
    *) echo "fuzz.sh: unknown target '$t' (descriptions, targets, matcher)" >&2; exit 2 ;;
  esac
done
