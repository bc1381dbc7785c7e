"""Property: ``lower-to-nvvm`` preserves the meaning of random tile kernels.

Hypothesis writes small, valid tile-level kernels; each is run by the tile-level
interpreter (strictly: reading memory never written is an error; and race free at
tile level) and, after ``lower-to-nvvm``, thread by thread by the NVVM interpreter
with its race detector.  The two must agree: exactly for copies, fills, casts,
elementwise arithmetic, broadcasts and reductions (whose inputs are chosen so that
every sum is exact), within a stated tolerance where ``tile.exp`` (numpy's exp on
other array shapes) or a gemm (the same exact products, summed in another order) is
involved.  The per-thread run must be race free, and any ``NvvmExecutionError`` (a
false ``alignment`` claim of a vector access, an out of bounds access, ...) fails
the example.

Generators (``nvvm_kernel_gen.py``; one block, 32/64/128 threads, ``pipeline.barrier`` between dependent
steps):

* ``copy_kernels``: an f16/f32 tile (rows and columns from 8..64) from a larger
  global array at a random constant offset, through one to three shared or register
  buffers (shared ones padded, the tile at a random offset), to another global
  array at a random offset.  Vector accesses must appear exactly where the docs
  promise them (row length and innermost offset multiples of the chunk width); the
  other offsets take the scalar path.
* ``elementwise_kernels``: chains of ``tile.fill/add/sub/mul/max/div/exp/cast``
  over f32 and f16 buffers in shared memory (padded, at random offsets) and in
  register fragments, loaded from and stored to global arrays.
* ``reduction_kernels``: ``tile.reduce`` sum/max along either axis of an f32, f16 or
  bf16 shared tile or register fragment, into shared memory or registers,
  optionally broadcast back (``tile.broadcast``) and combined; each fragment
  reduction must take its documented path: warp shuffles, or a shared scratch.
* ``gemm_kernels``: a ``tile.gemm`` (f16/bf16/f32; M, N, K mostly in 16/32/64, now
  and then 8, 24 or odd, K not a multiple of 16; optional
  ``transpose_a``/``transpose_b``, optionally a two-step ``pipeline.for`` k loop),
  A and B moved from global memory at random offsets into register fragments (staged
  through shared memory by the lowering) or shared tiles (padded or
  not, taller or not, or one slot of two) by a copy, a copy and an in-place
  ``tile.add``, or a ``tile.cast`` from f32 registers -- so the XOR swizzle is on the
  filling side as well as the ``ldmatrix`` side -- the accumulator filled, gemm'd,
  optionally combined with another fragment or a shared tile, optionally put
  through flash attention's row statistics (``reduce max`` / ``broadcast`` / ``sub``
  / ``exp`` / ``reduce sum`` / ``div``), optionally cast to f16, and copied to global
  memory at a random row and (even or odd) column offset: register pairs exactly
  where the accumulator has the mma layout and the columns are provably even.
  Every gemm lowers: on tensor cores (``ldmatrix``) exactly where the inputs are
  f16/bf16, the tile is whole 16x8 blocks over some of the warps, K has a whole
  16-wide step and the operands are 16-byte rows at 16-byte columns; on the scalar
  path otherwise.  The row statistics of an accumulator whose rows span warps go
  through shared memory.  The tensor-core kernels lowered with
  ``swizzle_shared=False`` give bit-identical results.

* ``versioned_fragment_kernels`` (``nvvm_fragment_gen.py``): a loop at num_stages 2-4
  with explicit non-decreasing stages, a chain of fragment ops each into a fragment of
  its own, run through the CUDA flow (the pipeliner versions the fragments read at a
  later stage than their write) at trip counts 0, 1, 2, 5, 17.
* ``fragment_region_kernels``: parts of a fragment (loaded, or a tensor-core
  accumulator) at random offsets copied into, written from and combined with a
  smaller fragment, and a vector fragment broadcast into it: operands that cross
  threads through shared memory.

The two regular tests at the end keep the minimal kernels of the two bugs these
properties found (an f16 ``tile.reduce sum`` accumulated in f16; a gemm operand at
an 8-byte column offset read by ldmatrix through the swizzle).
"""

from __future__ import annotations


import numpy as np
from hypothesis import HealthCheck, event, given, note, reject, settings
from xdsl.utils.exceptions import DiagnosticException

from mlir import ir

from sweeps import sample_size
from pipeline_helpers import apply_passes

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context
from tilepipe.lowering.nvvm.reduce_scratch import SCRATCH_BARRIER_ATTR
from tilepipe.lowering.nvvm.upstream import generic_text
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

# Examples per property (derandomized: the same ones every run); raise it for a longer
# hunt (e.g. 500), with TILEPIPE_HYPOTHESIS=random for new ones.
EXAMPLES = sample_size("TILEPIPE_NVVM_PROPERTY_EXAMPLES", quick=10, long=100)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

from nvvm_fragment_gen import fragment_region_kernels, versioned_fragment_kernels
from nvvm_kernel_gen import (
    Case,
    FILE,
    assert_same,
    chunk_width,
    copy_kernels,
    elementwise_kernels,
    gemm_kernels,
    is_swizzled,
    line_of,
    lower,
    provably_aligned,
    random_inputs,
    reduction_kernels,
    run_nvvm,
    run_tile,
    vector_lines,
)


@SETTINGS
@given(case=copy_kernels())
def test_copies_match_the_tile_level_run(case: Case):
    text, kernel = case.text, case.kernel
    note(text)
    inputs = random_inputs(kernel, case.seed)
    tile = run_tile(text, inputs)
    module = lower(text)
    nvvm = run_nvvm(module, kernel, inputs)
    assert_same(nvvm, tile, text)
    (rows, cols), x, out = case.notes["tile"], kernel.args[0], kernel.args[1]
    expected = inputs["O"].copy()
    (xr, xc), (orow, ocol) = x.offsets, out.offsets
    expected[orow : orow + rows, ocol : ocol + cols] = inputs["X"][xr : xr + rows, xc : xc + cols]
    np.testing.assert_array_equal(nvvm["O"], expected, err_msg=text)
    # Vector accesses exactly where the docs promise them: a cooperative copy whose
    # operands are provably aligned for its chunk; a cooperatively dealt fragment has
    # runs of one.
    vectors, start = vector_lines(module), 0
    for src, dst in case.notes["copies"]:
        start = line_of(text, "tile.copy", start)
        width = chunk_width(case.notes["tile"], x.dtype)
        if "fragment" in (src.space, dst.space):
            vectorized = False
        else:
            vectorized = width > 1 and provably_aligned(src, width) and provably_aligned(dst, width)
        event(f"copy {src.space}->{dst.space}: {'vector' if vectorized else 'scalar'}")
        assert (start in vectors) == vectorized, f"line {start} of\n{text}"


@SETTINGS
@given(case=elementwise_kernels())
def test_elementwise_chains_match_the_tile_level_run(case: Case):
    text, kernel = case.text, case.kernel
    note(text)
    inputs = random_inputs(kernel, case.seed)
    tile = run_tile(text, inputs)
    nvvm = run_nvvm(lower(text), kernel, inputs)
    assert_same(nvvm, tile, text)  # exp too: one definition (numerics.exp)


def _gemm_line(text: str) -> int:
    return line_of(text, "tile.gemm")


def row_statistics_by_shuffles(case: Case) -> bool:
    """Whether the lowering reduces the accumulator's rows with warp shuffles (whole
    rows per warp: nvvm's reduce.py) rather than through the shared scratch."""
    grid = case.notes["grid"]
    if grid is not None:
        return grid.warps_n == 1
    # Dealt out cooperatively: rows of a power of two up to a warp, whole rounds.
    m, n, _ = case.notes["mnk"]
    return n <= 32 and n & (n - 1) == 0 and (m * n) % case.notes["threads"] == 0


@SETTINGS
@given(case=gemm_kernels())
def test_gemms_match_the_tile_level_run(case: Case):
    text, kernel = case.text, case.kernel
    note(text)
    inputs = random_inputs(kernel, case.seed)
    tile = run_tile(text, inputs)
    module = lower(text)
    names = [op.name for op in module.walk()]
    assert ("nvgpu.ldmatrix" in names) == case.notes["ldmatrix"], text
    grid = case.notes["grid"]
    event(
        "gemm: "
        + ("scalar path" if grid is None else "mma layout")
        + (", tensor cores" if case.notes["ldmatrix"] else "")
        + (", idle warps" if grid is not None and grid.has_idle_warps else "")
    )
    # Shared operands only: a register operand's staging tile is not swizzled.
    swizzled = case.notes["tensor_cores"] and any(
        case.notes[s].space == "shared" and is_swizzled(case.notes[s]) for s in ("a_s", "b_s")
    )
    if any(case.notes[s].space == "fragment" for s in ("a_s", "b_s")):
        event("gemm: a register operand")
    assert ("arith.xori" in names) == swizzled, text
    event(f"gemm: {'swizzled' if swizzled else 'row-major'} shared tiles")
    # The mma accumulator layout leaves in register pairs exactly where the
    # destination columns are provably even (docs: "Runs"); a cooperative fragment's
    # neighbours are other threads'.
    out = case.notes["out"]
    paired = grid is not None and provably_aligned(out, 2)
    assert (line_of(text, "-> %C[") in vector_lines(module)) == paired, text
    event(f"gemm: {'pair' if paired else 'scalar'} stores out")
    nvvm = run_nvvm(module, kernel, inputs)
    # Bit-exact: the tile level sums each K step in the order both paths compute it
    # (numerics.gemm_accumulate) and row sums in tile.reduce's (numerics.reduce_sum),
    # with warp shuffles or, rows spread over warps, through shared memory.
    if case.notes["softmax"]:
        staged = any(SCRATCH_BARRIER_ATTR in op.attributes for op in module.walk())
        assert staged == (not row_statistics_by_shuffles(case)), text
        event(f"gemm: row statistics {'through shared memory' if staged else 'by shuffles'}")
    assert_same(nvvm, tile, text)


@SETTINGS
@given(case=gemm_kernels(tensor_cores_only=True))
def test_swizzling_does_not_change_gemm_results(case: Case):
    text, kernel = case.text, case.kernel
    note(text)
    inputs = random_inputs(kernel, case.seed)
    plain = lower(text, swizzle_shared=False)
    assert not any(op.name == "arith.xori" for op in plain.walk())
    swizzled = run_nvvm(lower(text), kernel, inputs)
    unswizzled = run_nvvm(plain, kernel, inputs)
    for name, values in swizzled.items():
        assert values.tobytes() == unswizzled[name].tobytes(), f"%{name} of\n{text}"


@SETTINGS
@given(case=reduction_kernels())
def test_reductions_and_broadcasts_match_the_tile_level_run(case: Case):
    text, kernel = case.text, case.kernel
    note(text)
    # Not dyadic: values whose sums round, so a sum in another order than the op's
    # (tile_reduce_order) differs in the last bits.
    inputs = random_inputs(kernel, case.seed)
    tile = run_tile(text, inputs)
    module = lower(text)
    # Each fragment reduction takes the path the docs give it.
    path = case.notes["path"]
    names = [op.name for op in module.walk()]
    staged = any(SCRATCH_BARRIER_ATTR in op.attributes for op in module.walk())
    assert ("nvvm.shfl.sync" in names, staged) == (path == "shuffles", path == "scratch"), text
    event(f"reduce: {path}")
    nvvm = run_nvvm(module, kernel, inputs)
    assert_same(nvvm, tile, text)


SCHEDULED = FLOWS["cuda"].spec("scheduled")


@SETTINGS
@given(case=versioned_fragment_kernels())
def test_versioned_fragments_match_the_tile_level_run(case: Case):
    """A fragment that crosses pipeline stages gets versions; the lowered kernel
    holds them all (nvvm_fragment_slots) and computes what the tile level does."""
    text, kernel = case.text, case.kernel
    note(text)
    n = case.notes["n"]
    inputs = random_inputs(kernel, case.seed)
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args={"n": n})
    try:
        module = apply_passes(text, SCHEDULED)
    except DiagnosticException as error:
        if "depends on" not in str(error):
            raise
        reject()  # a schedule pipeline-validate refuses (a loop-carried inversion)
    event(f"part of a fragment rewritten: {case.notes['part']}")
    versioned = any(
        op.name == "memref.alloc" and len(op.memref.type.get_shape()) == 3 for op in module.walk()
    )
    event(f"versioned fragment: {versioned}")
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), module)
    run = run_nvvm_kernel(
        module, [*(inputs[b.name].copy() for b in kernel.args), np.int64(n)], check_races=True
    )
    assert run.races == [], "\n".join(run.races)
    for buffer, out in zip(kernel.args, run.outputs):
        np.testing.assert_array_equal(out, expected[buffer.name], err_msg=f"%{buffer.name} n={n}\n{text}")


@SETTINGS
@given(case=fragment_region_kernels())
def test_parts_of_fragments_match_the_tile_level_run(case: Case):
    """Parts of fragments, fragments of other layouts and broadcasts from fragments
    go through shared memory (nvvm_relayout)."""
    text, kernel = case.text, case.kernel
    note(text)
    event(f"fragment regions: {'gemm accumulator' if case.notes['gemm'] else 'loaded'}")
    inputs = random_inputs(kernel, case.seed)
    tile = run_tile(text, inputs)
    nvvm = run_nvvm(lower(text), kernel, inputs)
    assert_same(nvvm, tile, text)


F16_ROW_SUM = """
func.func @f16_row_sum(%X: memref<8x64xf16>, %V: memref<8xf16>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<8x64xf16, "shared">
  %v = memref.alloc() : memref<8xf16, "shared">
  tile.copy<8x64> %X -> %S : memref<8x64xf16> -> memref<8x64xf16, "shared">
  pipeline.barrier
  tile.reduce<8x64> sum %S -> %v axis 1 : memref<8x64xf16, "shared"> -> memref<8xf16, "shared">
  pipeline.barrier
  tile.copy<8> %v -> %V : memref<8xf16, "shared"> -> memref<8xf16>
  func.return
}
"""


def test_f16_sums_accumulate_in_f32():
    """Found by these properties: ``tile.reduce sum`` of an f16 tile in memory was
    lowered to an f16 accumulation, where the tile semantics sum in f32 and round
    once (docs/semantics.md) -- 6 of these 8 sums differed by up to 0.4%."""
    x = np.random.default_rng(0).uniform(-1, 1, (8, 64)).astype(np.float16)
    inputs = {"X": x, "V": np.zeros(8, np.float16)}
    tile = run_tile_kernel(F16_ROW_SUM, inputs=inputs)
    np.testing.assert_array_equal(tile["V"], x.astype(np.float32).sum(axis=1).astype(np.float16))
    run = run_nvvm_kernel(lower(F16_ROW_SUM), list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], tile["V"])


UNALIGNED_GEMM_OPERAND = """
func.func @unaligned_operand(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<64x32> %A -> %A_s[%c0, %c4] : memref<64x32xf16> -> memref<64x64xf16, "shared">
  tile.copy<32x64> %B -> %B_s : memref<32x64xf16> -> memref<32x64xf16, "shared">
  pipeline.barrier
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s[%c0, %c4], %B_s -> %C_f : memref<64x64xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
"""


def test_gemm_operand_at_an_unaligned_column():
    """Found by these properties: a tensor-core gemm operand at a column that is no
    multiple of 16 bytes was swizzled and read by ldmatrix at swizzled row addresses
    that are not 16-byte aligned (the interpreter saw the 8 elements of a row run
    past the row's end).  ldmatrix needs 16-byte aligned rows: the lowering must say
    so (or read such an operand another way, correctly)."""
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    args = [a, b, np.zeros((64, 64), np.float32)]
    try:
        module = lower(UNALIGNED_GEMM_OPERAND)
    except DiagnosticException as error:  # a located diagnostic
        assert f"{FILE}:14:" in str(error), error
        assert "ldmatrix" in str(error), error
        return
    run = run_nvvm_kernel(module, args, check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], a.astype(np.float32) @ b.astype(np.float32), atol=1e-4)


F16_BF16_ROUND_TRIP = """
func.func @f16_bf16(%X: memref<16x32xf16>, %Y: memref<16x32xf16>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<16x32xf16, "shared">
  %B = memref.alloc() : memref<16x32xbf16, "shared">
  tile.copy<16x32> %X -> %S : memref<16x32xf16> -> memref<16x32xf16, "shared">
  pipeline.barrier
  tile.cast<16x32> %S -> %B : memref<16x32xf16, "shared"> -> memref<16x32xbf16, "shared">
  pipeline.barrier
  tile.cast<16x32> %B -> %S : memref<16x32xbf16, "shared"> -> memref<16x32xf16, "shared">
  pipeline.barrier
  tile.copy<16x32> %S -> %Y : memref<16x32xf16, "shared"> -> memref<16x32xf16>
  func.return
}
"""


def test_casts_between_f16_and_bf16():
    """Found by the differential fuzzer: a cast between the two 16-bit formats became
    one ``arith.truncf f16 -> bf16``, which upstream rejects (same width); it goes
    through f32, exactly, and rounds once to nearest even."""
    x = np.random.default_rng(1).uniform(-4, 4, (16, 32)).astype(np.float16)
    bits = x.astype(np.float32).view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    inputs = {"X": x, "Y": np.zeros_like(x)}
    tile = run_tile_kernel(F16_BF16_ROUND_TRIP, inputs=inputs)
    np.testing.assert_array_equal(tile["Y"], rounded.astype(np.float16))
    module = lower(F16_BF16_ROUND_TRIP)
    run = run_nvvm_kernel(module, list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], tile["Y"])
    with ir.Context():
        assert ir.Module.parse(generic_text(module)).operation.verify()
