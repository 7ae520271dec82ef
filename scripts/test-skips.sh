#!/usr/bin/env bash
# Skipped tests by reason, from the JUnit file the last ctest run wrote; fails when a test skipped
# for a reason scripts/setup.sh exists to rule out (qemu-user, the aarch64 cross C library, the
# arm64 vendor packages, the counting plugin, the image's CUDA toolkit): a broken install step
# must not turn the suite green by skipping what it should have run.
#   scripts/test-skips.sh [JUNIT.xml]   default: ${BUILD_DIR:-build}/Testing/ctest-junit.xml
# Reasons this machine cannot help (no AMX, no GPU, a CPU without AVX512-BF16) are listed and
# allowed. TISA_ALLOW_SKIPS=1 allows every reason (a developer machine without the toolkit).
set -euo pipefail
cd "$(dirname "$0")/.."
junit="${1:-${BUILD_DIR:-build}/Testing/ctest-junit.xml}"
if [ ! -f "$junit" ]; then
  echo "test-skips: no $junit: run scripts/test.sh (or ctest --output-junit) first" >&2
  exit 1
fi
python3 - "$junit" "${TISA_ALLOW_SKIPS:-0}" <<'EOF'
import collections, re, sys, xml.etree.ElementTree as ET

# What setup.sh installs (or the machine image holds): a skip for one of these is a failure.
PROVIDED = [
    (r"qemu-aarch64 not found", "qemu-user"),
    (r"no aarch64 static libc", "libc6-dev-arm64-cross"),
    (r"clang for aarch64 not found", "clang-22"),
    (r"counting plugin .* is missing", "the qemu counting plugin (built with tisa)"),
    (r"tisa-arm-vendors is not built", "the arm64 vendor packages (setup.sh, multiarch)"),
    (r"ptxas not found", "the CUDA toolkit's ptxas"),
    (r"built without lld's library", "liblld-22-dev"),
    (r"llvm-mca.* missing|set TISA_LLVM_MCA", "llvm-22"),
]

def reason(case):
    text = "\n".join(e.text or "" for e in case.iter() if e.tag in ("system-out", "skipped"))
    text += " " + " ".join(e.get("message", "") for e in case.iter("skipped"))
    lines = [l.strip() for l in text.splitlines()]
    for i, line in enumerate(lines):  # GoogleTest: "file:line: Skipped" then the message
        if line.endswith(": Skipped") and i + 1 < len(lines) and lines[i + 1]:
            return lines[i + 1]
    for line in lines:
        if re.search(r"skipped|unsupported|cannot run|lacks", line, re.I):
            return line
    return "(no reason printed)"

skipped = collections.Counter()
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.find("skipped") is not None or case.get("status") == "notrun":
        skipped[reason(case)] += 1
total = sum(skipped.values())
print(f"skipped: {total} tests")
bad = []
for why, n in skipped.most_common():
    print(f"  {n:5d}  {why[:150]}")
    for pattern, package in PROVIDED:
        if re.search(pattern, why):
            bad.append((n, why, package))
if bad and sys.argv[2] != "1":
    for n, why, package in bad:
        print(f"test-skips: {n} tests skipped because {package} is missing, which "
              f"scripts/setup.sh should have provided: {why[:150]}", file=sys.stderr)
    sys.exit(1)
EOF
