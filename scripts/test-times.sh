#!/usr/bin/env bash
# Where the test suite's time goes: the 20 slowest tests and the total per suite, from the JUnit
# file the last `scripts/test.sh` (or `ctest --output-junit`) wrote.
#   scripts/test-times.sh [JUNIT.xml]     default: ${BUILD_DIR:-build}/Testing/ctest-junit.xml
# A suite is a GoogleTest suite (Matrix/ArmScalableKernels), a lit directory (lit/gen) or a
# family of ctest tests (isa-verify).
set -euo pipefail
cd "$(dirname "$0")/.."
junit="${1:-${BUILD_DIR:-build}/Testing/ctest-junit.xml}"
if [ ! -f "$junit" ]; then
  echo "test-times: no $junit: run scripts/test.sh (or ctest --output-junit) first" >&2
  exit 1
fi
python3 - "$junit" <<'EOF'
import collections, sys, xml.etree.ElementTree as ET

cases = []
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    status = case.get("status", "run")
    if case.find("failure") is not None:
        status = "failed"
    elif case.find("skipped") is not None:
        status = "skipped"
    cases.append((float(case.get("time", "0")), case.get("name"), status))

def suite(name):
    if "." in name.split("/")[-1] and not name.startswith(("lit/", "isa-verify/", "install/", "bench/")):
        return name.split(".")[0]  # GoogleTest: Instance/Suite.Test/param
    return "/".join(name.split("/")[:-1]) or name

total = sum(t for t, _, _ in cases)
print(f"{len(cases)} tests, {total:.0f} s of test time in all "
      f"({total / 60:.1f} min on one core)\n")
print("slowest tests:")
for t, name, status in sorted(cases, reverse=True)[:20]:
    print(f"  {t:7.1f} s  {name}" + ("" if status == "run" else f"  ({status})"))
by_suite = collections.defaultdict(lambda: [0.0, 0, 0])
for t, name, status in cases:
    s = by_suite[suite(name)]
    s[0] += t
    s[1] += 1
    s[2] += status == "skipped"
print("\nby suite (time, tests, skipped):")
for name, (t, n, skipped) in sorted(by_suite.items(), key=lambda kv: -kv[1][0]):
    print(f"  {t:7.1f} s  {n:5d}  {skipped:4d}  {name}")
EOF
