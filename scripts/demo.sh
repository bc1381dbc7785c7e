#!/usr/bin/env bash
# The main job: set up, then compile the example GEMM through the whole pipeline to
# PTX, printing what each stage did.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
mkdir -p out
tilepipe compile examples/gemm.mlir --target sm_80 --emit ptx -o out/gemm.sm_80.ptx "$@"
