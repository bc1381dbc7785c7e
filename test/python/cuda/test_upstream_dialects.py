"""The dialects the CUDA flow lets through to upstream MLIR are the ones upstream's
bindings register (lowering/nvvm/upstream_dialects.py), and an op of any other
dialect is a located error before upstream sees it."""

import pytest
from mlir import ir
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.drivers.compile import CompileError, compile_kernel
from tilepipe.lowering.nvvm.upstream_dialects import LOWERED_BY_TILEPIPE, UPSTREAM_DIALECTS
from tilepipe.core.registry import make_context


def _registered_upstream(name: str) -> bool:
    try:
        ir.Context().get_dialect_descriptor(name)
    except Exception:  # upstream: "Dialect 'x' not found"
        return False
    return True


def test_every_listed_dialect_is_upstreams():
    missing = sorted(name for name in UPSTREAM_DIALECTS if not _registered_upstream(name))
    assert missing == []


def test_xdsl_dialects_upstream_lacks_are_not_listed():
    # Every dialect tilepipe parses that upstream lacks must be off the list (and not
    # be one lower-to-nvvm lowers away, apart from tile/pipeline).
    for name in make_context().registered_dialect_names:
        if name in LOWERED_BY_TILEPIPE:
            continue
        assert (name in UPSTREAM_DIALECTS) == _registered_upstream(name), name


KERNEL = """
func.func @k(%x: memref<16xf32>) attributes {{tile.grid = array<i64: 1>, tile.threads = 32 : i64}} {{
  %c0 = arith.constant 0 : index
  {op}
  func.return
}}
"""


@pytest.mark.parametrize(
    "op, dialect",
    [
        ('%a = "test.op"() : () -> index', "test"),
        ("%a = varith.add %c0, %c0 : index", "varith"),
    ],
)
def test_op_of_a_dialect_upstream_lacks_is_located(op, dialect):
    with pytest.raises(CompileError) as info:
        compile_kernel(KERNEL.format(op=op), "k.mlir", "sm_80", level="nvvm", run_ptxas=False)
    [diagnostic] = info.value.diagnostics
    assert str(diagnostic).startswith(f"k.mlir:4:3: error: '{dialect}.")
    assert f"is of dialect '{dialect}', which upstream MLIR does not have" in str(diagnostic)


def test_lower_to_nvvm_reports_it_too():
    from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM
    from tilepipe.core.source import parse_source

    module = parse_source(KERNEL.format(op='%a = "test.op"() : () -> index'), "k.mlir")
    with pytest.raises(DiagnosticException, match="'test.op' op is of dialect 'test'"):
        LowerToNVVM().apply(make_context(), module)
