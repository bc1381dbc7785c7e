"""A generic-proxy read of shared memory, then a wgmma reading the same bytes, need
no proxy fence between them: two reads do not conflict (fuzz seed 9762 on sm_90a,
where the per-thread detector reported the copy-out of a wgmma operand between two
wgmmas as a race).  A generic *write* the wgmma reads still needs the fence: deleting
it is reported."""

from __future__ import annotations

import numpy as np

from tilepipe.core.flows import run_flow
from tilepipe.core.registry import make_context
from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

from pipeline_helpers import parse

KERNEL = """
func.func @reads(%in: memref<128x32xbf16>, %out: memref<512x16xbf16>, %acc_out: memref<64x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %start = arith.constant 1.000000e+00 : bf16
  %acc = memref.alloc() : memref<64x32xf32, "fragment">
  %a = memref.alloc() : memref<64x16xbf16, "shared">
  %b = memref.alloc() : memref<16x32xbf16, "shared">
  tile.fill<64x32> %zero -> %acc : f32 -> memref<64x32xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %row = arith.muli %k, %c16 : index
    %out_row = arith.muli %k, %c64 : index
    tile.iota<64x16> %start -> %a dim 1 : bf16 -> memref<64x16xbf16, "shared">
    tile.copy<16x32> %in[%row, %c0] -> %b : memref<128x32xbf16> -> memref<16x32xbf16, "shared">
    tile.gemm<64x32x16> %a, %b -> %acc : memref<64x16xbf16, "shared">, memref<16x32xbf16, "shared"> -> memref<64x32xf32, "fragment">
    tile.copy<64x16> %a -> %out[%out_row, %c0] : memref<64x16xbf16, "shared"> -> memref<512x16xbf16>
    tile.gemm<64x32x16> %a, %b -> %acc : memref<64x16xbf16, "shared">, memref<16x32xbf16, "shared"> -> memref<64x32xf32, "fragment">
  }
  tile.copy<64x32> %acc -> %acc_out : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}
"""


def lowered(drop_fences: bool = False):
    module = parse(KERNEL)
    run_flow(module, "cuda", "scheduled")
    LowerToNVVM().apply(make_context(), module)
    if drop_fences:
        for op in [op for op in module.walk() if op.name == "nvvm.fence.proxy"]:
            op.detach()
            op.erase()
    return module


def run(module):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((128, 32)).astype(np.float32),
            np.zeros((512, 16), np.float32), np.zeros((64, 32), np.float32)]
    return run_nvvm_kernel(module, args, blocks=[(0,)], check_races=True)


def test_a_generic_read_between_two_wgmmas_of_the_same_operand_is_no_race():
    assert run(lowered()).races == []


def test_the_fence_after_the_generic_write_is_still_needed():
    races = run(lowered(drop_fences=True)).races
    assert races and "no fence.proxy.async" in races[0]
