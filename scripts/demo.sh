#!/usr/bin/env bash
# The main job: set up, build, then load every instruction description, show how this machine
# executes each, and verify them all (schema, evaluator, compiled lowering, differential run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo
echo "== tisa isa list"
build/bin/tisa isa list
echo
echo "== tisa isa verify"
build/bin/tisa isa verify
