"""Printing is a fixed point of print -> parse -> print, in custom and generic form, for
every example, every regression kernel and what every pass pipeline makes of them.

An op whose printed form the parser reads differently (an operand-less
``pipeline.commit_group`` that swallowed the next line's ``%x``) fails here.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tilepipe.core.diagnostics import DiagnosedError, collect_diagnostics
from tilepipe.core.registry import make_context, pass_pipeline
from tilepipe.core.source import parse_source
from tilepipe.core.flows import FLOWS

ROOT = Path(__file__).resolve().parents[3]
KERNEL_GLOBS = ("examples/*.mlir", "examples/*/*.mlir", "test/regressions/*.mlir")
CUDA = CUDA_90 = FLOWS["cuda"].spec("scheduled")
ASCEND = FLOWS["ascend"].spec()


def kernels() -> list[tuple[str, str]]:
    """(id, text) of every kernel: each ``// -----`` chunk of each file that parses
    (negative tests' chunks do not)."""
    found = []
    files = sorted({p for glob in KERNEL_GLOBS for p in ROOT.glob(glob)})
    for path in files:
        for index, chunk in enumerate(path.read_text().split("// -----")):
            name = f"{path.relative_to(ROOT)}#{index}"
            try:
                parse_source(chunk, name)
            except DiagnosedError:
                continue
            found.append((name, chunk))
    return found


KERNELS = kernels()


def pipelines_for(text: str) -> list[str]:
    """The pass pipelines of the kernel's target.  lower-to-nvvm is left out (it is
    slow): test_lowered_nvvm_output_round_trips and test/tools/roundtrip-lowered-levels.mlir
    cover the lowered level."""
    if '"ascend910b"' in text:
        return [ASCEND]
    return [CUDA_90 if '"sm_90"' in text else CUDA]


def printed(module: ModuleOp, generic: bool) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


def assert_fixed_point(module: ModuleOp, where: str) -> None:
    custom = printed(module, generic=False)
    generic = printed(module, generic=True)
    for form, text in (("custom", custom), ("generic", generic)):
        reparsed = parse_source(text, f"{where} ({form})")
        assert printed(reparsed, generic=form == "generic") == text, f"{where}: {form} form"
        # Both forms describe the same IR.
        assert printed(reparsed, generic=False) == custom, f"{where}: {form} -> custom"


@pytest.mark.parametrize("name, text", KERNELS, ids=[name for name, _ in KERNELS])
def test_print_parse_print_is_a_fixed_point(name, text):
    assert_fixed_point(parse_source(text, name), name)


@pytest.mark.parametrize("name, text", KERNELS, ids=[name for name, _ in KERNELS])
def test_pipeline_outputs_print_parse_print_to_a_fixed_point(name, text):
    reached = 0
    for spec in pipelines_for(text):
        module = parse_source(text, name)
        try:
            with collect_diagnostics():
                pass_pipeline(spec).apply(make_context(), module)
        except Exception:
            # A kernel a pipeline rejects (or trips over: other tests own that) has
            # no output to print.
            continue
        reached += 1
        assert_fixed_point(module, f"{name} after {spec}")
    if not reached:
        pytest.skip(f"no pipeline accepts {name}")


def test_the_kernels_include_every_example_and_the_dynamic_commit_group():
    names = {name.split("#")[0] for name, _ in KERNELS}
    assert {f"examples/{p.name}" for p in (ROOT / "examples").glob("*.mlir")} <= names
    assert "test/regressions/commit_group_roundtrip.mlir" in names


def test_lowered_nvvm_output_round_trips():
    text = (ROOT / "examples" / "gemm.mlir").read_text()
    module = parse_source(text, "gemm.mlir")
    with collect_diagnostics():
        pass_pipeline(CUDA + ",lower-to-nvvm").apply(make_context(), module)
    assert_fixed_point(module, "gemm.mlir after lower-to-nvvm")


def test_upstream_parses_the_custom_form_of_the_lowered_level():
    """What tile-opt prints after lower-to-nvvm{host-launch} (gpu.module, gpu.func,
    gpu.launch_func in their custom forms) is what upstream MLIR 22.1.8 reads."""
    from mlir import ir

    text = (ROOT / "examples" / "gemm.mlir").read_text()
    module = parse_source(text, "gemm.mlir")
    with collect_diagnostics():
        pass_pipeline(CUDA + ",lower-to-nvvm{host-launch=true}").apply(make_context(), module)
    custom = printed(module, generic=False)
    assert "gpu.launch_func @tilepipe_kernels::@gemm blocks in (" in custom
    with ir.Context():
        upstream = ir.Module.parse(custom)
        assert upstream.operation.verify()
        (launch,) = [
            op for op in upstream.body.operations[0].regions[0].blocks[0].operations
            if op.operation.name == "gpu.launch_func"
        ]
        assert str(launch.attributes["kernel"]) == "@tilepipe_kernels::@gemm"
        # grid (3), block (3), dynamic shared memory, the three kernel arguments
        assert len(launch.operands) == 10
