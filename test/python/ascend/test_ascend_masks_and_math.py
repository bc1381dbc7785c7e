"""``tile.log/sqrt/rsqrt/iota/cmp/select`` on Ascend: lowered to ``ascend.ln/sqrt/
rsqrt/iota/cmp/select`` (lower-to-ascend), simulated race free and bit-exact against
the tile level in a double-buffered loop, printed as AscendC that passes the syntax
check (``Ln``, ``Sqrt``, ``Rsqrt``; ``CreateVecIndex`` + ``Adds`` / ``Duplicate`` per
row; ``Compare``/``CompareScalar`` into the bit scratch + ``Select``); what the vector
unit cannot compute exactly is a located diagnostic.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tilepipe.core.diagnostics import OpDiagnosticError
from tilepipe.core.flows import run_flow
from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.semantics import load_module, run_tile_kernel
from tilepipe.semantics.ascend.sim import run_ascend_kernel

# Per 8x64 block of x and y: a causal mask (row >= column) picks log(x) * rsqrt(y),
# else sqrt(y); rows count from %first.
KERNEL = """
func.func @masked(%x: memref<64x64xT>, %y: memref<64x64xT>, %z: memref<64x64xT>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %first = arith.constant 3.000000e+00 : T
  %zero = arith.constant 0.000000e+00 : T
  %x_ub = memref.alloc() : memref<8x64xT, "ub">
  %y_ub = memref.alloc() : memref<8x64xT, "ub">
  %rows = memref.alloc() : memref<8x64xT, "ub">
  %cols = memref.alloc() : memref<8x64xT, "ub">
  %z_ub = memref.alloc() : memref<8x64xT, "ub">
  pipeline.for %i = %c0 to %c8 step %c1 num_stages = STAGES {
    %off = arith.muli %i, %c8 : index
    tile.copy<8x64> %x[%off, %c0] -> %x_ub : memref<64x64xT> -> memref<8x64xT, "ub">
    tile.copy<8x64> %y[%off, %c0] -> %y_ub : memref<64x64xT> -> memref<8x64xT, "ub">
    tile.iota<8x64> %first -> %rows dim 0 : T -> memref<8x64xT, "ub">
    tile.iota<8x64> %zero -> %cols dim 1 : T -> memref<8x64xT, "ub">
    tile.cmp<8x64> ge %rows, %cols -> %rows : memref<8x64xT, "ub">, memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.log<8x64> %x_ub -> %x_ub : memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.rsqrt<8x64> %y_ub -> %cols : memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.mul<8x64> %x_ub, %cols -> %x_ub : memref<8x64xT, "ub">, memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.sqrt<8x64> %y_ub -> %y_ub : memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.select<8x64> %rows, %x_ub, %y_ub -> %z_ub : memref<8x64xT, "ub">, memref<8x64xT, "ub">, memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.copy<8x64> %z_ub -> %z[%off, %c0] : memref<8x64xT, "ub"> -> memref<64x64xT>
  }
  func.return
}
"""
NUMPY = {"f16": np.float16, "f32": np.float32}


def kernel(element: str, num_stages: int) -> str:
    return KERNEL.replace("xT", f"x{element}").replace(": T", f": {element}").replace(
        "STAGES", str(num_stages)
    )


def inputs(element: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 4, (64, 64))
    x.flat[:4] = [0.0, -0.0, np.inf, np.nan]  # -inf, -inf, inf, NaN logarithms
    y = rng.uniform(0, 9, (64, 64))
    y.flat[:2] = [0.0, -1.0]
    return {
        "x": x.astype(NUMPY[element]),
        "y": y.astype(NUMPY[element]),
        "z": np.zeros((64, 64), NUMPY[element]),
    }


@pytest.mark.parametrize("element", ["f16", "f32"])
@pytest.mark.parametrize("num_stages", [1, 2, 3])
def test_masked_kernel_is_race_free_equivalent_and_printable(element, num_stages):
    text = kernel(element, num_stages)
    module = run_flow(load_module(text), "ascend")
    names = {op.name for op in module.walk()}
    assert {"ascend.ln", "ascend.sqrt", "ascend.rsqrt", "ascend.iota", "ascend.cmp",
            "ascend.select"} <= names
    expected = run_tile_kernel(text, inputs=inputs(element))
    report = run_ascend_kernel(module, inputs(element))
    assert report.ok, report.problems()
    np.testing.assert_array_equal(report.outputs["z"], expected["z"])
    source = emit_ascendc(module)
    result = syntax_check(source)
    assert result.returncode == 0, result.stderr
    for call in ("Ln(", "Sqrt(", "Rsqrt(", "CreateVecIndex(", "Adds(", "Compare(",
                 "CompareScalar(", "SELMODE::VSEL_TENSOR_TENSOR_MODE", "CMPMODE::GE"):
        assert call in source, call


def test_iota_rows_count_from_the_start():
    text = kernel("f32", 2)
    out = run_tile_kernel(text, inputs=inputs("f32"))["z"]
    # Row 3 + r of a block keeps log(x) * rsqrt(y) in columns 0 .. 3 + r.
    x, y = (inputs("f32")[k].astype(np.float32) for k in ("x", "y"))
    with np.errstate(all="ignore"):
        kept = np.log(x) * (np.float32(1) / np.sqrt(y))
    np.testing.assert_array_equal(out[9, :5], kept[9, :5])
    np.testing.assert_array_equal(out[9, 5:], np.sqrt(y[9, 5:]))


UNPRINTABLE = [
    # (op on UB tiles of 64 elements of `type`, diagnostic)
    ("tile.cmp<64> lt %a, %a -> %a : M, M -> M", "i32",
     "compares i32 elements, which the vector unit's Compare and Select do not take"),
    ("tile.cmp<32> lt %a, %a -> %a : M, M -> M", "f32",
     "compares 32 elements of f32: Compare takes whole 256-byte repeats"),
    ("tile.select<64> %a, %b, %b -> %b : M, N, N -> N", "f32",
     "selects i32 elements; Select takes half and float"),
    ("tile.iota<64> %v -> %b dim 0 : i32 -> N", "f32", None),
    ("tile.iota<64> %s -> %c dim 0 : i8 -> C", "f32",
     "CreateVecIndex makes no i8 coordinates (half, float, int16, int32)"),
]


@pytest.mark.parametrize("op, element, message", UNPRINTABLE)
def test_what_the_vector_unit_cannot_do_is_a_diagnostic(op, element, message):
    types = {"M": f'memref<64x{element}, "ub">', "N": 'memref<64xi32, "ub">',
             "C": 'memref<64xi8, "ub">'}
    body = op
    for key, value in types.items():
        body = body.replace(f" {key}", f" {value}").replace(f"{key},", f"{value},")
    text = f"""
func.func @k() attributes {{tile.target = "ascend910b"}} {{
  %v = arith.constant 7 : i32
  %s = arith.constant 7 : i8
  %a = memref.alloc() : memref<64x{element}, "ub">
  %b = memref.alloc() : memref<64xi32, "ub">
  %c = memref.alloc() : memref<64xi8, "ub">
  {body}
  func.return
}}
"""
    module = run_flow(load_module(text), "ascend")
    if message is None:  # int32 coordinates are printable
        assert syntax_check(emit_ascendc(module)).returncode == 0
        return
    with pytest.raises(OpDiagnosticError, match=re.escape(message)):
        emit_ascendc(module)
