"""The fuzzer's minimizer and command line, on predicates that do not depend on
compiler bugs (those get fixed; these tests must keep meaning something)."""

from __future__ import annotations

import pytest

from tilepipe.fuzz.__main__ import main
from tilepipe.fuzz.generate import generate
from tilepipe.fuzz.minimize import minimize
from tilepipe.fuzz.program import Loop


def _has_gemm(program) -> bool:
    return any(s.op == "gemm" for s in program.statements())


def test_minimize_keeps_the_failure_and_shrinks_everything():
    seed = next(s for s in range(100) if _has_gemm(generate(s, "sm_80")))
    program = generate(seed, "sm_80")
    small = minimize(program, _has_gemm, budget_s=60)
    assert _has_gemm(small)
    assert len(small.statements()) == 1
    assert all(value <= 8 for value in small.dims.values())
    assert small.grid == 1 and small.threads == 32
    for loop in small.loops:
        assert (loop.lb, loop.step) == (0, 1) and loop.stage is None
    assert len(small.text()) < len(program.text())


def test_minimize_drops_a_loop_statement_with_its_stage_and_order():
    program = generate(0, "sm_80")
    loop = Loop(list(program.statements()[:3]), num_stages=None, stage=[0, 1, 1], order=[2, 0, 1])
    program.items = [loop]
    small = minimize(program, lambda p: any(s.op == loop.body[1].op for s in p.statements()), 30)
    (kept,) = small.loops
    assert len(kept.body) == 1 and kept.stage is None and kept.num_stages == 1


def test_the_command_line_rejects_an_unknown_target(capsys):
    assert main(["--count", "1", "--targets", "sm_70"]) == 2
    assert "unknown target" in capsys.readouterr().err


def test_malformed_needs_its_module(monkeypatch):
    import importlib

    real = importlib.import_module

    def missing(name, *args):
        if name == "tilepipe.fuzz.malformed":
            raise ModuleNotFoundError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(SystemExit, match="malformed.py"):
        main(["--count", "0", "--malformed", "3"])


# A broadcast out of registers (lowered through a shared scratch tile).
REGISTER_BROADCAST = """
func.func @f(%A: memref<16xf32>, %C: memref<16x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %v = memref.alloc() : memref<16xf32, "fragment">
  %c = memref.alloc() : memref<16x16xf32, "fragment">
  tile.copy<16> %A -> %v : memref<16xf32> -> memref<16xf32, "fragment">
  tile.broadcast<16x16> %v -> %c axis 1 : memref<16xf32, "fragment"> -> memref<16x16xf32, "fragment">
  tile.copy<16x16> %c -> %C : memref<16x16xf32, "fragment"> -> memref<16x16xf32>
  func.return
}
"""


def test_the_minimizers_options_still_run_the_sampled_check_of_the_finding(monkeypatch):
    """A finding of the NVVM sample (or ptxas, or two hash seeds) is chased with the
    interpreter runs off; the sampled check must still run, or no candidate ever
    fails again and the reproducer is the unminimized kernel."""
    from tilepipe.fuzz.check import Finding, Outcome, check_text
    from tilepipe.fuzz.minimize import options_for

    finding = Finding("internal-error", "nvvm interpreter (n = 1): NvvmExecutionError: ...")
    options = options_for(Outcome("sm_80", "cuda", 0, "", [], findings=[finding]), finding.cls)
    assert options.nvvm and not options.execute
    from tilepipe.semantics.nvvm import interp

    runs = []
    run_nvvm_kernel = interp.run_nvvm_kernel
    monkeypatch.setattr(
        interp, "run_nvvm_kernel", lambda *a, **k: runs.append(1) or run_nvvm_kernel(*a, **k)
    )
    outcome = check_text(REGISTER_BROADCAST, "sm_80", [None], options)
    assert outcome.findings == [] and runs == [1]
