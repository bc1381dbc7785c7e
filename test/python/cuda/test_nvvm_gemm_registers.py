"""Register-fragment gemm operands (flash attention's ``P V`` with P in registers):
lower-to-nvvm stages them through a shared tile (lowering/nvvm/staging.py).  Per
thread in the NVVM interpreter the lowered kernels are race free and bit-exact
against the tile level; each staging barrier is needed (deleting it makes the race
detector fire); ptxas takes them at sm_80 and sm_90."""

import numpy as np
import pytest
from pipeline_helpers import apply_passes
from xdsl.dialects.builtin import MemRefType

from tilepipe.drivers.compile import compile_kernel, make_context
from tilepipe.dialects import nvvm
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel, select_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.flows import FLOWS
from tilepipe.semantics.tile.grid_runner import random_array

CUDA = FLOWS["cuda"].spec("scheduled")

# S = Q K^T on tensor cores, P = f16(S) in registers, O += P V (P the A operand),
# then O += V^T P^T with P the B operand; THREADS warps, TRIPS times around a loop
# that holds no barrier of its own (so the staging tile's reuse needs one).
P_TIMES_V = """
func.func @pv(%Q: memref<32x16xT>, %K: memref<16x16xT>, %V: memref<16x16xT>, %O: memref<32x16xf32>, %O2: memref<16x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = THREADS : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %trips = arith.constant TRIPS : index
  %zero = arith.constant 0.000000e+00 : f32
  %Qs = memref.alloc() : memref<32x16xT, "shared">
  %Ks = memref.alloc() : memref<16x16xT, "shared">
  %Vs = memref.alloc() : memref<16x16xT, "shared">
  %S = memref.alloc() : memref<32x16xf32, "fragment">
  %P = memref.alloc() : memref<32x16xT, "fragment">
  %Of = memref.alloc() : memref<32x16xf32, "fragment">
  %Of2 = memref.alloc() : memref<16x32xf32, "fragment">
  tile.copy<32x16> %Q -> %Qs : memref<32x16xT> -> memref<32x16xT, "shared">
  tile.copy<16x16> %K -> %Ks : memref<16x16xT> -> memref<16x16xT, "shared">
  tile.copy<16x16> %V -> %Vs : memref<16x16xT> -> memref<16x16xT, "shared">
  tile.fill<32x16> %zero -> %S : f32 -> memref<32x16xf32, "fragment">
  tile.fill<32x16> %zero -> %Of : f32 -> memref<32x16xf32, "fragment">
  tile.fill<16x32> %zero -> %Of2 : f32 -> memref<16x32xf32, "fragment">
  tile.gemm<32x16x16> %Qs, %Ks -> %S transpose_b : memref<32x16xT, "shared">, memref<16x16xT, "shared"> -> memref<32x16xf32, "fragment">
  tile.cast<32x16> %S -> %P : memref<32x16xf32, "fragment"> -> memref<32x16xT, "fragment">
  pipeline.for %i = %c0 to %trips step %c1 num_stages = 1 {
    tile.gemm<32x16x16> %P, %Vs -> %Of : memref<32x16xT, "fragment">, memref<16x16xT, "shared"> -> memref<32x16xf32, "fragment">
    SECONDtile.gemm<16x32x16> %Vs, %P -> %Of2 transpose_a transpose_b : memref<16x16xT, "shared">, memref<32x16xT, "fragment"> -> memref<16x32xf32, "fragment">
    tile.add<32x16> %P, %P -> %P : memref<32x16xT, "fragment">, memref<32x16xT, "fragment"> -> memref<32x16xT, "fragment">
  }
  tile.copy<32x16> %Of -> %O : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  tile.copy<16x32> %Of2 -> %O2 : memref<16x32xf32, "fragment"> -> memref<16x32xf32>
  func.return
}
"""


def kernel_text(dtype="f16", threads=64, trips=2, second=True) -> str:
    return (
        P_TIMES_V.replace("SECOND", "" if second else "// ")
        .replace("xT", f"x{dtype}")
        .replace("THREADS", str(threads))
        .replace("TRIPS", str(trips))
    )


def _inputs(module):
    rng = np.random.default_rng(11)
    func = select_kernel(module, None)
    return {
        arg.name_hint: random_array(arg.type, rng)
        for arg in func.body.block.args
        if isinstance(arg.type, MemRefType)
    }


def _lowered(text: str):
    module = apply_passes(text, CUDA)
    lowered = module.clone()
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), lowered)
    return module, lowered


def _barriers(lowered) -> list:
    return [op for op in lowered.walk() if isinstance(op, nvvm.Barrier0Op)]


@pytest.mark.parametrize(
    "dtype, threads, trips", [("f16", 64, 2), ("bf16", 128, 3), ("f16", 32, 1), ("f32", 64, 2)]
)
def test_register_operands_match_the_tile_level(dtype, threads, trips):
    text = kernel_text(dtype, threads, trips)
    module, lowered = _lowered(text)
    inputs = _inputs(module)
    expected = run_tile_kernel(text, inputs=inputs)
    run = run_nvvm_kernel(lowered, list(inputs.values()), check_races=True)
    assert run.races == []
    for position, name in enumerate(inputs):
        np.testing.assert_array_equal(run.outputs[position], expected[name], err_msg=name)
    names = [op.name for op in lowered.walk()]
    if dtype == "f16":  # the staged P is read by ldmatrix like any shared operand
        assert names.count("nvgpu.ldmatrix") >= 4


def test_register_operands_in_dynamic_shared_memory():
    """Past 48 KiB the kernel's shared memory is dynamic; the staging tiles' views are
    made at the gemm from it."""
    big = 'memref<2048x16xf16, "shared">'
    text = kernel_text(trips=1).replace(
        "  tile.copy<16x16> %K",
        f"  %Big = memref.alloc() : {big}\n"
        f"  tile.copy<32x16> %Q -> %Big[%c0, %c0] : memref<32x16xf16> -> {big}\n"
        "  tile.copy<16x16> %K",
    )
    module, lowered = _lowered(text)
    assert any(op.name == "gpu.dynamic_shared_memory" for op in lowered.walk())
    inputs = _inputs(module)
    expected = run_tile_kernel(text, inputs=inputs)
    run = run_nvvm_kernel(lowered, list(inputs.values()), check_races=True)
    assert run.races == []
    for position, name in enumerate(inputs):
        np.testing.assert_array_equal(run.outputs[position], expected[name], err_msg=name)


@pytest.mark.parametrize("second, expected", [(False, 2), (True, 2)])
def test_every_staging_barrier_is_needed(second, expected):
    """In a loop with no other barrier, one gemm with a staged P stages behind a
    barrier that orders its stores after the previous trip's reads, and another before
    its reads.  With a second such gemm in the loop, the two read barriers also order
    each other's reuse: no more barriers.  Deleting any one makes the per-thread
    detector fire."""
    module, lowered = _lowered(kernel_text(second=second))
    inputs = list(_inputs(module).values())
    assert run_nvvm_kernel(lowered, inputs, check_races=True).races == []

    def in_loop(barriers):
        return [b for b in barriers if b.parent_op().name == "scf.for"]

    assert len(in_loop(_barriers(lowered))) == expected
    for index in range(expected):
        mutant = lowered.clone()
        victim = in_loop(_barriers(mutant))[index]
        victim.detach()
        victim.erase()
        run = run_nvvm_kernel(mutant, inputs, check_races=True, stop_at_first_race=True)
        assert run.races, f"staging barrier {index} is not needed"


def test_no_reuse_barrier_outside_loops():
    """Without the loop, each staged gemm adds only the barrier before its reads:
    nothing read its staging tile before the stores."""
    text = kernel_text(trips=1).replace(
        "pipeline.for %i = %c0 to %trips step %c1 num_stages = 1 {", ""
    ).replace("  }\n  tile.copy<32x16> %Of", "  tile.copy<32x16> %Of")
    module, lowered = _lowered(text)
    tile_barriers = [op for op in module.walk() if op.name == "pipeline.barrier"]
    assert len(_barriers(lowered)) == len(tile_barriers) + 2
    inputs = _inputs(module)
    run = run_nvvm_kernel(lowered, list(inputs.values()), check_races=True)
    assert run.races == []
    expected = run_tile_kernel(text, inputs=inputs)
    for position, name in enumerate(inputs):
        np.testing.assert_array_equal(run.outputs[position], expected[name], err_msg=name)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_register_operands_compile_to_ptx(target, ptxas_available):
    text = kernel_text().replace('tile.target = "sm_80"', f'tile.target = "{target}"')
    (report,) = compile_kernel(text, "pv.mlir", target).ptxas
    assert report.kernel == "pv"
