#!/usr/bin/env bash
# Regenerates the figures of README.md and docs/ that tilepipe draws itself, from the
# example kernels, with its own passes' report-svg options:
#   gemm-schedule.svg         inject-software-pipeline's modulo schedule of examples/gemm.mlir
#   gemm-arena.svg            merge-shared-memory's shared-memory arena of the same GEMM
#   gemm-epilogue-arena.svg   the arena of examples/gemm_epilogue.mlir (buffer reuse)
#   gemm-simulated.svg        the schedule simulator's Gantt chart of the same GEMM at
#                             num_stages 1 and 3 (tilepipe compile --schedule-svg draws one)
# into OUT_DIR (default docs/img).  docs/img/pipeline.svg is drawn by hand.
# test/python/tools/test_figures.py regenerates them into a temporary folder and compares them
# with the checked-in files, so a change that alters a picture must rerun this script.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/img}
mkdir -p "$out"
if ! command -v tile-opt >/dev/null; then
  . .venv/bin/activate
fi
# Relative kernel paths: the pictures name the kernel's location, which must not depend
# on where the checkout lives.
tile-opt examples/gemm.mlir -o /dev/null -p "pipeline-planning,\
inject-software-pipeline{report-svg=\"$out/gemm-schedule.svg\"},\
merge-shared-memory{report-svg=\"$out/gemm-arena.svg\"}"
tile-opt examples/gemm_epilogue.mlir -o /dev/null -p "pipeline-planning,\
inject-software-pipeline,merge-shared-memory{report-svg=\"$out/gemm-epilogue-arena.svg\"}"
python - "$out/gemm-simulated.svg" <<'EOF'
import sys
from pathlib import Path

from tilepipe.schedule_sim.flow import draw_schedule

kernel = Path("examples/gemm.mlir")
draw_schedule(kernel.read_text(), str(kernel), "sm_80", [1, 3], sys.argv[1])
EOF
