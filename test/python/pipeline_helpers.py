"""Shared helpers of the pipeline tests: apply passes in-process, compare kernels in the
interpreter, and the small kernels the equivalence tests sweep."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tilepipe.core.registry import get_all_passes, make_context

PIPELINE = "pipeline-planning,inject-software-pipeline"


def context() -> Context:
    return make_context()


def parse(text: str) -> ModuleOp:
    from tilepipe.drivers.opt import LocatingParser

    return LocatingParser(context(), text, "<test>").parse_module()


def apply_passes(text: str, passes: str = PIPELINE) -> ModuleOp:
    module = parse(text)
    PassPipeline.parse_spec(get_all_passes(), passes).apply(context(), module)
    module.verify()
    return module


def lowered_to_nvvm(module: ModuleOp) -> ModuleOp:
    """A copy of a scheduled-level ``module`` after ``lower-to-nvvm``."""
    lowered = module.clone()
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), lowered)
    return lowered


def with_num_stages(text: str, num_stages: int) -> str:
    return re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", text)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example_kernel(
    name: str, num_stages: int, trip_count: int | None = None, target: str | None = None
) -> str:
    """``examples/<name>`` at ``num_stages``, its main loop (up to ``%c16``) cut to
    ``trip_count`` iterations, retargeted to ``target``."""
    text = with_num_stages((EXAMPLES / name).read_text(), num_stages)
    if trip_count is not None:
        text = text.replace("%c16 = arith.constant 16", f"%c16 = arith.constant {trip_count}")
    if target is not None:
        text = re.sub(r'tile.target = "sm_\d+"', f'tile.target = "{target}"', text)
    return text


# The sizes the dynamically shaped examples run at when a test runs every example:
# ragged, so that no tile divides them.
EXAMPLE_SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "gemm_dynamic.mlir": {"A": (130, 77), "B": (77, 129), "C": (130, 129)},
    "flash_attention_dynamic.mlir": {
        **{name: (65, 64) for name in "QKVO"}, "key_valid": (65,)
    },
}


def first_difference_of_runs(
    original: str | ModuleOp,
    transformed: str | ModuleOp,
    *,
    index_args: Mapping[str, int] | None = None,
    inputs: Mapping[str, object] | None = None,
    blocks=None,
    seed: int = 0,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
) -> str | None:
    """Run both kernels on the same seeded inputs; None when all outputs are
    bit-identical, else what differs first."""
    from tilepipe.semantics import run_tile_kernel
    from tilepipe.semantics.compare import first_difference

    options = dict(
        index_args=index_args, inputs=inputs, blocks=blocks, seed=seed, shapes=shapes
    )
    expected = run_tile_kernel(original, **options)
    actual = run_tile_kernel(transformed, **options)
    return first_difference(expected, actual)


# A GEMM shaped like examples/gemm.mlir shrunk to 32x32x32 tiles, with the trip count
# either a function argument (%n) or the constant TRIPS.  K is wide enough for 33
# iterations.
SMALL_GEMM = """
func.func @small_gemm(%A: memref<32x1056xf32>, %B: memref<1056x32xf32>, %C: memref<32x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %trips = arith.constant TRIPS : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<32x32xf32, "shared">
  %B_s = memref.alloc() : memref<32x32xf32, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.fill<32x32> %zero -> %C_f : f32 -> memref<32x32xf32, "fragment">
  pipeline.for %ko = %c0 to UPPER step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<32x32> %A[%c0, %k0] -> %A_s : memref<32x1056xf32> -> memref<32x32xf32, "shared">
    tile.copy<32x32> %B[%k0, %c0] -> %B_s : memref<1056x32xf32> -> memref<32x32xf32, "shared">
    tile.gemm<32x32x32> %A_s, %B_s -> %C_f : memref<32x32xf32, "shared">, memref<32x32xf32, "shared"> -> memref<32x32xf32, "fragment">
  }
  tile.copy<32x32> %C_f -> %C : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  func.return
}
"""

# The Ascend vector example's body shrunk to 16-element tiles, same form.
SMALL_VADD = """
func.func @small_vadd(%x: memref<528xf16>, %y: memref<528xf16>, %z: memref<528xf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %trips = arith.constant TRIPS : index
  %x_ub = memref.alloc() : memref<16xf16, "ub">
  %y_ub = memref.alloc() : memref<16xf16, "ub">
  %z_ub = memref.alloc() : memref<16xf16, "ub">
  pipeline.for %i = %c0 to UPPER step %c1 num_stages = 2 {
    %off = arith.muli %i, %c16 : index
    tile.copy<16> %x[%off] -> %x_ub : memref<528xf16> -> memref<16xf16, "ub">
    tile.copy<16> %y[%off] -> %y_ub : memref<528xf16> -> memref<16xf16, "ub">
    tile.add<16> %x_ub, %y_ub -> %z_ub : memref<16xf16, "ub">, memref<16xf16, "ub"> -> memref<16xf16, "ub">
    tile.copy<16> %z_ub -> %z[%off] : memref<16xf16, "ub"> -> memref<528xf16>
  }
  func.return
}
"""

# A TMA-style loop: bulk copies complete on an mbarrier the loop arrives on and waits
# for with the parity of its iteration; pipelining expands the barrier into a ring.
SMALL_TMA = """
func.func @small_tma(%A: memref<256x64xf32>, %C: memref<256x64xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %trips = arith.constant TRIPS : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.for %k = %c0 to UPPER step %c1 num_stages = 2 {
    %parity = arith.remsi %k, %c2 : index
    pipeline.bulk_copy<64x64> %A[%k, %c0] -> %S, %bars[%c0] : memref<256x64xf32> -> memref<64x64xf32, "shared">, memref<1xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
    pipeline.mbarrier_wait_parity %bars[%c0], %parity : memref<1xi64, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}
"""

SMALL_KERNELS = {"small_gemm": SMALL_GEMM, "small_vadd": SMALL_VADD, "small_tma": SMALL_TMA}


def small_kernel(name: str, num_stages: int, trips: int, dynamic: bool) -> str:
    """The kernel with its trip count static (a constant upper bound) or dynamic
    (the %n argument, to be passed as ``index_args={"n": trips}``)."""
    text = with_num_stages(SMALL_KERNELS[name], num_stages)
    return text.replace("TRIPS", str(trips)).replace("UPPER", "%n" if dynamic else "%trips")


def deletions_not_noticed(module, names, fails) -> list[str]:
    """Delete each op of ``module`` named in ``names`` in turn (in place, put back
    after: a sync has no results, and cloning the whole lowered kernel per mutant
    costs more than running it); the ones whose deletion ``fails(module)`` does not
    notice, as ``"#position name"``."""
    unnoticed = []
    for position, op in enumerate([op for op in module.walk() if op.name in names]):
        block, following = op.parent_block(), op.next_op
        op.detach()
        try:
            if not fails(module):
                unnoticed.append(f"#{position} {op.name}")
        finally:
            if following is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, following)
    return unnoticed
