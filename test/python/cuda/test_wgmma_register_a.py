"""wgmma with A from registers (sm_90a): a gemm whose A is a register fragment in the
warpgroup accumulator layout of C's rows -- P = cast(S) in flash attention
(examples/flash_attention_sm90a.mlir), or a small GEMM whose A is cast from an
accumulator -- runs ``wgmma.mma_async`` with A's registers (an ``llvm.inline_asm``;
upstream's op has no register form) and B through its descriptor.  Per thread in the
NVVM interpreter it computes what the tile level computes, race free, at several
trip counts and depths; ptxas takes it; the interpreter's PTX rules (A written
before the fence, not touched until retired) and its A fragment layout catch
broken lowerings; kernels without such a gemm compile as before."""

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import i32

from conftest import ROOT
from test_flash_attention import BLOCK, inputs, reduced
from test_flash_attention import lowered
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel

WGMMA = "nvvm.wgmma.mma_async"


def _register_a_wgmmas(module) -> list:
    return [
        op for op in module.walk()
        if op.name == "llvm.inline_asm" and "wgmma.mma_async" in op.properties["asm_string"].data
    ]


def attention(kv_blocks: int, num_stages: int = 2) -> str:
    """examples/flash_attention_sm90a.mlir for one query block over ``kv_blocks``."""
    return reduced(kv_blocks, num_stages, "sm_90a", "flash_attention_sm90a.mlir")


def _attention_run(module, kv_blocks: int, seed: int = 5, **options):
    data = inputs(kv_blocks, seed=seed)
    arguments = [data[name].copy() for name in ("Q", "K", "V", "O")]
    return data, run_nvvm_kernel(module, arguments, check_races=True, **options)


@pytest.mark.parametrize("kv_blocks, num_stages", [(1, 2), (3, 2), (2, 3), (4, 3), (3, 4)])
def test_attention_with_p_in_registers_equals_the_tile_level(kv_blocks, num_stages):
    """P·V on wgmma with A = P's registers (four k-steps), S = Q·K^T on the descriptor
    form; no shared tile for P; per thread race free and bit-identical to the tile
    level (and within f16 rounding of the P-in-shared-memory kernel's result)."""
    text = attention(kv_blocks, num_stages)
    module = lowered(text)
    assert len(_register_a_wgmmas(module)) == 4
    assert sum(op.name == WGMMA for op in module.walk()) == 4  # Q·K^T
    data, run = _attention_run(module, kv_blocks)
    assert run.races == []
    want = run_tile_kernel(text, inputs=data)["O"][:BLOCK]
    np.testing.assert_array_equal(run.outputs[3][:BLOCK], want)


def small_gemm(dtype: str = "f16", n: int = 64, threads: int = 128, m: int = 64) -> str:
    """C = cast(A0·B0)·B1: the first accumulator cast into a register fragment that
    is the second gemm's A (M x 64), B1 a shared 64 x N tile (N > 64: stored N x 64,
    transpose_b, a K-major descriptor)."""
    b1 = f"{n}x64" if n > 64 else f"64x{n}"
    transpose = " transpose_b" if n > 64 else ""
    return f"""
func.func @chain(%A: memref<{m}x64x{dtype}>, %B0: memref<64x64x{dtype}>,
                 %B1: memref<{b1}x{dtype}>, %C: memref<{m}x{n}xf32>)
    attributes {{tile.threads = {threads} : i64, tile.target = "sm_90a"}} {{
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<{m}x64x{dtype}, "shared">
  %B0_s = memref.alloc() : memref<64x64x{dtype}, "shared">
  %B1_s = memref.alloc() : memref<{b1}x{dtype}, "shared">
  %S_f = memref.alloc() : memref<{m}x64xf32, "fragment">
  %P_f = memref.alloc() : memref<{m}x64x{dtype}, "fragment">
  %C_f = memref.alloc() : memref<{m}x{n}xf32, "fragment">
  tile.copy<{m}x64> %A -> %A_s : memref<{m}x64x{dtype}> -> memref<{m}x64x{dtype}, "shared">
  tile.copy<64x64> %B0 -> %B0_s : memref<64x64x{dtype}> -> memref<64x64x{dtype}, "shared">
  tile.copy<{b1}> %B1 -> %B1_s : memref<{b1}x{dtype}> -> memref<{b1}x{dtype}, "shared">
  tile.fill<{m}x64> %zero -> %S_f : f32 -> memref<{m}x64xf32, "fragment">
  tile.gemm<{m}x64x64> %A_s, %B0_s -> %S_f : memref<{m}x64x{dtype}, "shared">, memref<64x64x{dtype}, "shared"> -> memref<{m}x64xf32, "fragment">
  tile.cast<{m}x64> %S_f -> %P_f : memref<{m}x64xf32, "fragment"> -> memref<{m}x64x{dtype}, "fragment">
  tile.fill<{m}x{n}> %zero -> %C_f : f32 -> memref<{m}x{n}xf32, "fragment">
  tile.gemm<{m}x{n}x64> %P_f, %B1_s -> %C_f{transpose} : memref<{m}x64x{dtype}, "fragment">, memref<{b1}x{dtype}, "shared"> -> memref<{m}x{n}xf32, "fragment">
  tile.copy<{m}x{n}> %C_f -> %C : memref<{m}x{n}xf32, "fragment"> -> memref<{m}x{n}xf32>
  func.return
}}
"""


def _gemm_inputs(dtype: str, n: int, m: int = 64, seed: int = 1):
    rng = np.random.default_rng(seed)
    element = np.float16 if dtype == "f16" else np.float32
    shapes = {"A": (m, 64), "B0": (64, 64), "B1": (n, 64) if n > 64 else (64, n)}
    data = {k: (rng.uniform(-1, 1, s) / 4).astype(element) for k, s in shapes.items()}
    data["C"] = np.zeros((m, n), np.float32)
    return data


def _bf16(values: np.ndarray) -> np.ndarray:
    bits = np.asarray(values, np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)


@pytest.mark.parametrize(
    "dtype, n, threads, m",
    [("f16", 64, 128, 64), ("bf16", 64, 128, 64), ("f16", 256, 128, 64),
     ("f16", 64, 128, 128), ("f16", 32, 256, 128), ("f16", 64, 256, 64)],
)
def test_gemm_with_a_cast_accumulator_as_a_equals_the_tile_level(dtype, n, threads, m):
    """f16 and bf16; N = 256 in one instruction (B K-major); two slabs of one warpgroup; two
    warpgroups; one warpgroup of two (the other skips both gemms)."""
    text = small_gemm(dtype, n, threads, m)
    module = lowered(text)
    assert _register_a_wgmmas(module)
    _assert_equals_the_tile_level(text, module, _gemm_inputs(dtype, n, m), dtype)


# ------------------------------------------------------------------ ptxas, SASS

def test_ptxas_takes_the_register_form(ptxas_available):
    for text in (attention(16).replace("array<i64: 1, 1>", "array<i64: 16, 1>"),
                 small_gemm("bf16", 256)):
        result = compile_kernel(text, "kernel.mlir", "sm_90a")
        assert "wgmma.mma_async.sync.aligned.m64n" in result.ptx
        assert "}, {%r" in result.ptx  # A as four .b32 registers
        (report,) = result.ptxas
        assert report.spill_store_bytes == 0 and report.spill_load_bytes == 0


# ------------------------------------------------------ what the interpreter catches

def _fails(module, kv_blocks: int = 2) -> str | None:
    data = inputs(kv_blocks, seed=5)
    try:
        data, run = _attention_run(module, kv_blocks, stop_at_first_race=True)
    except NvvmExecutionError as error:
        return str(error)
    if run.races:
        return "race"
    want = run_tile_kernel(attention(kv_blocks), inputs=data)["O"][:BLOCK]
    return None if np.array_equal(run.outputs[3][:BLOCK], want) else "wrong result"


def test_the_mutations_are_caught():
    module = lowered(attention(2))
    assert _fails(module) is None

    # The fence before the register-A wgmmas: A (and C) written after the last fence.
    mutant = module.clone()
    fence = [op for op in mutant.walk() if op.name == "nvvm.wgmma.fence.aligned"][-1]
    fence.detach()
    fence.erase()
    assert "after the warpgroup's last wgmma.fence" in _fails(mutant)

    # A's registers read before the wait_group retires the wgmma.
    mutant = module.clone()
    asm = _register_a_wgmmas(mutant)[-1]
    read = arith.AddiOp(asm.operands[0], asm.operands[0])
    asm.parent_block().insert_op_after(read, asm)
    assert "reads a wgmma's A registers before" in _fails(mutant)

    # A's registers packed after the fence.
    mutant = module.clone()
    asm = _register_a_wgmmas(mutant)[0]
    packed = asm.operands[0].owner
    fence = [op for op in mutant.walk() if op.name == "nvvm.wgmma.fence.aligned"][-1]
    packed.detach()
    fence.parent_block().insert_op_after(packed, fence)
    assert "A registers were written after" in _fails(mutant)

    # a0a1 and a2a3 swapped (rows 0-7 and 8-15 of each warp's A): a wrong result.
    mutant = module.clone()
    asm = _register_a_wgmmas(mutant)[1]
    first, second = asm.operands[0], asm.operands[1]
    asm.operands[0], asm.operands[1] = second, first
    assert _fails(mutant) == "wrong result"
    assert first.type == i32


# ------------------------------------------------------------- nothing else changes

@pytest.mark.parametrize("target", ["sm_80", "sm_90", "sm_90a"])
def test_the_p_in_shared_memory_example_is_unchanged(target):
    """examples/flash_attention.mlir (P a shared tile) keeps its descriptor wgmmas on
    sm_90a and mma.sync elsewhere, no inline-asm wgmma; the sm_90a P-in-registers
    kernel on sm_80/sm_90 stages P through shared memory as any register operand."""
    text = (ROOT / "examples" / "flash_attention.mlir").read_text().replace('"sm_80"', f'"{target}"')
    module = lowered(text)
    assert not _register_a_wgmmas(module)
    assert (sum(op.name == WGMMA for op in module.walk()) == 8) == (target == "sm_90a")
    for_registers = lowered(attention(2).replace('"sm_90a"', f'"{target}"'))
    assert bool(_register_a_wgmmas(for_registers)) == (target == "sm_90a")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_without_a_descriptor_for_b_the_gemm_runs_mma_sync_on_a_s_registers(dtype):
    """Shared tiles left unswizzled (lower-to-nvvm{swizzle-shared=false}): no
    descriptor addresses B, so both gemms run mma.sync over the warpgroup layout, P's
    fragments taken from its registers -- the same bits."""
    from tilepipe.core.flows import FLOWS
    from tilepipe.core.registry import get_all_passes
    from tilepipe.drivers.compile import make_context, parse_kernel
    from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM

    text = small_gemm(dtype)
    module = parse_kernel(text, "chain.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        if name == "lower-to-nvvm":
            LowerToNVVM(swizzle_shared=False).apply(ctx, module)
        else:
            get_all_passes()[name]()().apply(ctx, module)
    names = [op.name for op in module.walk()]
    assert not _register_a_wgmmas(module) and WGMMA not in names
    assert names.count("nvgpu.mma.sync") + names.count("nvvm.mma.sync") == 16
    _assert_equals_the_tile_level(text, module, _gemm_inputs(dtype, 64), dtype)


def _assert_equals_the_tile_level(text: str, module, data: dict, dtype: str) -> None:
    """Per thread, race free and bit-identical to the tile-level run on ``data``
    (bf16 inputs rounded as the kernel reads them)."""
    if dtype == "bf16":
        data = {k: (_bf16(v) if k != "C" else v) for k, v in data.items()}
    want = run_tile_kernel(text, inputs={k: v.copy() for k, v in data.items()})["C"]
    run = run_nvvm_kernel(module, [data[k].copy() for k in ("A", "B0", "B1", "C")], check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[3], want)
