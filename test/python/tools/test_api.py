"""The public API (docs/api.md) as an MLIR-based ML compiler embeds it: modules built
with upstream's bindings go in and come back in the caller's context, with their
locations; kernels are compiled, host functions are left to the host compiler."""

from pathlib import Path

import pytest
from mlir import ir
from mlir.passmanager import PassManager
from xdsl.dialects.builtin import ModuleOp

import tilepipe
from tilepipe.drivers.interop import inline_location_aliases
from tilepipe.lowering.nvvm.upstream import CONVERSION_TO_LLVM, generic_text

ROOT = Path(__file__).resolve().parents[3]
GEMM = (ROOT / "examples/gemm.mlir").read_text()
VADD = (ROOT / "examples/ascend_vadd.mlir").read_text()

HOST_HELPER = """
func.func @helper(%n: index) -> index {
  %c2 = arith.constant 2 : index
  %r = arith.muli %n, %c2 : index
  return %r : index
}
"""


def upstream_module(text: str, name: str) -> ir.Module:
    """What an embedding compiler holds: the module in its own upstream context (tile
    ops are not registered there, so it reads them in generic form)."""
    context = ir.Context()
    context.allow_unregistered_dialects = True
    generic = generic_text(tilepipe.parse(text, name=name))
    return ir.Module.parse(generic, context=context)


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, tilepipe; print('tilepipe.drivers.api' in sys.modules, 'xdsl' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_parse_returns_a_verified_copy():
    module = tilepipe.parse(GEMM, name="gemm.mlir")
    assert isinstance(module, ModuleOp)
    again = tilepipe.parse(module)
    assert again is not module and str(again) == str(module)


def test_verify_reports_located_diagnostics():
    with pytest.raises(tilepipe.CompileError) as err:
        tilepipe.verify(
            "\nfunc.func @k() attributes {tile.threads = 7 : i64} {\n  return\n}\n",
            name="k.mlir",
        )
    (diagnostic,) = err.value.diagnostics
    assert str(diagnostic.location) == "k.mlir:2:1"
    assert "multiple of 32" in diagnostic.message


def test_upstream_aliased_locations_survive():
    module = upstream_module(GEMM, "gemm.mlir")
    assert "#loc" in module.operation.get_asm(enable_debug_info=True)  # the aliased form
    parsed = tilepipe.parse(module)
    copy = next(op for op in parsed.walk() if op.name == "tile.gemm")
    assert (copy.location.line.data, copy.location.column.data) == (30, 5)
    assert copy.location.filename.data == "gemm.mlir"


def test_inline_location_aliases_nested():
    text = (
        'module {\n  "a.b"() : () -> () loc(#loc2)\n} loc(#loc)\n'
        '#loc = loc("f.mlir":1:1)\n#loc1 = loc("f.mlir":2:3)\n'
        '#loc2 = loc(fused[#loc, #loc1])\n'
    )
    assert inline_location_aliases(text) == (
        'module {\n  "a.b"() : () -> () loc(fused["f.mlir":1:1, "f.mlir":2:3])\n'
        '} loc("f.mlir":1:1)\n'
    )


def test_run_pipeline_keeps_the_kind_and_context():
    module = upstream_module(GEMM, "gemm.mlir")
    result = tilepipe.run_pipeline(module, "builtin.module(func.func(pipeline-planning))")
    assert isinstance(result, ir.Module) and result.context is module.context
    assert "pipeline.stage" in str(result)
    text = tilepipe.run_pipeline(GEMM, "pipeline-planning")
    assert isinstance(text, str) and "pipeline.order" in text
    assert "pipeline.stage" not in str(module)  # the input is not modified


def test_bad_pipeline_is_a_diagnostic():
    with pytest.raises(tilepipe.CompileError, match="unclosed"):
        tilepipe.run_pipeline(GEMM, "pipeline-planning{")


def test_xdsl_pass_pipeline_preset():
    from tilepipe.core.registry import make_context

    module = tilepipe.parse(HOST_HELPER + GEMM, name="gemm.mlir")
    tilepipe.pass_pipeline("cuda").apply(make_context(), module)
    names = [op.name for op in module.ops]
    assert names == ["func.func", "gpu.module"]  # the host helper stays


def test_compile_upstream_module_host_side_lowers_upstream():
    module = upstream_module(HOST_HELPER + GEMM, "gemm.mlir")
    result = tilepipe.compile_for(module, "sm_80", level="nvvm", host_launch=True)
    lowered = result.module
    assert isinstance(lowered, ir.Module) and lowered.context is module.context
    asm = lowered.operation.get_asm(enable_debug_info=True)
    # The kernel (gemm.mlir line 8, after the helper's 6 lines) keeps its location.
    assert '"gemm.mlir":14:1' in asm
    assert "gpu.launch_func  @tilepipe_kernels::@gemm blocks in (%c8, %c8, %c1) threads in (%c128, %c1, %c1)" in str(lowered).replace("%c8_0", "%c8")  # noqa: E501
    assert "dynamic_shared_memory_size %c98304_i32" in str(lowered)
    assert "func.func @helper(%arg0: index) -> index" in str(lowered)
    # The host compiler takes it from there with upstream's passes.
    with lowered.context:
        device = ",".join(pipeline for _, pipeline in CONVERSION_TO_LLVM)
        PassManager.parse(
            "builtin.module(nvvm-attach-target{chip=sm_80 features=+ptx80},"
            f"{device},gpu-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts,"
            "gpu-module-to-binary{format=isa})"
        ).run(lowered.operation)
    host = str(lowered)
    assert "llvm.func @helper" in host and "gpu.launch_func" in host and "gpu.binary" in host


def test_compile_to_ptx_from_text_and_xdsl():
    result = tilepipe.compile_for(GEMM, "sm_80")
    assert result.level == "ptx" and ".entry gemm" in result.text
    assert isinstance(result.module, str) and "gpu.func" in result.module
    assert "lower-to-nvvm" in result.summary
    assert [s.name for s in result.stages][-1] == "upstream MLIR"


def test_compile_ascend_same_shape():
    result = tilepipe.compile_for(tilepipe.parse(VADD), "ascend910b")
    assert result.level == "ascendc" and "__global__" in result.text
    assert isinstance(result.module, ModuleOp)
    assert result.summary


@pytest.mark.parametrize(
    ("target", "level", "message"),
    [("sm_70", None, "unknown target"), ("sm_80", "ascendc", "is not one of")],
)
def test_compile_bad_request(target, level, message):
    with pytest.raises(tilepipe.CompileError, match=message):
        tilepipe.compile_for(GEMM, target, level=level)


@pytest.mark.parametrize("call", [tilepipe.parse, tilepipe.verify, tilepipe.compile_for,
                                  lambda source: tilepipe.run_pipeline(source, "cuda")])
def test_a_wrong_kind_of_source_is_a_compile_error(call):
    with pytest.raises(tilepipe.CompileError, match="expected MLIR text.*got int"):
        call(42)


# -- locations in the NVVM-level text (tilepipe compile --emit nvvm, compile_for)

GEMM_LINE = next(n for n, line in enumerate(GEMM.splitlines(), 1) if "tile.gemm<" in line)


def _operations(operation):
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation
                yield from _operations(op.operation)


def _nvvm_text(how: str, tmp_path: Path) -> str:
    if how == "api":
        return tilepipe.compile_for(GEMM, "sm_80", level="nvvm", name="gemm.mlir").text
    from tilepipe.drivers.cli import main

    kernel, out = tmp_path / "gemm.mlir", tmp_path / "gemm.nvvm.mlir"
    kernel.write_text(GEMM)
    args = ["compile", str(kernel), "--emit", "nvvm", "--no-ptxas", "-q", "-o", str(out)]
    assert main([*args, "--mlir-print-debuginfo"]) == 0
    return out.read_text()


@pytest.mark.parametrize("how", ["api", "cli"])
def test_nvvm_text_locates_lowered_ops_at_their_tile_op(how, tmp_path):
    text = _nvvm_text(how, tmp_path)
    with ir.Context() as context:
        module = ir.Module.parse(text)
        mma = next(op for op in _operations(module.operation) if op.name == "nvgpu.mma.sync")
        location = mma.location
        assert location.filename.endswith("gemm.mlir")
        assert (location.start_line, location.start_col) == (GEMM_LINE, 5)  # tile.gemm
        # A diagnostic the host raises on the lowered op points at the source line.
        diagnostics = []
        context.attach_diagnostic_handler(lambda d: diagnostics.append(str(d.location)) or True)
        location.emit_error("rejected by the host")
    assert diagnostics == [f'loc("{location.filename}":{GEMM_LINE}:5)']


def test_nvvm_text_has_locations_only_when_asked(tmp_path):
    from tilepipe.drivers.cli import main

    kernel, out = tmp_path / "gemm.mlir", tmp_path / "gemm.nvvm.mlir"
    kernel.write_text(GEMM)
    assert main(["compile", str(kernel), "--emit", "nvvm", "--no-ptxas", "-q", "-o", str(out)]) == 0
    assert "loc(" not in out.read_text()  # upstream's default, as mlir-opt
