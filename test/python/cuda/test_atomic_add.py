"""``tile.atomic_add`` end to end: a split-K GEMM whose blocks add their partial
products into one C tile.  At the tile level it is race free and matches numpy; after
the whole CUDA flow and ``lower-to-nvvm`` it runs race free per thread in the NVVM
interpreter and bit-identical to the tile level (both add a block's partial tile in
block order, x fastest); ptxas accepts it on sm_80 and sm_90.  Replacing the atomic
add by a plain read-add-write is reported as a race, between blocks and (with
another thread mapping) inside one; two atomic adds need no barrier.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline_helpers import apply_passes, parse
from tilepipe.core.flows import run_flow
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.semantics.tile.grid_runner import grid_blocks

def scheduled(text: str, level: str = "scheduled"):
    """``text`` through the CUDA flow to ``level`` (``scheduled``: pipelined and synced)."""
    module = parse(text)
    run_flow(module, "cuda", level)
    module.verify()
    return module

# Block (bx, by) computes C[:, bx*32 : +32] over the by-th K slice (SPLITS slices of
# TRIPS steps of 16) and adds it into C.  N need not be a multiple of 32 (boundary
# tiles: adds past the edge are dropped).
SPLIT_K = """
func.func @split_k(%A: memref<32xKxf16>, %B: memref<KxNxf16>, %C: memref<32xNxT>)
    attributes {tile.grid = array<i64: COLS, SPLITS>, tile.threads = 128 : i64,
                tile.target = "TARGET"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %trips = arith.constant TRIPS : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %n0 = arith.muli %bx, %c32 : index
  %first = arith.muli %by, %trips : index
  %A_s = memref.alloc() : memref<32x16xf16, "shared">
  %B_s = memref.alloc() : memref<16x32xf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.fill<32x32> %zero -> %C_f : f32 -> memref<32x32xf32, "fragment">
  pipeline.for %ko = %c0 to %trips step %c1 num_stages = 2 {
    %kk = arith.addi %first, %ko : index
    %k0 = arith.muli %kk, %c16 : index
    tile.copy<32x16> %A[%c0, %k0] -> %A_s : memref<32xKxf16> -> memref<32x16xf16, "shared">
    tile.copy<16x32> %B[%k0, %n0] -> %B_s : memref<KxNxf16> -> memref<16x32xf16, "shared">
    tile.gemm<32x32x16> %A_s, %B_s -> %C_f : memref<32x16xf16, "shared">, memref<16x32xf16, "shared"> -> memref<32x32xf32, "fragment">
  }
  ACCUMULATE
  func.return
}
"""

ATOMIC = (
    'tile.atomic_add<32x32> %C_f -> %C[%c0, %n0] : memref<32x32xf32, "fragment"> '
    "-> memref<32xNxf32>"
)
# The same update without atomicity: read C, add, write it back.
PLAIN = """%old = memref.alloc() : memref<32x32xf32, "fragment">
  tile.copy<32x32> %C[%c0, %n0] -> %old : memref<32xNxf32> -> memref<32x32xf32, "fragment">
  tile.add<32x32> %old, %C_f -> %old : memref<32x32xf32, "fragment">, memref<32x32xf32, "fragment"> -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %old -> %C[%c0, %n0] : memref<32x32xf32, "fragment"> -> memref<32xNxf32>"""


def split_k(
    n: int = 64, splits: int = 3, trips: int = 2, target: str = "sm_80",
    accumulate: str = ATOMIC,
) -> str:
    cols = -(-n // 32)
    k = 16 * trips * splits
    text = SPLIT_K.replace("ACCUMULATE", accumulate).replace("TARGET", target)
    text = text.replace("COLS", str(cols)).replace("SPLITS", str(splits))
    text = text.replace("TRIPS", str(trips)).replace("xT>", "xf32>")
    return text.replace("xK", f"x{k}").replace("Kx", f"{k}x").replace("xN", f"x{n}")


def inputs(n: int, splits: int, trips: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(n + splits)
    k = 16 * trips * splits
    return {
        "A": rng.uniform(-1, 1, (32, k)).astype(np.float16),
        "B": rng.uniform(-1, 1, (k, n)).astype(np.float16),
        "C": rng.uniform(-1, 1, (32, n)).astype(np.float32),
    }


def copies(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: array.copy() for name, array in arrays.items()}


@pytest.mark.parametrize("n, splits", [(64, 3), (48, 2), (32, 4)])
def test_split_k_tile_level_matches_numpy_and_is_race_free(n, splits):
    text = split_k(n, splits)
    data = inputs(n, splits, 2)
    synced = scheduled(text)
    assert find_races(synced, inputs=copies(data)) == []
    out = run_tile_kernel(text, inputs=copies(data))["C"]
    np.testing.assert_array_equal(run_tile_kernel(synced, inputs=copies(data))["C"], out)
    a, b = data["A"].astype(np.float64), data["B"].astype(np.float64)
    np.testing.assert_allclose(out, data["C"] + a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n, splits", [(64, 3), (48, 2)])
def test_split_k_nvvm_matches_the_tile_level(n, splits):
    text = split_k(n, splits)
    data = inputs(n, splits, 2)
    expected = run_tile_kernel(text, inputs=copies(data))["C"]
    lowered = scheduled(text, "nvvm")
    run = run_nvvm_kernel(
        lowered, list(copies(data).values()), check_races=True,
        blocks=grid_blocks((-(-n // 32), splits)),
    )
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[2], expected)


def test_a_plain_read_add_write_races_between_blocks():
    synced = scheduled(split_k(accumulate=PLAIN))
    races = find_races(synced, inputs=inputs(64, 3, 2))
    assert races and all(race.between_blocks for race in races)
    assert {race.kind for race in races} <= {"RAW", "WAW", "WAR"}
    text = str(races[0])
    assert "tile.copy" in text and "blocks never synchronize" in text


def test_atomic_adds_and_plain_accesses_race_between_blocks():
    """Atomic adds of other blocks race with a block's plain read of C."""
    read_back = ATOMIC + """
  %seen = memref.alloc() : memref<32x32xf32, "fragment">
  tile.copy<32x32> %C[%c0, %n0] -> %seen : memref<32xNxf32> -> memref<32x32xf32, "fragment">"""
    synced = scheduled(split_k(accumulate=read_back))
    races = find_races(synced, inputs=inputs(64, 3, 2))
    kinds = {(race.kind, race.first.mode, race.second.mode) for race in races}
    assert ("RAW", "atomic add", "read") in kinds or ("WAR", "read", "atomic add") in kinds
    assert all(race.between_blocks for race in races)


# One block: the partial tile goes to shared memory, then is added by cooperative
# chunks (another thread mapping than the fragment's) and read back.
IN_BLOCK = """
func.func @k(%X: memref<32x32xf32>, %C: memref<32x32xf32>, %O: memref<32x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %f = memref.alloc() : memref<32x32xf32, "fragment">
  %s = memref.alloc() : memref<32x32xf32, "shared">
  tile.copy<32x32> %X -> %f : memref<32x32xf32> -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %X -> %s : memref<32x32xf32> -> memref<32x32xf32, "shared">
  pipeline.barrier
  tile.atomic_add<32x32> %f -> %C : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  tile.atomic_add<32x16> %s -> %C : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  BARRIER
  tile.copy<32x32> %C -> %O : memref<32x32xf32> -> memref<32x32xf32>
  func.return
}
"""


def in_block_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "X": rng.uniform(-1, 1, (32, 32)).astype(np.float32),
        "C": rng.uniform(-1, 1, (32, 32)).astype(np.float32),
        "O": np.zeros((32, 32), np.float32),
    }


def test_two_atomic_adds_in_a_block_need_no_barrier_but_a_read_does():
    ordered = IN_BLOCK.replace("BARRIER", "pipeline.barrier")
    data = in_block_inputs()
    assert find_races(ordered, inputs=copies(data)) == []
    out = run_tile_kernel(ordered, inputs=copies(data))
    x, c = data["X"], data["C"]
    expected = c + x
    expected[:, :16] += x[:, :16]
    np.testing.assert_array_equal(out["C"], expected)
    np.testing.assert_array_equal(out["O"], expected)
    # thread-sync inserts exactly the barrier before the read.
    synced = apply_passes(IN_BLOCK.replace("BARRIER", ""), "thread-sync")
    assert find_races(synced, inputs=copies(data)) == []
    nvvm = apply_passes(IN_BLOCK.replace("BARRIER", ""), "thread-sync,lower-to-nvvm")
    run = run_nvvm_kernel(nvvm, list(copies(data).values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)

    racy = IN_BLOCK.replace("BARRIER", "")
    races = find_races(racy, inputs=copies(data))
    assert {(r.kind, r.first.mode, r.second.mode) for r in races} == {
        ("RAW", "atomic add", "read")
    }
    run = run_nvvm_kernel(
        apply_passes(racy, "lower-to-nvvm"), list(copies(data).values()), check_races=True
    )
    assert any("vs an atomic update" in race for race in run.races)


@pytest.mark.parametrize("element, dtype", [("f16", np.float16), ("i32", np.int32)])
def test_f16_and_i32_adds_round_once_and_wrap(element, dtype):
    text = IN_BLOCK.replace("BARRIER", "pipeline.barrier").replace("xf32", f"x{element}")
    data = in_block_inputs()
    if element == "i32":
        data = {k: (v * 2**30).astype(np.int32) for k, v in data.items()}
        data["C"][0, 0] = np.iinfo(np.int32).max  # wraps
    data = {k: v.astype(dtype) for k, v in data.items()}
    out = run_tile_kernel(text, inputs=copies(data))["C"]
    x, c = data["X"], data["C"]
    with np.errstate(over="ignore"):
        expected = (c.astype(np.float32) + x).astype(dtype) if element == "f16" else c + x
        expected[:, :16] = (
            (expected[:, :16].astype(np.float32) + x[:, :16]).astype(dtype)
            if element == "f16" else expected[:, :16] + x[:, :16]
        )
    np.testing.assert_array_equal(out, expected)
    run = run_nvvm_kernel(
        apply_passes(text, "lower-to-nvvm"), list(copies(data).values()), check_races=True
    )
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], out)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("n", [64, 48])
def test_ptxas_accepts_the_atomic_adds(target, n, ptxas_available):
    result = compile_kernel(split_k(n, target=target), "split_k.mlir", target)
    assert result.ptxas
    assert "atom.global.add.f32" in result.ptx


def test_llvm_atomicrmw_is_spelled_as_upstream_spells_it():
    """xDSL lacks ``llvm.atomicrmw``: tilepipe's generic form is upstream's, and its
    custom form parses in upstream MLIR and reads back."""
    from io import StringIO

    from mlir import ir
    from xdsl.printer import Printer

    from pipeline_helpers import parse

    custom = """
func.func @f(%p: !llvm.ptr<1>, %v: f32, %h: f16, %i: i32) {
  %0 = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr<1>, f32
  %1 = llvm.atomicrmw fadd %p, %h monotonic : !llvm.ptr<1>, f16
  %2 = llvm.atomicrmw add %p, %i syncscope("device") acq_rel : !llvm.ptr<1>, i32
  func.return
}
"""
    module = parse(custom)
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    ours = [line.strip() for line in out.getvalue().splitlines() if "atomicrmw" in line]
    with ir.Context():
        upstream = ir.Module.parse(custom)
        assert upstream.operation.verify()
        theirs = upstream.operation.get_asm(print_generic_op_form=True)
    theirs_lines = [line.strip() for line in theirs.splitlines() if "atomicrmw" in line]
    assert len(ours) == 3 and ours == [
        line.replace("%arg0", "%p").replace("%arg1", "%v").replace("%arg2", "%h")
        .replace("%arg3", "%i") for line in theirs_lines
    ]
    assert str(parse(str(module))) == str(module)
