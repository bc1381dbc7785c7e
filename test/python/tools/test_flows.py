"""The compile flows are data, defined once (tilepipe/core/flows.py): no other module
spells a pass list, every driver takes its passes from the flows, and validation of the
user's annotations runs before any pass adds ops of its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tilepipe.core.flows import FLOWS, levels_of, presets, run_flow
from tilepipe.core.registry import get_all_passes

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("tilepipe", "dialects", "passes", "lowering", "bench", "scripts", "test/python")
HOME = ROOT / "tilepipe" / "core" / "flows.py"
PASS_NAMES = set(get_all_passes())


def _pass_names(text: str) -> list[str]:
    names = []
    for part in text.split(","):
        name = part.split("{", 1)[0].strip()
        if name in PASS_NAMES:
            names.append(name)
    return names


def spelled_pass_lists(path: Path) -> list[str]:
    """Literal pass lists in ``path``: a string naming three or more passes
    (``"a,b,c"``), or a tuple/list literal of three or more pass-name strings."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = _pass_names(node.value)
        elif isinstance(node, ast.Tuple | ast.List):
            names = [
                e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value in PASS_NAMES
            ]
        else:
            continue
        if len(names) >= 3:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {','.join(names)}")
    return found


def test_no_module_spells_a_pass_list():
    spelled = [
        line
        for folder in SCANNED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in (HOME, Path(__file__).resolve()) and ".venv" not in path.parts
        for line in spelled_pass_lists(path)
    ]
    assert spelled == []


def test_the_check_finds_a_spelled_list(tmp_path):
    path = ROOT / "test" / "python" / "tools" / "_spelled_example.py"
    try:
        path.write_text('P = "pipeline-planning,inject-software-pipeline,thread-sync"\n'
                        'Q = ("merge-shared-memory", "async-copy", "thread-sync")\n'
                        'R = "pipeline-planning,thread-sync"\n')
        assert [line.split(": ")[1] for line in spelled_pass_lists(path)] == [
            "pipeline-planning,inject-software-pipeline,thread-sync",
            "merge-shared-memory,async-copy,thread-sync",
        ]
    finally:
        path.unlink()


def test_every_flow_names_registered_passes_and_orders_its_levels():
    for flow in FLOWS.values():
        assert set(flow.passes) <= PASS_NAMES, flow.name
        ends = list(flow.levels.values())
        assert ends == sorted(ends) and ends[-1] == len(flow.passes), flow.name
    assert levels_of("cuda") == ("arena", "scheduled", "nvvm", "llvm", "ptx")
    assert levels_of("ascend") == ("scheduled", "ascend", "ascendc")


def test_validation_runs_before_any_pass_that_adds_ops():
    """pipeline-validate comes before every pass that rewrites a pipelined loop, so its
    diagnostics name the statements the user wrote (tma-copy turns copies into bulk
    copies and mbarrier waits; inject-software-pipeline peels the loop)."""
    cuda = FLOWS["cuda"].passes
    assert cuda[0] == "pipeline-validate"
    assert cuda.index("pipeline-validate") < cuda.index("tma-copy")


def test_presets_are_the_flows_and_their_levels():
    named = presets()
    assert named["cuda"] == ",".join(FLOWS["cuda"].passes)
    assert named["cuda:scheduled"].split(",")[-1] == "thread-sync"
    assert named["ascend"] == ",".join(FLOWS["ascend"].passes)
    from tilepipe.drivers.api import PRESETS
    from tilepipe.drivers.lit_support import substitutions

    assert PRESETS == named
    lit = dict(substitutions())
    assert all(lit[f"%{{{name}}}"] == spec for name, spec in named.items())


def test_an_unknown_level_is_named():
    with pytest.raises(ValueError, match="no level 'ptx'"):
        FLOWS["ascend"].pass_names("ptx")


def test_sm90_compile_names_the_users_statements(tmp_path):
    """A gemm staged before the copy it reads, on sm_90: reported as pipeline-validate
    reports it, naming the user's tile.copy, before tma-copy has turned the copies into
    bulk copies and mbarrier waits."""
    text = (ROOT / "examples" / "gemm.mlir").read_text()
    text = text.replace('tile.target = "sm_80"', 'tile.target = "sm_90"')
    text = text.replace("num_stages = 3", "stage = [1, 0, 0] order = [0, 1, 2]")
    kernel = tmp_path / "bad.mlir"
    kernel.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "tilepipe.drivers.cli", "compile", str(kernel), "--target", "sm_90"],
        capture_output=True, text=True,
    )
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"{kernel}:") and "'tile.gemm' (stage 0, order 2) depends on 'tile.copy'" in line
    assert "bulk_copy" not in line and "mbarrier" not in line


def test_run_flow_stops_at_a_level():
    from tilepipe.drivers.api import parse

    module = parse((ROOT / "examples" / "gemm.mlir").read_text())
    run_flow(module, "cuda", "scheduled")
    text = str(module)
    assert "pipeline.wait_group" in text and "gpu.func" not in text
