"""Boundary tiles and dynamic shapes through the whole CUDA flow (docs/nvvm.md,
"Boundary tiles"): GEMMs whose M, N, K no tile divides, over static and dynamic
(``memref<?x?xf16>``) arrays, run per thread in the NVVM interpreter -- race free, and
equal to the tile level's contract (reads past an array are 0, writes past it are
dropped: an exact integer-valued GEMM of the zero-padded arrays, and every element
of C outside the product untouched), and to the tile-level interpreter run on the
same arrays.

The default run takes a few cases; ``TILEPIPE_BOUNDARY_SWEEP=long`` sweeps M, N, K
over {1, 15, 127, 129, 1000}, static and dynamic, num_stages 1-4, sm_80 and sm_90
(large grids run their first block and their edge blocks only).  Drawn tile copies
(hypothesis; ``TILEPIPE_BOUNDARY_EXAMPLES``, default 10) cover arrays of drawn shapes
with drawn tiles exactly; drawn GEMMs (shapes, tile sizes, dynamic dimensions,
num_stages, target; ``TILEPIPE_GEMM_EXAMPLES``, default 2, 20 in the long mode) are
correct per thread."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline

from sweeps import long_mode, sample_size
from pipeline_helpers import context, parse
from tilepipe.lowering.nvvm.ptxas import find_ptxas, run_ptxas
from tilepipe.lowering.nvvm.upstream import Stage, run_upstream
from tilepipe.core.registry import get_all_passes
from tilepipe.core.targets import TARGETS
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.flows import FLOWS

BM, BN, BK = 64, 64, 32
PASSES = {target: FLOWS["cuda"].spec() for target in ("sm_80", "sm_90", "sm_90a")}
LONG = long_mode("TILEPIPE_BOUNDARY_SWEEP")


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def gemm_text(
    m: int,
    n: int,
    k: int,
    *,
    dynamic: str = "",
    num_stages: int = 3,
    target: str = "sm_80",
    divisibility: int = 0,
    tiles: tuple[int, int, int] = (BM, BN, BK),
) -> str:
    """C[M, N] (f32) = A[M, K] * B[K, N] (f16) in ``tiles`` (bm x bn x bk, default
    64x64x32) blocks on a grid that covers C.  ``dynamic`` names the dimensions that
    are ``?`` in the types (of ``"MNK"``); with K dynamic the trip count is the
    argument %kt.  ``divisibility`` (when not 0) states every dimension of A, B and C
    a multiple of it (``tile.divisibility``)."""
    bm, bn, bk = tiles

    def dims(*names: tuple[str, int]) -> str:
        return "x".join("?" if name in dynamic else str(size) for name, size in names)

    a, b, c = dims(("M", m), ("K", k)), dims(("K", k), ("N", n)), dims(("M", m), ("N", n))
    trips = "%kt" if "K" in dynamic else "%ktiles"
    fact = (
        f" {{tile.divisibility = array<i64: {divisibility}, {divisibility}>}}"
        if divisibility
        else ""
    )
    return f"""
func.func @gemm(%A: memref<{a}xf16>{fact}, %B: memref<{b}xf16>{fact}, %C: memref<{c}xf32>{fact},
                %kt: index)
    attributes {{tile.grid = array<i64: {_ceil(n, bn)}, {_ceil(m, bm)}>, tile.threads = 128 : i64,
                tile.target = "{target}"}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ktiles = arith.constant {_ceil(k, bk)} : index
  %cbk = arith.constant {bk} : index
  %cbm = arith.constant {bm} : index
  %cbn = arith.constant {bn} : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %cbm : index
  %n0 = arith.muli %bx, %cbn : index
  %A_s = memref.alloc() : memref<{bm}x{bk}xf16, "shared">
  %B_s = memref.alloc() : memref<{bk}x{bn}xf16, "shared">
  %C_f = memref.alloc() : memref<{bm}x{bn}xf32, "fragment">
  tile.fill<{bm}x{bn}> %zero -> %C_f : f32 -> memref<{bm}x{bn}xf32, "fragment">
  pipeline.for %ko = %c0 to {trips} step %c1 num_stages = {num_stages} {{
    %k0 = arith.muli %ko, %cbk : index
    tile.copy<{bm}x{bk}> %A[%m0, %k0] -> %A_s : memref<{a}xf16> -> memref<{bm}x{bk}xf16, "shared">
    tile.copy<{bk}x{bn}> %B[%k0, %n0] -> %B_s : memref<{b}xf16> -> memref<{bk}x{bn}xf16, "shared">
    tile.gemm<{bm}x{bn}x{bk}> %A_s, %B_s -> %C_f : memref<{bm}x{bk}xf16, "shared">, memref<{bk}x{bn}xf16, "shared"> -> memref<{bm}x{bn}xf32, "fragment">
  }}
  tile.copy<{bm}x{bn}> %C_f -> %C[%m0, %n0] : memref<{bm}x{bn}xf32, "fragment"> -> memref<{c}xf32>
  func.return
}}
"""


def lowered(text: str, target: str):
    module = parse(text)
    PassPipeline.parse_spec(get_all_passes(), PASSES[target]).apply(context(), module)
    module.verify()
    return module


def blocks_to_run(
    m: int, n: int, tiles: tuple[int, int, int] = (BM, BN, BK)
) -> list[tuple[int, int]] | None:
    """Every block of a small grid; of a large one the first block and the last
    block row and column (the edges), which is where the boundary code runs."""
    rows, cols = _ceil(m, tiles[0]), _ceil(n, tiles[1])
    if rows * cols <= 4:
        return None
    chosen = {(0, 0), (cols - 1, rows - 1)}
    chosen |= {(cols - 1, y) for y in (0, rows - 1)} | {(x, rows - 1) for x in (0, cols - 1)}
    return sorted(chosen)


def check_gemm(
    m: int, n: int, k: int, dynamic: str, num_stages: int, target: str, divisibility: int = 0,
    tiles: tuple[int, int, int] = (BM, BN, BK),
) -> None:
    bm, bn, bk = tiles
    text = gemm_text(
        m, n, k, dynamic=dynamic, num_stages=num_stages, target=target,
        divisibility=divisibility, tiles=tiles,
    )
    module = lowered(text, target)
    rng = np.random.default_rng(m * 7919 + n * 31 + k)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)  # exact in f32 in any order
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.full((m, n), 7.0, np.float32)  # what no block writes stays
    blocks = blocks_to_run(m, n, tiles)
    run = run_nvvm_kernel(
        module, [a, b, c, np.int64(_ceil(k, bk))], blocks=blocks, check_races=True
    )
    assert run.races == [], "\n".join(run.races)
    expected = c.copy()
    product = a.astype(np.float32) @ b.astype(np.float32)
    for x, y in blocks or itertools.product(range(_ceil(n, bn)), range(_ceil(m, bm))):
        rows, cols = slice(y * bm, (y + 1) * bm), slice(x * bn, (x + 1) * bn)
        expected[rows, cols] = product[rows, cols]
    np.testing.assert_array_equal(run.outputs[2], expected, err_msg=text)
    # The tile level's own out-of-bounds semantics give the same C, block for block
    # (the source, before thread-sync, is the reference: races are not its concern).
    tile_level = run_tile_kernel(
        text, inputs={"A": a, "B": b, "C": c}, blocks=blocks, index_args={"kt": _ceil(k, bk)}
    )
    np.testing.assert_array_equal(run.outputs[2], tile_level["C"], err_msg=text)


QUICK = [
    # (M, N, K, dynamic dims, num_stages, target)
    (15, 127, 129, "MNK", 3, "sm_80"),  # everything dynamic: element-wise, predicated
    (129, 15, 127, "", 2, "sm_80"),  # static ragged shapes, 2-byte rows: no cp.async
    (129, 127, 1000, "M", 4, "sm_80"),  # dynamic M: cp.async 16 B zero-filling rows
    (15, 129, 1000, "", 2, "sm_90"),  # bulk copies: guarded at the M edge
    (1, 1, 1, "MNK", 1, "sm_90"),
]
SIZES = (1, 15, 127, 129, 1000)
STAGES_AND_TARGETS = ((1, "sm_80"), (2, "sm_90"), (3, "sm_80"), (4, "sm_90"))
SWEEP = [  # every seventh of the whole grid: 7 is prime to the 8 (dynamic, stages) pairs
    (m, n, k, dynamic, stages, target)
    for m, n, k, dynamic, (stages, target) in itertools.product(
        SIZES, SIZES, SIZES, ("", "MNK"), STAGES_AND_TARGETS
    )
][::7]


@pytest.mark.parametrize("m,n,k,dynamic,num_stages,target", SWEEP if LONG else QUICK)
def test_boundary_gemm_matches_the_contract_per_thread(m, n, k, dynamic, num_stages, target):
    check_gemm(m, n, k, dynamic, num_stages, target)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize(
    "m,n,k,dynamic,num_stages", sorted({case[:5] for case in (SWEEP if LONG else QUICK)})
)
def test_ptxas_accepts_the_boundary_gemms(m, n, k, dynamic, num_stages, target):
    try:
        find_ptxas()
    except RuntimeError as err:
        pytest.skip(str(err))
    text = gemm_text(m, n, k, dynamic=dynamic, num_stages=num_stages, target=target)
    module = lowered(text, target)
    reports = run_ptxas(run_upstream(module, TARGETS[target], Stage.PTX).text, target)
    assert [r.kernel for r in reports] == ["gemm"]


GEMM_EXAMPLES = int(os.environ.get("TILEPIPE_GEMM_EXAMPLES", "20" if LONG else "2"))


@settings(max_examples=GEMM_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    m=st.integers(1, 300 if LONG else 140),
    n=st.integers(1, 300 if LONG else 140),
    k=st.integers(1, 300 if LONG else 140),
    tiles=st.tuples(*map(st.sampled_from, ([32, 64], [32, 64], [16, 32]))),
    dynamic=st.sampled_from(["", "M", "MNK", "K"]),
    num_stages=st.integers(1, 4),
    target=st.sampled_from(["sm_80", "sm_90"]),
)
def test_drawn_gemm_shapes_and_tiles_are_correct_per_thread(
    m, n, k, tiles, dynamic, num_stages, target
):
    """Property: whatever the shapes (1 and non-multiples of the tiles included), the
    tile sizes, the dynamic dimensions, num_stages and the target, the lowered GEMM
    is race free per thread and equal to numpy and to the tile level (a small sample
    by default: each example is a lowering; TILEPIPE_BOUNDARY_SWEEP=long draws 20,
    TILEPIPE_GEMM_EXAMPLES any number).  The tile-level property with more examples is
    test/python/pipelining/test_dynamic_shapes.py."""
    note(f"M, N, K = {m}, {n}, {k}; tiles {tiles}; dynamic {dynamic!r}")
    check_gemm(m, n, k, dynamic, num_stages, target, tiles=tiles)


def test_the_static_example_gemm_keeps_the_unpredicated_fast_path():
    """Every block and iteration of examples/gemm.mlir stays inside its arrays, so
    the analysis proves every global region in bounds and the lowering adds no
    predicate, no descriptor size and no zero-filling copy."""
    from conftest import EXAMPLES
    from tilepipe.dialects.tile import TileOp
    from tilepipe.dialects.memory_space import MemorySpace, memory_space
    from tilepipe.passes.analysis.index_range import dims_in_bounds

    text = (EXAMPLES / "gemm.mlir").read_text()
    scheduled = parse(text)
    PassPipeline.parse_spec(
        get_all_passes(), PASSES["sm_80"].removesuffix(",lower-to-nvvm")
    ).apply(context(), scheduled)
    regions = [
        (op, buffer, offsets, op.operand_tile_shape(role))
        for op in scheduled.walk() if isinstance(op, TileOp)
        for role, buffer, offsets in op.tile_regions()
        if memory_space(buffer.type) is MemorySpace.GLOBAL
    ]
    assert len(regions) >= 7  # two prologue copies each of A and B, the loop's, C's store
    for op, buffer, offsets, shape in regions:
        assert all(dims_in_bounds(buffer.type, offsets, shape)), op
    lowered_text = str(lowered(text, "sm_80"))
    assert "memref.dim" not in lowered_text
    assert "1, 3, 1, 2, 0>" in lowered_text and "1, 3, 1, 2, 1>" not in lowered_text  # no srcElements
    assert "arith.constant 1024 : index" not in lowered_text  # no comparison with a size


def test_a_dynamic_gemm_zero_fills_its_cp_async_chunks():
    module = lowered(gemm_text(129, 127, 1000, dynamic="M", target="sm_80"), "sm_80")
    copies = [op for op in module.walk() if op.name == "nvgpu.device_async_copy"]
    zero_filling = [op for op in copies if op.properties["operandSegmentSizes"].get_values()[-1]]
    assert copies and zero_filling
    assert {op.properties["dstElements"].value.data for op in copies} == {8}


@pytest.mark.parametrize("m,n,k,num_stages", [(8, 8, 8, 1), (72, 136, 40, 3), (136, 8, 104, 2)])
def test_divisibility_facts_widen_the_copies_of_a_dynamic_gemm(m, n, k, num_stages):
    """``tile.divisibility`` facts (multiples of 8 f16) give a fully dynamic GEMM
    16-byte cp.async chunks that stay race free and correct at every size that
    honours the facts, ragged tiles included."""
    text = gemm_text(m, n, k, dynamic="MNK", num_stages=num_stages, divisibility=8)
    copies = [
        op for op in lowered(text, "sm_80").walk() if op.name == "nvgpu.device_async_copy"
    ]
    assert copies and {op.properties["dstElements"].value.data for op in copies} == {8}
    without = lowered(gemm_text(m, n, k, dynamic="MNK", num_stages=num_stages), "sm_80")
    assert not [op for op in without.walk() if op.name == "nvgpu.device_async_copy"]
    check_gemm(m, n, k, "MNK", num_stages, "sm_80", divisibility=8)


def test_the_guarded_edge_of_a_bulk_copy_needs_its_barrier():
    """sm_90, M = 15: the A box is past the array, so its guarded path copies with
    every thread; without the barrier before thread 0 completes the bytes, the
    gemm's reads race with the other threads' stores."""
    check_gemm(15, 64, 64, "", 2, "sm_90")
    module = lowered(gemm_text(15, 64, 64, target="sm_90", num_stages=2), "sm_90")
    completes = [op for op in module.walk() if op.name == "nvvm.mbarrier.complete_tx"]
    assert completes
    for complete in completes:
        edge_path = complete.parent_block().parent_op().parent_block()  # in scf.if tid == 0
        (barrier,) = [op for op in edge_path.ops if op.name == "nvvm.barrier0"]
        barrier.detach()
        barrier.erase()
    a = np.ones((15, 64), np.float16)
    b = np.ones((64, 64), np.float16)
    run = run_nvvm_kernel(
        module, [a, b, np.zeros((15, 64), np.float32), np.int64(2)], check_races=True
    )
    assert run.races


def elementwise_text(types: str) -> str:
    """Elementwise, register-fragment and reduction accesses of a 100x70 array on a
    grid of 64x128 tiles that reaches past it (``types``: the arrays' dimensions)."""
    t = f"memref<{types}xf32>"
    return f"""
func.func @edges(%A: {t}, %B: {t}, %C: {t}, %D: {t}, %R: memref<?xf32>)
    attributes {{tile.grid = array<i64: 1, 2>, tile.threads = 128 : i64, tile.target = "sm_80"}} {{
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %by = tile.block_id y
  %m0 = arith.muli %by, %c64 : index
  %F = memref.alloc() : memref<64x128xf32, "fragment">
  tile.add<64x128> %A[%m0, %c0], %B[%m0, %c0] -> %C[%m0, %c0] : {t}, {t} -> {t}
  tile.copy<64x128> %A[%m0, %c0] -> %F : {t} -> memref<64x128xf32, "fragment">
  tile.copy<64x128> %F -> %D[%m0, %c0] : memref<64x128xf32, "fragment"> -> {t}
  tile.reduce<64x128> sum %B[%m0, %c0] -> %R[%m0] axis 1 : {t} -> memref<?xf32>
  func.return
}}
"""


@pytest.mark.parametrize("types", ["100x70", "?x?"])
def test_elementwise_fragment_and_reduction_accesses_at_the_edges(types):
    module = lowered(elementwise_text(types), "sm_80")
    rng = np.random.default_rng(5)
    a, b = (rng.integers(-8, 9, (100, 70)).astype(np.float32) for _ in range(2))
    c, d, r = np.full((100, 70), 3.0, np.float32), np.zeros((100, 70), np.float32), np.zeros(100, np.float32)
    run = run_nvvm_kernel(module, [a, b, c, d, r], check_races=True)
    assert run.races == [], "\n".join(run.races)
    np.testing.assert_array_equal(run.outputs[2], a + b)
    np.testing.assert_array_equal(run.outputs[3], a)
    np.testing.assert_array_equal(run.outputs[4], b.sum(axis=1))


# --------------------------------------------------------------- drawn shapes

EXAMPLES = sample_size("TILEPIPE_BOUNDARY_EXAMPLES", quick=10, long=100)


@st.composite
def tile_copies(draw) -> tuple[str, tuple[int, int], str]:
    """A global -> shared -> global tile copy over an R x C array (static or
    dynamic) on a grid that covers it, maybe with a block row past it."""
    rows, cols = draw(st.integers(1, 150)), draw(st.integers(1, 150))
    tile_rows = draw(st.sampled_from([1, 8, 16, 32]))
    tile_cols = draw(st.sampled_from([1, 4, 8, 16, 32, 64, 128]))
    dtype = draw(st.sampled_from(["f16", "f32"]))
    shape = draw(st.sampled_from([f"{rows}x{cols}", "?x?", f"?x{cols}"]))
    grid_rows = _ceil(rows, tile_rows) + draw(st.integers(0, 1))
    t = f"memref<{shape}x{dtype}>"
    s = f'memref<{tile_rows}x{tile_cols}x{dtype}, "shared">'
    text = f"""
func.func @tiles(%A: {t}, %B: {t})
    attributes {{tile.grid = array<i64: {_ceil(cols, tile_cols)}, {grid_rows}>,
                tile.threads = 128 : i64, tile.target = "sm_80"}} {{
  %tr = arith.constant {tile_rows} : index
  %tc = arith.constant {tile_cols} : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %tr : index
  %n0 = arith.muli %bx, %tc : index
  %S = memref.alloc() : {s}
  tile.copy<{tile_rows}x{tile_cols}> %A[%m0, %n0] -> %S : {t} -> {s}
  tile.copy<{tile_rows}x{tile_cols}> %S -> %B[%m0, %n0] : {s} -> {t}
  func.return
}}
"""
    return text, (rows, cols), dtype


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile_copies())
def test_drawn_tile_copies_cover_their_arrays_exactly(case):
    text, shape, dtype = case
    note(text)
    module = lowered(text, "sm_80")
    values = np.arange(shape[0] * shape[1]).reshape(shape) % 251 + 1
    a = values.astype(np.float16 if dtype == "f16" else np.float32)
    run = run_nvvm_kernel(module, [a, np.zeros_like(a)], check_races=True)
    assert run.races == [], "\n".join(run.races)
    np.testing.assert_array_equal(run.outputs[1], a)


# --------------------------------------------------------------- the analyses


def test_index_ranges_bound_block_ids_loops_and_arithmetic():
    from tilepipe.dialects.tile import CopyOp
    from tilepipe.passes.analysis.index_range import dims_in_bounds, index_range

    module = parse("""
func.func @k(%A: memref<512x100xf16>, %n: index)
    attributes {tile.grid = array<i64: 2, 8>, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %by = tile.block_id y
  %m0 = arith.muli %by, %c64 : index
  %S = memref.alloc() : memref<64x32xf16, "shared">
  scf.for %i = %c0 to %c4 step %c1 {
    %k = arith.muli %i, %c3 : index
    tile.copy<64x32> %A[%m0, %k] -> %S : memref<512x100xf16> -> memref<64x32xf16, "shared">
    tile.copy<64x32> %A[%m0, %n] -> %S : memref<512x100xf16> -> memref<64x32xf16, "shared">
  }
  func.return
}""")
    first, second = [op for op in module.walk() if isinstance(op, CopyOp)]
    m0, k = first.src_offsets
    assert index_range(m0) == (0, 448)  # block id y in [0, 7], times 64
    assert index_range(k) == (0, 9)  # i in [0, 3], times 3
    assert dims_in_bounds(first.src.type, first.src_offsets, first.tile_shape) == (True, True)
    # %n is an argument: unbounded, so the columns are checked at run time.
    assert dims_in_bounds(second.src.type, second.src_offsets, second.tile_shape) == (True, False)


@pytest.mark.parametrize(
    "memref_type,offset,widest,expected",
    [
        ("memref<128x64xf16>", "%c32", 8, 8),
        ("memref<128x70xf16>", "%c32", 8, 2),  # rows of 70: every other row at 4 bytes
        ("memref<?x?xf16>", "%c32", 8, 1),  # a dynamic row length proves nothing
        ("memref<?x64xf16>", "%c32", 8, 8),
        ("memref<128x64xf16>", "%c1", 8, 1),
        ("memref<4x64xf16, strided<[64, 1], offset: 4>>", "%c0", 8, 4),
        ("memref<?x?xf16> {tile.divisibility = array<i64: 1, 8>}", "%c32", 8, 8),
        ("memref<?x?xf16> {tile.divisibility = array<i64: 8, 4>}", "%c32", 8, 4),
        ("memref<?x?xf16> {tile.divisibility = array<i64: 1, 8>}", "%c1", 8, 1),
    ],
)
def test_provable_vector_widths(memref_type, offset, widest, expected):
    from tilepipe.dialects.tile import CopyOp
    from tilepipe.passes.analysis.divisibility import provable_vector_width

    argument, memref_type = memref_type, memref_type.split(" {")[0]  # less the fact
    module = parse(f"""
func.func @k(%A: {argument}) attributes {{tile.target = "sm_80"}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %S = memref.alloc() : memref<4x8xf16, "shared">
  tile.copy<4x8> %A[%c0, {offset}] -> %S : {memref_type} -> memref<4x8xf16, "shared">
  func.return
}}""")
    (copy,) = [op for op in module.walk() if isinstance(op, CopyOp)]
    assert provable_vector_width(copy.src, copy.src_offsets, 8, widest) == expected


# Grids with interior blocks (wholly inside A, B and C: the unpredicated fast path)
# beside edge blocks (predicated), and grids whose every block is at an edge.
INTERIOR_AND_EDGE = [
    (129, 77, 1000, "MNK", 3, "sm_80"),  # block (0, 0) interior until its K tail
    (129, 77, 130, "M", 2, "sm_90"),  # vector stores of the accumulator, bulk copies
    (1, 15, 33, "MNK", 1, "sm_80"),  # no interior block
    (15, 1, 1, "MNK", 4, "sm_90"),
]


@pytest.mark.parametrize("m,n,k,dynamic,num_stages,target", INTERIOR_AND_EDGE)
def test_interior_and_edge_blocks_of_a_dynamic_gemm_match_per_thread(
    m, n, k, dynamic, num_stages, target
):
    """Interior blocks take the run-time interior path (``with_interior_fast_path``),
    edge blocks the predicated one; both race free and equal to the tile level."""
    check_gemm(m, n, k, dynamic, num_stages, target)


def _stores_to(module, buffer_name: str) -> tuple[list, list]:
    """(unpredicated, predicated) stores into kernel argument ``buffer_name``: a
    predicated store is alone (with its yield) in the then branch of an ``scf.if``."""
    from xdsl.dialects import scf

    kernel = next(op for op in module.walk() if op.name == "gpu.func")
    target = kernel.body.block.args[[a.name_hint for a in kernel.body.block.args].index(buffer_name)]
    stores = [
        op for op in kernel.walk()
        if op.name in ("memref.store", "vector.store") and target in op.operands[1:2]
    ]

    def predicated(store) -> bool:
        parent = store.parent_op()
        return isinstance(parent, scf.IfOp) and len(store.parent_block().ops) == 2

    return [s for s in stores if not predicated(s)], [s for s in stores if predicated(s)]


@pytest.mark.parametrize(
    "n,dynamic,store", [(77, "MNK", "memref.store"), (128, "M", "vector.store")]
)
def test_the_epilogue_has_an_unpredicated_interior_path(n, dynamic, store):
    """The accumulator's store to C is lowered twice behind "is the block's C tile
    inside C?": every element once without a predicate (the interior path; pairs as
    one vector where the row length proves them aligned, else scalars) and once under
    its own predicate (the edge)."""
    module = lowered(gemm_text(129, n, 1000, dynamic=dynamic), "sm_80")
    unpredicated, predicated = _stores_to(module, "C")
    assert unpredicated and len(unpredicated) == len(predicated)
    assert {op.name for op in unpredicated} == {store}
    # The fast path sits in the then branch of the interior test, the edge path in
    # its else branch: one scf.if holds both.
    def regions_above(op) -> list:
        regions = []
        while op.parent_region() is not None:
            regions.append(op.parent_region())
            op = op.parent_op()
        return regions

    guard = unpredicated[0].parent_op()
    assert guard.name == "scf.if"
    assert all(guard.true_region in regions_above(op) for op in unpredicated)
    assert all(guard.false_region in regions_above(op) for op in predicated)
