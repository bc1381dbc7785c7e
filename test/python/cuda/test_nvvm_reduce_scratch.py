"""Register-fragment reductions that warp shuffles cannot do go through a shared-memory
scratch (``nvvm_reduce_scratch``): rows spread over several warps (a cooperative
fragment with long rows, an mma accumulator with ``warps_n > 1``), columns, f16/bf16,
three dimensions, integers, a destination in registers.  Each kernel goes through the CUDA flow
and ``lower-to-nvvm`` and runs per thread in the NVVM interpreter, race detector on,
against the tile-level run, bit for bit, on inputs whose sums round (the fuzzer's
check); every barrier the staging adds is needed (deleting one is a race)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.dialects import nvvm
from tilepipe.fuzz.check import Options, check_text
from tilepipe.lowering.nvvm.reduce_scratch import SCRATCH_BARRIER_ATTR
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

NVVM = Options(nvvm=True, determinism=False)
REGRESSIONS = Path(__file__).parents[2] / "regressions"
REPRODUCERS = {
    "reduce_rows_over_warps_1.mlir": "sm_90",
    "reduce_rows_over_warps_2.mlir": "sm_80",
}


def _findings(text: str, target: str = "sm_80", cases=(None,)) -> list[str]:
    outcome = check_text(text, target, list(cases), NVVM)
    assert outcome.compiled, outcome.rejected
    return [str(f) for f in outcome.findings]


def _dims(shape) -> str:
    return "x".join(map(str, shape))


def fragment_reduction(
    shape, dtype, kind, axis, dst="shared", threads=128, target="sm_80", src="fragment"
) -> str:
    out = tuple(d for i, d in enumerate(shape) if i != axis) or (1,)
    tile, out_tile = _dims(shape), _dims(out)
    src_t, out_t = f"memref<{tile}x{dtype}>", f"memref<{out_tile}x{dtype}>"
    return f"""
func.func @k(%X: {src_t}, %V: {out_t})
    attributes {{tile.threads = {threads} : i64, tile.target = "{target}"}} {{
  %F = memref.alloc() : memref<{tile}x{dtype}, "{src}">
  %v = memref.alloc() : memref<{out_tile}x{dtype}, "{dst}">
  tile.copy<{tile}> %X -> %F : {src_t} -> memref<{tile}x{dtype}, "{src}">
  tile.reduce<{tile}> {kind} %F -> %v axis {axis} : memref<{tile}x{dtype}, "{src}"> -> memref<{out_tile}x{dtype}, "{dst}">
  tile.copy<{out_tile}> %v -> %V : memref<{out_tile}x{dtype}, "{dst}"> -> {out_t}
  func.return
}}
"""


COOPERATIVE = [
    # rows spread over warps (the reproducers' case), long rows split in the sum's order
    ((32, 64), "f32", 1), ((8, 136), "f32", 1), ((4, 300), "f32", 1),
    ((64, 32), "f32", 0),  # columns
    ((16, 32), "f16", 1), ((16, 32), "bf16", 1), ((32, 16), "f16", 0),
    ((4, 8, 16), "f32", 1), ((4, 8, 16), "f32", 2),  # three dimensions
    ((96,), "f32", 0),  # a 1-d tile reduced to one element
]


@pytest.mark.parametrize("kind", ["sum", "max"])
@pytest.mark.parametrize("shape, dtype, axis", COOPERATIVE)
def test_cooperative_fragments_reduce_through_shared_memory(shape, dtype, axis, kind):
    assert _findings(fragment_reduction(shape, dtype, kind, axis)) == []


@pytest.mark.parametrize("kind", ["sum", "max"])
def test_a_reduction_into_registers(kind):
    """A destination fragment (formerly rejected even where shuffles reduce the rows)."""
    for shape in ((32, 16), (16, 64)):
        assert _findings(fragment_reduction(shape, "f32", kind, 1, dst="fragment")) == []


@pytest.mark.parametrize("src", ["fragment", "shared"])
@pytest.mark.parametrize("dtype", ["i8", "i32", "i64"])
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_integer_tiles_reduce_in_their_type(dtype, kind, src):
    """Integers add in their type, wrapping (the inputs, -8..7, overflow i8 rows of 64),
    and max is signed: no order to keep, nothing rounded (formerly not lowered)."""
    for shape, axis, dst in [((32, 64), 1, "shared"), ((64, 32), 0, "fragment")]:
        text = fragment_reduction(shape, dtype, kind, axis, dst=dst, src=src)
        assert _findings(text) == [], text


ACCUMULATOR = """
func.func @k(%A: memref<{m}x16xf16>, %B: memref<16x{n}xf16>, %V: memref<{out}xf32>)
    attributes {{tile.threads = 128 : i64, tile.target = "{target}"}} {{
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<{m}x16xf16, "shared">
  %B_s = memref.alloc() : memref<16x{n}xf16, "shared">
  %C = memref.alloc() : memref<{m}x{n}xf32, "fragment">
  %v = memref.alloc() : memref<{out}xf32, "{dst}">
  tile.copy<{m}x16> %A -> %A_s : memref<{m}x16xf16> -> memref<{m}x16xf16, "shared">
  tile.copy<16x{n}> %B -> %B_s : memref<16x{n}xf16> -> memref<16x{n}xf16, "shared">
  tile.fill<{m}x{n}> %zero -> %C : f32 -> memref<{m}x{n}xf32, "fragment">
  tile.gemm<{m}x{n}x16> %A_s, %B_s -> %C : memref<{m}x16xf16, "shared">, memref<16x{n}xf16, "shared"> -> memref<{m}x{n}xf32, "fragment">
  tile.reduce<{m}x{n}> {kind} %C -> %v axis {axis} : memref<{m}x{n}xf32, "fragment"> -> memref<{out}xf32, "{dst}">
  tile.copy<{out}> %v -> %V : memref<{out}xf32, "{dst}"> -> memref<{out}xf32>
  func.return
}}
"""


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize(
    "m, n, axis, dst",
    [
        (16, 64, 1, "shared"),  # 16 rows: one warp row, warps_n = 4
        (16, 64, 0, "shared"),
        (32, 64, 1, "fragment"),
        (64, 16, 0, "fragment"),
    ],
)
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_mma_accumulators_reduce_across_warps(m, n, axis, dst, kind, target):
    out = m if axis == 1 else n
    text = ACCUMULATOR.format(m=m, n=n, out=out, axis=axis, dst=dst, kind=kind, target=target)
    assert _findings(text, target) == []


@pytest.mark.parametrize("name, target", REPRODUCERS.items())
def test_reproducers_run_race_free_and_bit_exact(name, target):
    """lowering-2026-12: "the rows of this register fragment are spread over several
    warps" (30 of 349 fuzzer kernels); their reduction in a loop of 0, 1, 2, 5 trips."""
    text = (REGRESSIONS / name).read_text()
    assert _findings(text, target, cases=[0, 1, 2, 5]) == []


def _lowered(text: str):
    module = parse_kernel(text, "kernel.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


def _scratch_barriers(module) -> list[nvvm.Barrier0Op]:
    return [
        op
        for op in module.walk()
        if isinstance(op, nvvm.Barrier0Op) and SCRATCH_BARRIER_ATTR in op.attributes
    ]


def _races(module, args) -> list:
    return run_nvvm_kernel(
        module, args, blocks=[(0, 0, 0)], check_races=True, stop_at_first_race=True
    ).races


def _reproducer_args(module, trips: int) -> list:
    """Random arrays for the kernel's memref arguments, ``trips`` for %n."""
    from tilepipe.semantics.nvvm.interp import argument_types, gpu_kernel

    rng = np.random.default_rng(0)
    args = []
    for arg_type in argument_types(gpu_kernel(module)):
        if not hasattr(arg_type, "get_shape"):
            args.append(np.asarray(trips))
            continue
        dtype = np.float16 if "f16" in str(arg_type.element_type) else np.float32
        args.append(rng.uniform(-1, 1, arg_type.get_shape()).astype(dtype))
    return args


# Two staged reductions per iteration into registers: no shared memory of the kernel's
# is written, so thread-sync puts no barrier in the loop, and each staging must wait
# until every thread has read the previous one.
REGISTER_STATISTICS = """
func.func @stats(%X: memref<32x64xf32>, %O: memref<32xf32>, %n: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %F = memref.alloc() : memref<32x64xf32, "fragment">
  %m = memref.alloc() : memref<32xf32, "fragment">
  %s = memref.alloc() : memref<32xf32, "fragment">
  %acc = memref.alloc() : memref<32xf32, "fragment">
  %o = memref.alloc() : memref<32xf32, "shared">
  tile.copy<32x64> %X -> %F : memref<32x64xf32> -> memref<32x64xf32, "fragment">
  tile.fill<32> %zero -> %acc : f32 -> memref<32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 0, 0] order = [0, 1, 2, 3, 4] {
    tile.reduce<32x64> max %F -> %m axis 1 : memref<32x64xf32, "fragment"> -> memref<32xf32, "fragment">
    tile.reduce<32x64> sum %F -> %s axis 1 : memref<32x64xf32, "fragment"> -> memref<32xf32, "fragment">
    tile.add<32> %acc, %m -> %acc : memref<32xf32, "fragment">, memref<32xf32, "fragment"> -> memref<32xf32, "fragment">
    tile.add<32> %acc, %s -> %acc : memref<32xf32, "fragment">, memref<32xf32, "fragment"> -> memref<32xf32, "fragment">
    tile.add<32x64> %F, %F -> %F : memref<32x64xf32, "fragment">, memref<32x64xf32, "fragment"> -> memref<32x64xf32, "fragment">
  }
  tile.copy<32> %acc -> %o : memref<32xf32, "fragment"> -> memref<32xf32, "shared">
  tile.copy<32> %o -> %O : memref<32xf32, "shared"> -> memref<32xf32>
  func.return
}
"""


def test_staged_reductions_in_a_loop_without_barriers_of_their_own():
    assert _findings(REGISTER_STATISTICS, cases=[0, 1, 3]) == []


@pytest.mark.parametrize(
    "text, barriers",
    [
        ((REGRESSIONS / "reduce_rows_over_warps_1.mlir").read_text(), ["staged"]),
        ((REGRESSIONS / "reduce_rows_over_warps_2.mlir").read_text(), ["staged"]),
        (REGISTER_STATISTICS, ["staged", "read", "staged", "read"]),
    ],
    ids=["reproducer_1", "reproducer_2", "register_statistics"],
)
def test_every_barrier_of_the_staging_is_needed(text, barriers):
    """Deleting a barrier after the stores lets threads read rows not yet staged;
    deleting one after the reads lets the next staging overwrite rows still being
    read.  The reproducers need no second barrier: thread-sync's at the top of the
    loop already orders the reads before the next iteration's staging."""
    module = _lowered(text)
    args = _reproducer_args(module, trips=2)
    assert _races(module, args) == []
    purposes = [b.attributes[SCRATCH_BARRIER_ATTR].data for b in _scratch_barriers(module)]
    assert purposes == barriers
    for index, purpose in enumerate(purposes):
        mutant = _lowered(text)
        barrier = _scratch_barriers(mutant)[index]
        barrier.parent_block().erase_op(barrier)
        assert _races(mutant, args) != [], f"barrier {index} ({purpose}) is not needed"


def test_a_reduction_not_followed_by_another_use_of_the_scratch_ends_without_barrier():
    """Outside loops the last staged reduction leaves the scratch for good."""
    module = _lowered(fragment_reduction((32, 64), "f32", "sum", 1))
    purposes = [b.attributes[SCRATCH_BARRIER_ATTR].data for b in _scratch_barriers(module)]
    assert purposes == ["staged"]


DYNAMIC_SHARED = """
func.func @k(%X: memref<64x64xf32>, %Y: memref<11264xf32>, %V: memref<64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<11264xf32, "shared">
  %F = memref.alloc() : memref<64x64xf32, "fragment">
  %v = memref.alloc() : memref<64xf32, "shared">
  tile.copy<11264> %Y -> %S : memref<11264xf32> -> memref<11264xf32, "shared">
  tile.copy<11264> %S -> %Y : memref<11264xf32, "shared"> -> memref<11264xf32>
  tile.copy<64x64> %X -> %F : memref<64x64xf32> -> memref<64x64xf32, "fragment">
  tile.reduce<64x64> sum %F -> %v axis 0 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
  tile.copy<64> %v -> %V : memref<64xf32, "shared"> -> memref<64xf32>
  func.return
}
"""


def test_the_scratch_counts_in_the_kernels_shared_bytes():
    """44 KiB of buffers and the 16 KiB scratch: the scratch makes the kernel's shared
    memory dynamic (over CUDA's 48 KiB static limit), at its end; ptxas accepts it and
    the per-thread run agrees with the tile level."""
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR
    from tilepipe.semantics.nvvm.interp import gpu_kernel

    module = _lowered(DYNAMIC_SHARED)
    shared = gpu_kernel(module).attributes[DYNAMIC_SHARED_ATTR].value.data
    assert shared == 11264 * 4 + 64 * 64 * 4  # the arena (%v reuses %S's bytes), the scratch
    with_ptx = Options(nvvm=True, ptx=True, determinism=False)
    outcome = check_text(DYNAMIC_SHARED, "sm_80", [None], with_ptx)
    assert outcome.compiled, outcome.rejected
    assert [str(f) for f in outcome.findings] == []


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_ptxas_accepts_every_staged_reduction(target):
    """One module of each kind of kernel above (rows over warps, split rows, f16/bf16,
    columns, three dimensions, one element, integers, into registers, mma accumulators
    across warps, the loop of two), through ``tilepipe compile`` to PTX and ptxas."""
    from tilepipe.drivers.compile import compile_kernel

    texts = [
        *(
            fragment_reduction(shape, dtype, "sum", axis, target=target)
            for shape, dtype, axis in COOPERATIVE
            if shape in ((32, 64), (4, 300), (16, 32), (4, 8, 16), (96,)) and dtype != "bf16"
        ),
        fragment_reduction((16, 32), "bf16", "max", 0, dst="fragment", target=target),
        fragment_reduction((32, 64), "i8", "sum", 1, target=target),
        fragment_reduction((64, 32), "i64", "max", 0, dst="fragment", target=target),
        ACCUMULATOR.format(m=16, n=64, out=16, axis=1, dst="shared", kind="sum", target=target),
        ACCUMULATOR.format(m=64, n=16, out=16, axis=0, dst="fragment", kind="max", target=target),
        REGISTER_STATISTICS.replace('"sm_80"', f'"{target}"'),
    ]
    module = "\n".join(
        re.sub(r"func\.func @\w+\(", f"func.func @k{i}(", text) for i, text in enumerate(texts)
    )
    result = compile_kernel(module, "reductions.mlir", target)
    assert result.output.count(".entry k") == len(texts)
    assert result.output.count("bar.sync") >= len(texts)
