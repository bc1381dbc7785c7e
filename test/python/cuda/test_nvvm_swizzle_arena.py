"""Swizzling and arena reuse agree (lowering/nvvm/swizzle.py): thread-sync takes two
views of the same arena bytes with the same type for one buffer, so the lowering
permutes both or neither.  A gemm operand that reuses the bytes of a plain shared
tile keeps the plain layout, and the lowered kernel is race free per thread; before,
the operand alone was swizzled and a thread overwrote bytes another thread of the
earlier loop still read (fuzz seed 702632, sm_80)."""

import numpy as np

from pipeline_helpers import apply_passes

from tilepipe.core.flows import FLOWS
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

REUSE = """
func.func @reuse(%X: memref<32x32xf16>, %Y: memref<32x32xf16>, %W: memref<16x32xf16>, %O: memref<32x32xf16>, %C: memref<16x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %P = memref.alloc() : memref<32x32xf16, "shared">
  %R = memref.alloc() : memref<32x32xf16, "shared">
  %F = memref.alloc() : memref<16x32xf16, "fragment">
  %acc = memref.alloc() : memref<16x32xf32, "fragment">
  tile.copy<32x32> %X -> %P : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.copy<32x32> %P -> %O : memref<32x32xf16, "shared"> -> memref<32x32xf16>
  tile.copy<32x32> %Y -> %R : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.copy<16x32> %W -> %F : memref<16x32xf16> -> memref<16x32xf16, "fragment">
  tile.fill<16x32> %zero -> %acc : f32 -> memref<16x32xf32, "fragment">
  tile.gemm<16x32x32> %F, %R -> %acc : memref<16x32xf16, "fragment">, memref<32x32xf16, "shared"> -> memref<16x32xf32, "fragment">
  tile.copy<16x32> %acc -> %C : memref<16x32xf32, "fragment"> -> memref<16x32xf32>
  func.return
}
"""


def _lowered(text: str):
    return apply_passes(text, FLOWS["cuda"].spec("nvvm"))


def test_a_gemm_operand_on_reused_bytes_keeps_their_layout_and_is_race_free():
    module = _lowered(REUSE)
    views = {
        op.result.name_hint: op for op in module.walk() if op.name == "memref.view"
    }
    assert "tilepipe.swizzle" not in views["R"].attributes
    assert "tilepipe.swizzle" not in views["P"].attributes
    rng = np.random.default_rng(0)
    arguments = [rng.uniform(-1, 1, shape).astype(np.float16)
                 for shape in ((32, 32), (32, 32), (16, 32), (32, 32))]
    arguments.append(np.zeros((16, 32), np.float32))
    run = run_nvvm_kernel(module, arguments, check_races=True)
    assert run.races == []
    expected = arguments[2].astype(np.float32) @ arguments[1].astype(np.float32)
    np.testing.assert_allclose(run.outputs[4], expected, rtol=1e-3, atol=1e-3)


def test_without_reuse_the_operand_is_swizzled():
    """The same kernel with the plain tile still live at the gemm: the two get
    their own bytes, and the operand its swizzle."""
    text = REUSE.replace(
        "  tile.copy<16x32> %acc -> %C",
        "  tile.copy<32x32> %P -> %O : memref<32x32xf16, \"shared\"> -> memref<32x32xf16>\n"
        "  tile.copy<16x32> %acc -> %C",
    )
    views = {op.result.name_hint: op for op in _lowered(text).walk() if op.name == "memref.view"}
    assert "tilepipe.swizzle" in views["R"].attributes
