#!/usr/bin/env bash
# The main job: set up, build, then load every instruction description, show how this machine
# executes each, verify them all (schema, evaluator, compiled lowering, differential run), and
# show the plans the matcher finds for a BERT GEMM and a ResNet-50 convolution on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo
echo "== tisa isa list"
build/bin/tisa isa list
echo
echo "== tisa isa verify"
build/bin/tisa isa verify
echo
echo "== tisa match docs/examples/resnet-bert.mlir (plans for this machine)"
build/bin/tisa match docs/examples/resnet-bert.mlir
