#!/usr/bin/env bash
# Does the quick tier catch what it is meant to catch? Plants each bug of scripts/planted-bugs/
# in turn (a wrong lane layout in a description, an off-by-one in a conv2d border, a wrong AMX tile
# configuration, a swapped Arm operand order), rebuilds, runs `ctest -L quick`, and reverts it.
# Succeeds when the quick tier fails on every one of them (and names the tests that caught each);
# fails when one goes unnoticed. The tree must be clean where the patches apply; the build is
# rebuilt as it was at the end.
#   scripts/planted-bugs.sh [PATCH...]     default: every patch; BUILD_DIR as for scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
patches=("$@")
[ ${#patches[@]} -eq 0 ] && patches=(scripts/planted-bugs/*.patch)
missed=()
for p in "${patches[@]}"; do
  git apply --check "$p"
  git apply "$p"
  echo "== planted: $(basename "$p" .patch)"
  status=0
  if cmake --build "$build" > "$build/planted-build.log" 2>&1; then
    (cd "$build" && ctest -L quick -j "$(nproc)" > planted-ctest.log 2>&1) || status=$?
    grep -E "\*\*\*Failed|Exception|Timeout" "$build/planted-ctest.log" | sed -E 's/ +[.]+.*//; s/^ */   caught by /' | head -5 || true
    grep -E "tests passed, [0-9]+ tests failed out of" "$build/planted-ctest.log" | sed 's/^/   /' || true
  else
    status=1
    echo "   the build fails"
  fi
  git apply -R "$p"
  [ "$status" -eq 0 ] && missed+=("$(basename "$p" .patch)")
done
cmake --build "$build" > "$build/planted-build.log" 2>&1
if [ ${#missed[@]} -ne 0 ]; then
  echo "planted-bugs: the quick tier passed with: ${missed[*]}" >&2
  exit 1
fi
echo "planted-bugs: the quick tier failed on each of ${#patches[@]} planted bugs"
