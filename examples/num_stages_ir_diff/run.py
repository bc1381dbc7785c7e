"""The num_stages experiment: change num_stages, watch the IR change (no GPU needed).

    python examples/num_stages_ir_diff/run.py [--num-stages 1 2 3 4] [--out DIR] [--target sm_80]

Compiles ``examples/gemm.mlir`` at each num_stages through the CUDA passes, saves the IR
after every pass (``DIR/ns<N>/<k>-<pass>.mlir``, like TileLang's TL_LOWER_TRACE), writes a
unified diff of the final IR between consecutive depths (``DIR/diff-ns<N>-ns<N+1>.diff``)
and prints four observations per depth:

  A. loop annotations: stage / order per statement and the recorded depth;
  B. version dimensions: the leading dimension of every shared buffer;
  C. sync points: barriers and cp.async waits (with their counts), in the steady state
     and outside it;
  D. the per-pass trace (the saved files).
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.parser import Parser
from xdsl.printer import Printer

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp, op_order, op_stage
from tilepipe.dialects.pipeline_sync import BarrierOp, WaitGroupOp
from tilepipe.core.registry import make_context, pass_pipeline

ROOT = Path(__file__).resolve().parents[2]
PASSES = [
    "pipeline-planning",
    "inject-software-pipeline",
    "merge-shared-memory",
    "async-copy",
    "thread-sync",
]


def _text(module) -> str:
    from io import StringIO

    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue() + "\n"


def _shared_shapes(module) -> dict[str, tuple[int, ...]]:
    return {
        op.memref.name_hint: tuple(op.memref.type.get_shape())
        for op in module.walk()
        if isinstance(op, memref.AllocOp)
        and isinstance(op.memref.type, MemRefType)
        and memory_space(op.memref.type) is MemorySpace.SHARED
    }


def _shared_ranks(module) -> dict[str, int]:
    return {name: len(shape) for name, shape in _shared_shapes(module).items()}


def observe(num_stages: int, out: Path, target: str) -> dict:
    source = (ROOT / "examples" / "gemm.mlir").read_text()
    source = re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", source)
    source = source.replace('tile.target = "sm_80"', f'tile.target = "{target}"')
    ctx = make_context()
    module = Parser(ctx, source, "gemm.mlir").parse_module()
    trace = out / f"ns{num_stages}"
    trace.mkdir(parents=True, exist_ok=True)
    (trace / "0-input.mlir").write_text(_text(module))
    observations: dict = {"num_stages": num_stages}
    for index, name in enumerate(PASSES, start=1):
        pass_pipeline(name).apply(ctx, module)
        (trace / f"{index}-{name}.mlir").write_text(_text(module))
        if name == "pipeline-planning":
            ranks = _shared_ranks(module)
            (loop,) = [op for op in module.walk() if isinstance(op, ForOp)]
            statements = loop.statements()
            observations["A"] = {
                "stage": [op_stage(op) for op in statements],
                "order": [op_order(op) for op in statements],
                "depth": loop.int_annotation("depth"),
            }
        if name == "inject-software-pipeline":
            # A version dimension is a new leading dimension.
            observations["B"] = {
                buffer: shape[0] if len(shape) > ranks[buffer] else 1
                for buffer, shape in _shared_shapes(module).items()
            }
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    in_loop = {id(op) for loop in loops for op in loop.body.walk()}
    syncs = [op for op in module.walk() if isinstance(op, BarrierOp | WaitGroupOp)]
    observations["C"] = {
        "barriers_in_steady_state": sum(
            isinstance(op, BarrierOp) and id(op) in in_loop for op in syncs
        ),
        "barriers_outside": sum(
            isinstance(op, BarrierOp) and id(op) not in in_loop for op in syncs
        ),
        "wait_groups": [op.pending_groups for op in syncs if isinstance(op, WaitGroupOp)],
    }
    return observations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--num-stages", type=int, nargs="+", default=[1, 2, 3, 4],
        help="the depths to compare (default 1 2 3 4)",
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "out" / "num_stages_ir_diff",
        help="where the per-pass IR and the diffs go (default out/num_stages_ir_diff)",
    )
    parser.add_argument("--target", default="sm_80", help="CUDA target (default sm_80)")
    parser.add_argument("--json", action="store_true", help="print observations as JSON")
    args = parser.parse_args(argv)
    results = [observe(n, args.out, args.target) for n in args.num_stages]
    for previous, current in zip(args.num_stages, args.num_stages[1:]):
        before = (args.out / f"ns{previous}" / f"{len(PASSES)}-{PASSES[-1]}.mlir")
        after = (args.out / f"ns{current}" / f"{len(PASSES)}-{PASSES[-1]}.mlir")
        diff = difflib.unified_diff(
            before.read_text().splitlines(keepends=True),
            after.read_text().splitlines(keepends=True),
            f"ns{previous}", f"ns{current}",
        )
        (args.out / f"diff-ns{previous}-ns{current}.diff").write_text("".join(diff))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(f"num_stages = {r['num_stages']}")
        print(f"  A  stage {r['A']['stage']}  order {r['A']['order']}  depth {r['A']['depth']}")
        print("  B  versions " + ", ".join(f"{k} {v}" for k, v in r["B"].items()))
        c = r["C"]
        print(f"  C  barriers: {c['barriers_in_steady_state']} per iteration, "
              f"{c['barriers_outside']} outside the loop; wait_group {c['wait_groups']}")
    print(f"  D  IR after every pass and the diffs between depths: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
