"""What upstream MLIR prints at the levels tilepipe produces reads back into tilepipe:
the tile and scheduled levels, the nvvm level tilepipe hands to upstream, and the llvm
level upstream's conversions make of it.

A host compiler dumps its module with upstream's printer: custom forms of the gpu,
nvgpu, nvvm, vector and memref ops, location aliases defined at the end of the module
(``loc(#loc3)`` ... ``#loc3 = loc(...)``) and ``loc(...)`` on block arguments when it
prints debug info.  A reproducer cut from such a dump must be accepted by ``tile-opt``
(and ``xdsl-opt -f tilepipe``) and mean the same module: parsed, printed in generic form (and at the lowered levels in
tile-opt's custom form) and parsed by upstream again, it prints as the dump did.

By default one kernel per target and level; ``TILEPIPE_TESTS=long`` takes every CUDA
example on both targets (about six minutes).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from mlir import ir
from xdsl.context import Context
from xdsl.printer import Printer

import tilepipe
from tilepipe.core.source import TilepipeFrontend, parse_source
from tilepipe.lowering.nvvm.upstream import generic_text

from sweeps import EVERYTHING

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
CUDA_EXAMPLES = (
    "gemm", "gemm_dynamic", "gemm_epilogue", "gemm_tune", "flash_attention",
    "flash_attention_dynamic",
)

if EVERYTHING:
    CASES = [
        (example, chip, level)
        for example in CUDA_EXAMPLES
        for chip in ("sm_80", "sm_90")
        for level in ("scheduled", "nvvm", "llvm")
    ]
else:
    CASES = [
        ("gemm", "sm_80", "scheduled"),
        ("gemm", "sm_80", "nvvm"),
        ("flash_attention", "sm_90", "nvvm"),
        ("gemm", "sm_90", "llvm"),
    ]


def kernel_text(example: str, chip: str) -> str:
    text = (EXAMPLES / f"{example}.mlir").read_text()
    return text.replace('"sm_80"', f'"{chip}"')


def host_module(text: str, name: str) -> ir.Module:
    """The kernel in a host compiler's own context, which does not know the tile ops."""
    context = ir.Context()
    context.allow_unregistered_dialects = True
    return ir.Module.parse(generic_text(tilepipe.parse(text, name=name)), context=context)


def reads_back_as_printed(
    dump: str, context: ir.Context, debug_info: bool, upstream_dialects_only: bool = False
) -> None:
    """``dump`` parses in tile-opt, and the module tile-opt reads is the one upstream
    printed: printed back in generic form and parsed by upstream, it prints as ``dump``.
    With debug info (the harder text) also: xdsl-opt's tilepipe frontend reads it, and
    (when it holds only upstream's dialects, whose custom forms upstream reads) so does
    upstream the custom form tile-opt prints."""
    module = parse_source(dump, "dump.mlir")
    texts = [generic_text(module)]
    if debug_info:
        TilepipeFrontend().parse(Context(), io.BytesIO(dump.encode()), "dump.mlir")
        if upstream_dialects_only:
            texts.append(custom_text(module))
    for text in texts:
        again = ir.Module.parse(text, context=context)
        assert again.operation.get_asm(enable_debug_info=debug_info) == dump


def custom_text(module) -> str:
    """What ``tile-opt`` prints for ``module`` (with locations, as upstream reads them)."""
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


@pytest.mark.parametrize("example,chip,level", CASES)
def test_a_host_compilers_dump_reads_back(example, chip, level):
    source = host_module(kernel_text(example, chip), f"{example}.mlir")
    result = tilepipe.compile_for(source, chip, level=level, host_launch=True)
    # The module is the lower-to-nvvm one at every CUDA level; the llvm level is the text.
    lowered = (
        ir.Module.parse(result.text, context=source.context) if level == "llvm" else result.module
    )
    for debug_info in (False, True):
        dump = lowered.operation.get_asm(enable_debug_info=debug_info)
        if debug_info:
            # What made this hard to read: aliases used before their definition, and
            # locations on block arguments.
            assert "loc(#loc" in dump and "\n#loc" in dump
            assert any(" loc(" in line for line in dump.splitlines() if "func @" in line)
        if level == "nvvm":
            assert "gpu.launch_func" in dump and "gpu.module @tilepipe_kernels" in dump
            assert "nvgpu.mma.sync(" in dump or "nvvm." in dump
        if level == "llvm":
            # Upstream's conversions have run: what its own printer adds there.
            assert "gpu.module @tilepipe_kernels [#nvvm.target<" in dump
            assert "llvm.func @" in dump and "nvvm.read.ptx.sreg." in dump
        reads_back_as_printed(dump, source.context, debug_info, level in ("nvvm", "llvm"))
    # compile_for's own text: upstream's printing with debug info, read above.
    assert result.text == dump


@pytest.mark.parametrize("debug_info", [False, True])
def test_tilepipe_compile_emit_nvvm_reads_back_in_tile_opt(debug_info, tmp_path, capsys):
    from tilepipe.drivers.cli import main as tilepipe_main
    from tilepipe.drivers.opt import main as tile_opt_main

    out = tmp_path / "gemm.nvvm.mlir"
    args = ["compile", str(EXAMPLES / "gemm.mlir"), "--target", "sm_80", "--emit", "nvvm",
            "-o", str(out), "--host-launch", "--no-ptxas", "-q"]
    if debug_info:
        args.append("--mlir-print-debuginfo")
    assert tilepipe_main(args) == 0
    dump = out.read_text()
    if debug_info:
        assert "loc(#loc" in dump
    capsys.readouterr()
    assert tile_opt_main([str(out), "-o", str(tmp_path / "again.mlir")]) == 0
    assert capsys.readouterr().err == ""
    context = ir.Context()
    context.allow_unregistered_dialects = True
    reads_back_as_printed(dump, context, debug_info, upstream_dialects_only=True)
