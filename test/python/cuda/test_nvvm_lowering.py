"""lower-to-nvvm end to end: upstream MLIR parses and verifies the lowered kernels,
ptxas accepts the PTX of the chapter's GEMM for sm_80 and sm_90 (tile level and
pipelined at num_stages 1-4), and the shared memory the PTX declares is the arena."""

import re
import subprocess
import sys

import pytest
from mlir import ir
from xdsl.dialects import memref

from conftest import EXAMPLES, ROOT
from sweeps import targets_by_depth

from tilepipe.drivers.compile import compile_kernel, make_context, parse_kernel
from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR, STATIC_SHARED_LIMIT
from tilepipe.dialects.tile_base import chunk_elements
from tilepipe.lowering.nvvm.layout import choose_warp_grid
from tilepipe.lowering.nvvm.ptxas import find_ptxas, parse_ptxas_log, run_ptxas
from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM
from tilepipe.lowering.nvvm.upstream import Stage, generic_text, run_upstream
from tilepipe.core.registry import get_all_passes
from tilepipe.core.targets import SM_80, SM_90, TARGETS
from tilepipe.core.flows import FLOWS

GEMM = (EXAMPLES / "gemm.mlir").read_text()
NVVM_TESTS = sorted((ROOT / "test" / "cuda" / "nvvm").glob("*.mlir"))


def lower(text: str):
    module = parse_kernel(text, "kernel.mlir")
    LowerToNVVM().apply(make_context(), module)
    module.verify()
    return module


def positive_chunks(path):
    if "invalid" in path.name:
        return []
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


@pytest.mark.parametrize(
    "path", [p for p in NVVM_TESTS if positive_chunks(p)], ids=lambda p: p.name
)
def test_lowered_kernels_parse_verify_and_assemble(path):
    """Upstream parses and verifies every lowered lit kernel; ptxas accepts its PTX."""
    for chunk in positive_chunks(path):
        module = lower(chunk)
        with ir.Context():
            upstream = ir.Module.parse(generic_text(module))
            assert upstream.operation.verify()
            assert "gpu.func" in str(upstream)
        named = re.search(r'tile.target = "(sm_\w+)"', chunk)
        target = TARGETS[named.group(1)] if named else SM_80
        try:
            find_ptxas()
        except RuntimeError:
            continue
        run_ptxas(run_upstream(module, target, Stage.PTX).text, target.name)


def with_stages(num_stages: int) -> str:
    return GEMM.replace("num_stages = 3", f"num_stages = {num_stages}")


@pytest.mark.parametrize("target", [SM_80, SM_90], ids=lambda t: t.name)
def test_ptxas_accepts_the_tile_level_gemm(target, ptxas_available):
    """Only lower-to-nvvm: pipeline.for runs its iterations in order."""
    ptx = run_upstream(lower(GEMM), target, Stage.PTX).text
    assert f".target {target.name}" in ptx
    (report,) = run_ptxas(ptx, target.name)
    assert report.kernel == "gemm"
    assert report.shared_bytes == (128 * 64 + 64 * 128) * 2


PIPELINE_PASSES = FLOWS["cuda"].pass_names("arena")


# By default each depth on one target (sm_80 at 1 and 3, sm_90 at 2 and 4); every
# pair with TILEPIPE_TESTS=long.
@pytest.mark.parametrize("target, num_stages", targets_by_depth())
def test_ptxas_accepts_the_pipelined_gemm(target, num_stages, ptxas_available):
    missing = [p for p in PIPELINE_PASSES if p not in get_all_passes()]
    if missing:
        pytest.skip(f"not registered yet: {', '.join(missing)}")
    result = compile_kernel(with_stages(num_stages), "gemm.mlir", target)
    (report,) = result.ptxas
    assert "mma.sync.aligned.m16n8k16" in result.ptx
    # The accumulators and register runs stay in registers: no local memory at all.
    assert (report.stack_bytes, report.spill_store_bytes, report.spill_load_bytes) == (0, 0, 0)
    (arena_stage,) = [s for s in result.stages if s.name == "merge-shared-memory"]
    arena = int(re.search(r"arena: (\d+) bytes", arena_stage.summary).group(1))
    assert arena >= num_stages * (128 * 64 + 64 * 128) * 2
    if arena <= STATIC_SHARED_LIMIT:
        # the static shared memory ptxas counts is exactly the arena
        assert report.shared_bytes == arena
        assert result.dynamic_shared_bytes == {}
    else:
        assert result.dynamic_shared_bytes == {"gemm": arena}


@pytest.mark.parametrize("target, num_stages", targets_by_depth(first=1))
@pytest.mark.parametrize("example", ["gemm_epilogue", "flash_attention"])
def test_ptxas_accepts_the_other_pipelined_examples(example, target, num_stages, ptxas_available):
    """Every CUDA example (the GEMM above) through the whole flow, at every depth (by
    default sm_90 at 1 and 3, sm_80 at 2 and 4)."""
    path = EXAMPLES / f"{example}.mlir"
    text = re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", path.read_text())
    result = compile_kernel(text, path.name, target)
    (report,) = result.ptxas
    assert report.arch == target
    assert "mma.sync.aligned.m16n8k16" in result.ptx
    assert (report.stack_bytes, report.spill_store_bytes, report.spill_load_bytes) == (0, 0, 0)
    barriers = [s for s in result.stages if s.name == "thread-sync"]
    assert barriers and "barrier" in barriers[0].summary


def test_shared_memory_is_the_arena_the_pass_reported(ptxas_available):
    if "merge-shared-memory" not in get_all_passes():
        pytest.skip("merge-shared-memory is not registered yet")
    module = parse_kernel(with_stages(1), "gemm.mlir")
    ctx = make_context()
    for name in PIPELINE_PASSES:
        get_all_passes()[name]()().apply(ctx, module)
    (arena,) = [
        op for op in module.walk()
        if isinstance(op, memref.AllocOp) and "arena.layout" in op.attributes
    ]
    arena_bytes = arena.memref.type.element_count()
    LowerToNVVM().apply(ctx, module)
    (report,) = run_ptxas(run_upstream(module, SM_80, Stage.PTX).text, "sm_80")
    assert report.shared_bytes == arena_bytes


def test_large_arenas_use_dynamic_shared_memory():
    module = lower(
        """
        func.func @k() attributes {tile.target = "sm_90"} {
          %s = memref.alloc() : memref<65536xf16, "shared">
          func.return
        }"""
    )
    (kernel,) = [op for op in module.walk() if op.name == "gpu.func"]
    assert kernel.attributes[DYNAMIC_SHARED_ATTR].value.data == 131072
    assert "gpu.dynamic_shared_memory" in generic_text(module)


def test_warp_grid_is_the_most_square_tiling():
    grid = choose_warp_grid(128, 128, 4)
    assert (grid.warps_m, grid.warps_n, grid.tiles_m, grid.tiles_n) == (2, 2, 4, 8)
    grid = choose_warp_grid(128, 256, 8)
    assert (grid.warps_m, grid.warps_n, grid.warp_m, grid.warp_n) == (2, 4, 64, 64)
    assert choose_warp_grid(24, 8, 4) is None  # no whole m16 blocks


@pytest.mark.parametrize(
    "shape, dtype_bits, chunk",
    [((128, 64), 16, 8), ((64, 6), 16, 2), ((16, 16), 32, 4), ((7,), 32, 1)],
)
def test_cooperative_chunks_are_16_bytes_where_rows_allow(shape, dtype_bits, chunk):
    from xdsl.dialects.builtin import f16, f32

    assert chunk_elements(shape, f16 if dtype_bits == 16 else f32) == chunk


def test_ptxas_log_parsing():
    log = (
        "ptxas info    : Compiling entry function 'gemm' for 'sm_80'\n"
        "ptxas info    : Function properties for gemm\n"
        "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 168 registers, used 1 barriers, 8 bytes cumulative "
        "stack size, 32768 bytes smem, 520 bytes cmem[0]\n"
    )
    (report,) = parse_ptxas_log(log, "sm_80")
    assert (report.registers, report.barriers, report.shared_bytes) == (168, 1, 32768)
    assert (report.stack_bytes, report.spill_store_bytes) == (8, 4)


def test_cli_summary_and_output(tmp_path, ptxas_available):
    out = tmp_path / "gemm.ptx"
    result = subprocess.run(
        [sys.executable, "-m", "tilepipe.drivers.cli", "compile", str(EXAMPLES / "gemm.mlir"),
         "--target", "sm_80", "--num-stages", "1", "-o", str(out)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert ".target sm_80" in out.read_text()
    assert re.search(r"kernel @gemm: \d+ registers, 32768 B static shared", result.stderr)
    for stage in ("pipeline-planning", "lower-to-nvvm", "upstream MLIR", "ptxas"):
        assert stage in result.stderr


def test_cli_reports_bad_input_with_a_location(tmp_path):
    kernel = tmp_path / "bad.mlir"
    kernel.write_text(
        'func.func @k(%A: memref<1024xf16>) attributes {tile.target = "sm_80"} {\n'
        "  %c0 = arith.constant 0 : index\n"
        '  %s = memref.alloc() : memref<8xf16, "shared">\n'
        '  %b = memref.alloc() : memref<1xi64, "shared">\n'
        '  pipeline.bulk_copy<8> %A[%c0] -> %s, %b[%c0] : memref<1024xf16> -> memref<8xf16, "shared">, memref<1xi64, "shared">\n'
        "  func.return\n}\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "tilepipe.drivers.cli", "compile", str(kernel), "--target", "sm_80"],
        capture_output=True, text=True,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{kernel}:5:" in result.stderr
    assert "bulk (TMA) copies need sm_90" in result.stderr


def test_an_upstream_abort_becomes_a_diagnostic():
    """A bf16 nvgpu.mma.sync makes 22.1.8's convert-nvgpu-to-nvvm abort the bindings
    (why bf16 gemms emit nvvm.mma.sync directly); isolated, the abort is an
    UpstreamError."""
    from tilepipe.lowering.nvvm.upstream import UpstreamError, run_upstream_isolated

    text = """module attributes {gpu.container_module} {
      gpu.module @kernels {
        gpu.func @k() kernel {
          %a = arith.constant dense<1.0> : vector<4x2xbf16>
          %b = arith.constant dense<1.0> : vector<2x2xbf16>
          %c = arith.constant dense<0.0> : vector<2x2xf32>
          %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
          gpu.return
        }
      }
    }"""
    with pytest.raises(UpstreamError, match="aborted"):
        run_upstream_isolated(text, SM_90, Stage.PTX)


def test_upstream_diagnostics_point_at_the_tile_op():
    """The generic text carries every lowered op's source location, so what upstream
    rejects is reported at the tile op it came from -- a located, one-screen
    diagnostic, not a dump of the module."""
    from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64

    from tilepipe.lowering.nvvm.upstream import UpstreamError, run_upstream_isolated

    text = (
        'func.func @k() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {\n'
        '  %A_s = memref.alloc() : memref<64x32xf16, "shared">\n'
        '  %B_s = memref.alloc() : memref<32x64xf16, "shared">\n'
        '  %C_f = memref.alloc() : memref<64x64xf32, "fragment">\n'
        "  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, \"shared\">, "
        'memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">\n'
        "  func.return\n}\n"
    )
    module = lower(text)
    # An mma.sync whose shape does not match its fragments: upstream's verifier says so.
    mma = next(op for op in module.walk() if op.name == "nvgpu.mma.sync")
    mma.properties["mmaShape"] = ArrayAttr([IntegerAttr(d, i64) for d in (16, 8, 8)])
    with pytest.raises(UpstreamError) as failure:
        run_upstream_isolated(module, SM_80, Stage.PTX)
    message = str(failure.value)
    assert message.startswith("upstream MLIR failed in parsing: kernel.mlir:5:3: 'nvgpu.mma.sync' op")
    assert len(message.splitlines()) <= 3 and len(message) < 1000
