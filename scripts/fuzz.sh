#!/usr/bin/env bash
# Fuzzes tisa with libFuzzer: installs clang-22's runtimes, builds build-fuzz/
# with every tisa source instrumented (-fsanitize=fuzzer-no-link, ASan, UBSan),
# then runs each fuzz target for a time budget over a working corpus seeded
# from the shipped descriptions and the test inputs.
#   scripts/fuzz.sh [SECONDS per target, default 600]
# TISA_FUZZ_TARGETS picks some of: descriptions targets matcher (default all).
# Crashes land in fuzz-out/<target>/; copy each into test/fuzz/crashes/<kind>/
# once fixed, where ctest replays it. Each target runs in libFuzzer's fork mode
# so that a crash does not end its run; afterwards every crash is replayed, and
# one inside MLIR 22's own parser (tisa::parseModule recovers from those in a
# normal build and reports an error, but a sanitizer's fatal report, such as
# an allocation too big, cannot be recovered from) is listed as MLIR's; any
# other crash, timeout or out-of-memory fails the run.
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
  "$BUILD_DIR/bin/$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=0 -ignore_ooms=0 \
    -max_total_time="$budget" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$out/" "$corpus"
  classify "$target" "$out"
}

classify() { # target, output directory: fails on a crash that is not MLIR's parser's
  local target="$1" out="$2" mlir=0 ours=0 crash
  for crash in "$out"/crash-*; do
    [ -e "$crash" ] || continue
    # The whole stack (MLIR's frames have no frame pointers); the replay
    # fails, as it should.
    local report
    report=$(ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0:fast_unwind_on_fatal=0" \
               "$BUILD_DIR/bin/$target" "$crash" 2>&1 || true)
    if awk '/^ *#[0-9]+ /{ if (!top && /tisa::/) top = $0; if (/mlir::parseSourceFile/) parser = 1 }
            END { exit !(parser && top ~ /tisa::parseModule/) }' <<< "$report"; then
      echo "fuzz.sh: $crash crashes MLIR 22's parser (recovered from outside a sanitizer)"
      mlir=$((mlir + 1))
    else
      echo "fuzz.sh: $crash: a crash in tisa" >&2
      ours=$((ours + 1))
    fi
  done
  echo "fuzz.sh: $target: $ours crashes in tisa, $mlir in MLIR's parser"
  [ "$ours" -eq 0 ]
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
