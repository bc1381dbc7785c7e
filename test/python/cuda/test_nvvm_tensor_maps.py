"""Tensor-map TMA on sm_90a, per thread in the NVVM interpreter: the lowered GEMM, its
tiles landed by ``cp.async.bulk.tensor`` in the hardware's swizzle and zero-filled past
the arrays' edges, is race free and equal to the product at num_stages 1-4 and trip
counts 0, 1, 2 and 17 (dynamic), at ragged static shapes, and with rows of 32, 64 and
128 bytes (the three swizzle modes) and of 256 bytes (two 128-byte panels), read by
wgmma descriptors (one warpgroup) or ldmatrix (64 threads).  The interpreter's swizzle
(address bits, PTX ISA) and the lowering's (row and column indices, ``swizzle.py``)
are written apart; these runs are where they must agree.  That every sync of the
lowered kernel is needed is test_nvvm_wgmma.py's."""

import numpy as np
import pytest

from pipeline_helpers import apply_passes
from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import compile_kernel
from tilepipe.lowering.nvvm.swizzle import choose_swizzle
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel
from tilepipe.semantics.nvvm.tensor_copy import TensorMap, TensorMapError, box_values, swizzled
from xdsl.dialects.builtin import Float16Type, MemRefType

GEMM = """
func.func @gemm(%A: memref<MxKxT>, %B: memref<KxNxT>, %C: memref<MxNxf32>, %n: index)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = THREADS : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbk = arith.constant BK : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<BMxBKxT, "shared">
  %B_s = memref.alloc() : memref<BKxBNxT, "shared">
  %C_f = memref.alloc() : memref<BMxBNxf32, "fragment">
  tile.fill<BMxBN> %zero -> %C_f : f32 -> memref<BMxBNxf32, "fragment">
  pipeline.for %ko = %c0 to %n step %c1 num_stages = STAGES {
    %k0 = arith.muli %ko, %cbk : index
    tile.copy<BMxBK> %A[%c0, %k0] -> %A_s : memref<MxKxT> -> memref<BMxBKxT, "shared">
    tile.copy<BKxBN> %B[%k0, %c0] -> %B_s : memref<KxNxT> -> memref<BKxBNxT, "shared">
    tile.gemm<BMxBNxBK> %A_s, %B_s -> %C_f : memref<BMxBKxT, "shared">, memref<BKxBNxT, "shared"> -> memref<BMxBNxf32, "fragment">
  }
  tile.copy<BMxBN> %C_f -> %C : memref<BMxBNxf32, "fragment"> -> memref<MxNxf32>
  func.return
}
"""

MAX_TRIPS = 17


def gemm(
    stages: int, block_k: int = 64, m: int = 128, n: int = 128, k: int = 64 * MAX_TRIPS,
    threads: int = 128,
):
    """The 128x128 f16 GEMM; at 128 threads (one warpgroup) it runs on wgmma, at 64
    on mma.sync."""
    return pipelined_gemm(stages, 128, 128, block_k, m, n, k, threads)


def pipelined_gemm(
    stages: int, block_m: int, block_n: int, block_k: int, m: int, n: int, k: int,
    threads: int = 128, dtype: str = "f16",
) -> str:
    """``GEMM`` with its blocks, array sizes (trip count ``%n``), threads and input
    type filled in."""
    text = GEMM
    for key, value in (
        ("BM", block_m), ("BN", block_n), ("BK", block_k), ("THREADS", threads),
        ("STAGES", stages), ("xT", f"x{dtype}"), ("M", m), ("N", n), ("K", k),
    ):
        text = text.replace(key, str(value))
    return text


def lowered(text: str):
    return apply_passes(text, ",".join(FLOWS["cuda"].passes))


def operands(m: int, n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    return a, b, np.zeros((m, n), np.float32)


def expected(a, b, k: int) -> np.ndarray:
    return a[:, :k].astype(np.float32) @ b[:k].astype(np.float32)


def tensor_copies(module) -> int:
    return sum(op.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global" for op in module.walk())


@pytest.mark.parametrize(
    "stages, trips", [(1, 2), (2, 0), (2, 1), (3, 2), (3, 17), (4, 1), (4, 5)]
)
def test_tensor_map_gemm_is_race_free_and_exact(stages, trips):
    module = lowered(gemm(stages))
    assert tensor_copies(module) > 0
    a, b, c = operands(128, 128, 64 * MAX_TRIPS)
    run = run_nvvm_kernel(module, [a, b, c, np.array(trips)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 64 * trips), atol=1e-3)


def test_ragged_shapes_read_zeros_past_the_edges():
    """M = 100, N = 120 and K = 72 against 128x128x64 tiles: the boxes reach past
    every edge (the second k tile holds 8 real columns of A and rows of B), the
    hardware zero-fills, and no edge path is left in the kernel."""
    module = lowered(gemm(3, m=100, n=120, k=72))
    names = {op.name for op in module.walk()}
    assert "nvvm.mbarrier.complete_tx" not in names  # the row-wise copy's edge path
    a, b, c = operands(100, 120, 72, seed=1)
    run = run_nvvm_kernel(module, [a, b, c, np.array(2)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 72), atol=1e-3)


@pytest.mark.parametrize("threads", [128, 64])
@pytest.mark.parametrize("block_k, swizzle", [(16, 32), (32, 64), (64, 128)])
def test_each_swizzle_mode_lands_where_ldmatrix_reads(block_k, swizzle, threads):
    """A's rows are 2 * block_k bytes: the 32B, 64B and 128B modes; B's rows of 256
    bytes land as two 128-byte panels (two boxes), each in the 128B mode.  A wrong
    mode, alignment or panel puts elements where the permuted ldmatrix addresses (64
    threads: mma.sync) or the wgmma descriptors (128 threads) do not look, and the
    product is wrong; all the ldmatrix reads are conflict free."""
    module = lowered(gemm(2, block_k=block_k, k=4 * block_k, threads=threads))
    on_wgmma = any(op.name == "nvvm.wgmma.mma_async" for op in module.walk())
    assert on_wgmma == (threads == 128)
    (kernel,) = [op for op in module.walk() if op.name == "gpu.func"]
    maps = [
        (entry.data["box"].get_values(), entry.data["swizzle"].value.data)
        for entry in kernel.attributes["tilepipe.tensor_maps"].data
    ]
    assert maps == [((128, block_k), swizzle), ((block_k, 64), 128)]
    a, b, c = operands(128, 128, 4 * block_k, seed=block_k)
    run = run_nvvm_kernel(
        module, [a, b, c, np.array(4)], check_races=True, count_bank_conflicts=True
    )
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 4 * block_k), atol=1e-3)
    if not on_wgmma:
        wavefronts, ideal = run.shared_wavefronts["nvgpu.ldmatrix"]
        assert wavefronts == ideal


def test_without_tensor_maps_the_same_kernel_copies_rows():
    # warp-specialize issues tensor copies of its own: without tensor maps a kernel
    # is not warp-specialized (tilepipe compile --no-tensor-maps says so too).
    text = gemm(3).replace('"sm_90a"', '"sm_90a", tile.warp_specialize = false')
    module = apply_passes(
        text, ",".join(FLOWS["cuda"].passes).replace("tma-copy", "tma-copy{tensor_maps=false}")
    )
    assert tensor_copies(module) == 0
    assert any(op.name == "nvvm.cp.async.bulk.shared.cluster.global" for op in module.walk())


# Every barrier, proxy fence, mbarrier arrival and wait of this GEMM (now on wgmma) is
# mutated in test_nvvm_wgmma.py, with the wgmma fences, commits and waits.


# ----------------------------------------------------------- the model by itself


@pytest.mark.parametrize("row_bytes", [32, 64, 128])
def test_hardware_swizzle_equals_the_lowerings_permutation(row_bytes):
    """Address-bit XOR (PTX ISA) against ``col ^ (phase(row) * E)``, element by
    element over 16 rows of f16."""
    columns = row_bytes // 2
    permutation = choose_swizzle(MemRefType(Float16Type(), [16, columns]))
    assert permutation is not None
    for row in range(16):
        phase = (row // permutation.rows_per_phase) % permutation.phases
        for col in range(columns):
            logical = row * row_bytes + 2 * col
            lowered_col = col ^ (phase * permutation.unit_elements)
            assert swizzled(np.array(logical), row_bytes) == row * row_bytes + 2 * lowered_col


def test_a_box_past_the_edges_reads_zeros():
    array = np.arange(6 * 5, dtype=np.float32).reshape(6, 5)
    box = box_values(array, (4, 4), [4, 3]).reshape(4, 4)
    want = np.zeros((4, 4), np.float32)
    want[:2, :2] = array[4:6, 3:5]
    np.testing.assert_array_equal(box, want)
    negative = box_values(array, (2, 2), [-1, -1]).reshape(2, 2)
    np.testing.assert_array_equal(negative, [[0, 0], [0, array[0, 0]]])


@pytest.mark.parametrize(
    "tensor_map, shape, message",
    [
        (TensorMap(0, (64, 128), 128), (64, 128), "exceed the 128-byte swizzle"),
        (TensorMap(0, (64, 4), 0), (64, 64), "no multiple of 16"),
        (TensorMap(0, (64, 512), 0), (64, 1024), "extents must be 1..256"),
        (TensorMap(0, (8, 8), 0), (8, 100), "not multiples of 16 bytes"),
        (TensorMap(0, (8,), 0), (8, 8), "rank 1 for an array of rank 2"),
    ],
)
def test_the_encoder_rejects_what_the_driver_rejects(tensor_map, shape, message):
    with pytest.raises(TensorMapError, match=message):
        tensor_map.check(np.zeros(shape, np.float16))


def test_ptxas_accepts_the_sm90a_gemm():
    text = gemm(3).replace("%n: index", "%unused: index").replace("to %n", "to %c16")
    text = text.replace("%c1 = arith.constant 1 : index",
                        "%c1 = arith.constant 1 : index\n  %c16 = arith.constant 16 : index")
    result = compile_kernel(text, "gemm_sm90a.mlir", "sm_90a")
    (report,) = result.ptxas
    assert report.arch == "sm_90a"
    assert ".param .align 64 .b8" in result.ptx


def test_a_malformed_map_record_is_a_clear_error():
    module = lowered(gemm(2, k=128))
    (kernel,) = [op for op in module.walk() if op.name == "gpu.func"]
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    kernel.attributes["tilepipe.tensor_maps"] = ArrayAttr([StringAttr("box")])
    a, b, c = operands(128, 128, 128)
    with pytest.raises(NvvmExecutionError, match="each entry of 'tilepipe.tensor_maps' is"):
        run_nvvm_kernel(module, [a, b, c, np.array(2)])


def test_an_array_the_encoder_rejects_is_a_clear_error():
    """An array of 100 f16 per row: its row stride of 200 bytes is no multiple of 16,
    which cuTensorMapEncodeTiled refuses (the interpreter encodes the maps from the
    arrays a run is given, as a host would)."""
    module = lowered(gemm(2, k=128))
    a, b, c = operands(128, 128, 128)
    with pytest.raises(NvvmExecutionError, match="not multiples of 16 bytes"):
        run_nvvm_kernel(module, [a, np.zeros((128, 100), np.float16), c, np.array(2)])


BATCHED = """
func.func @batched(%A: memref<3x100x64xf16>, %O: memref<3x128x64xf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<128x64xf16, "shared">
  pipeline.for %b = %c0 to %n step %c1 num_stages = 2 {
    tile.copy<128x64> %A[%b, %c0, %c0] -> %s : memref<3x100x64xf16> -> memref<128x64xf16, "shared">
    tile.copy<128x64> %s -> %O[%b, %c0, %c0] : memref<128x64xf16, "shared"> -> memref<3x128x64xf16>
  }
  func.return
}
"""

VECTOR = """
func.func @vector(%A: memref<1000xf32>, %O: memref<1024xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %s = memref.alloc() : memref<256xf32, "shared">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 3 {
    %o = arith.muli %i, %c256 : index
    tile.copy<256> %A[%o] -> %s : memref<1000xf32> -> memref<256xf32, "shared">
    tile.copy<256> %s -> %O[%o] : memref<256xf32, "shared"> -> memref<1024xf32>
  }
  func.return
}
"""


@pytest.mark.parametrize(
    "text, box, shape, out_shape",
    [
        (BATCHED, (1, 128, 64), (3, 100, 64), (3, 128, 64)),  # a box of rank 3, rows past 100
        (VECTOR, (256,), (1000,), (1024,)),  # rank 1, the last box past 1000
    ],
    ids=["batched", "vector"],
)
def test_boxes_of_other_ranks_land_their_tiles(text, box, shape, out_shape):
    """The map has one dimension per dimension of the array (leading 1s where the
    tile has fewer), the coordinates go innermost first, and the part of a box past
    the array reads zero."""
    module = lowered(text)
    (kernel,) = [op for op in module.walk() if op.name == "gpu.func"]
    (entry,) = kernel.attributes["tilepipe.tensor_maps"].data
    assert tuple(entry.data["box"].get_values()) == box
    array = np.random.default_rng(3).uniform(-1, 1, shape).astype(
        np.float16 if len(shape) == 3 else np.float32
    )
    trips = out_shape[0] if len(shape) == 3 else 4
    for n in (0, 1, trips):
        run = run_nvvm_kernel(
            module, [array, np.zeros(out_shape, array.dtype), np.array(n)], check_races=True
        )
        assert run.races == []
        want = np.zeros(out_shape, array.dtype)
        if len(shape) == 3:
            want[:n, : shape[1]] = array[:n]
        else:
            want[: min(256 * n, shape[0])] = array[: 256 * n]
        np.testing.assert_array_equal(run.outputs[1], want)


def test_the_fallback_and_the_host_launcher_that_encodes_maps():
    """tensor_maps=False (--no-tensor-maps) keeps sm_90a's bulk copies row-wise, and
    its host launcher has no map to encode; with maps the launcher takes the kernel's
    own arguments and encodes one map per record before the launch, which passes them
    after those arguments (test_upstream_standard_lowering.py runs it)."""
    from tilepipe.drivers.api import compile_for

    text = gemm(3, k=256).replace("to %n", "to %c4").replace(
        "%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : index\n  %c4 = arith.constant 4 : index"
    )
    mapped = compile_for(text, "sm_90a", level="nvvm", host_launch=True).text
    assert mapped.count("call @mgpuTensorMapEncodeTiled(") == 2
    (launch,) = [line for line in mapped.splitlines() if "gpu.launch_func" in line]
    assert launch.count("!llvm.ptr") == 2 and launch.count("memref<") == 3
    plain = compile_for(text, "sm_90a", level="nvvm", host_launch=True, tensor_maps=False)
    assert "cp.async.bulk.tensor" not in plain.text and "gpu.launch_func" in plain.text
    assert "mgpuTensorMapEncodeTiled" not in plain.text
    assert "nvvm.cp.async.bulk.tensor" in compile_for(text, "sm_90a", level="nvvm").text
