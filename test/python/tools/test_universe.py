"""The xdsl.universe entry point: what the stock xdsl-opt sees of tilepipe."""

from pathlib import Path

import pytest
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.drivers.api import parse
from tilepipe.core.registry import FRONTENDS, PASSES, TARGETS
from tilepipe.core.universe import TILEPIPE_UNIVERSE

GEMM = Path(__file__).resolve().parents[3] / "examples/gemm.mlir"


def test_the_universe_lists_passes_and_targets():
    assert set(TILEPIPE_UNIVERSE.all_passes) == set(PASSES)
    assert set(TILEPIPE_UNIVERSE.all_targets) == set(TARGETS) == {"ptx", "nvvm-llvm"}
    assert TILEPIPE_UNIVERSE.all_targets["ptx"]().name == "ptx"


def test_the_multiverse_takes_the_frontend_and_keeps_xdsls_gpu():
    """tilepipe's gpu and vector dialects reach xdsl-opt through its frontend, not as
    second definitions (the multiverse refuses those, and xDSL's own users keep
    xDSL's ops)."""
    from xdsl.dialects.gpu import GPU
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    assert set(TILEPIPE_UNIVERSE.all_frontends) == set(FRONTENDS) == {"tilepipe"}
    assert multiverse.all_frontends["tilepipe"]().name == "tilepipe"
    assert multiverse.all_dialects["gpu"]() is GPU
    assert not {"gpu", "vector"} & set(TILEPIPE_UNIVERSE.all_dialects)


def test_its_passes_turn_a_malformed_module_into_a_diagnostic():
    module = parse(GEMM.read_text(), name="gemm.mlir")
    copy = next(op for op in module.walk() if op.name == "tile.copy")
    copy.operands = copy.operands[:1]  # what a host's faulty rewrite could leave
    planning = TILEPIPE_UNIVERSE.all_passes["pipeline-planning"]()()
    with pytest.raises(DiagnosticException, match=r"gemm.mlir:28:5: error: 'tile.copy' op operand count"):
        planning.apply(None, module)


def test_its_passes_keep_their_names_and_options():
    inject = TILEPIPE_UNIVERSE.all_passes["inject-software-pipeline"]()
    assert inject.name == "inject-software-pipeline"
    assert inject(report="text").report == "text"
