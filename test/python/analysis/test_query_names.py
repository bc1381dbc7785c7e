"""A z3 query is named the same in every compile of a process (fuzz seed 431135).

z3's search heuristics depend on the names of the constants, so within a resource
limit the same query can end unsat under one naming and unknown under another; an
unknown bulk-copy coverage query is a located error.  When loop variables were named
from a process-wide counter, a second in-process compile of the seed's kernel (sm_90,
loops with %n-dependent bounds, num_stages 5) rejected what the first accepted.  Each
encoder (one query) now names its own variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline_helpers import parse
from sweeps import long_mode
from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.passes.analysis.trip_counts import _trip_count_query

INPUTS = Path(__file__).parents[1] / "fuzz" / "Inputs"

KERNEL = """
func.func @k(%A: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %end = arith.addi %n, %c3 : index
  %S = memref.alloc() : memref<16xf32, "shared">
  scf.for %i = %c0 to %n step %c2 {
    pipeline.for %k = %c3 to %end step %c2 num_stages = 2 {
      tile.copy<16> %A[%k] -> %S : memref<64xf32> -> memref<16xf32, "shared">
    }
  }
  func.return
}
"""


def _query_text() -> str:
    module = parse(KERNEL)
    (loop,) = [op for op in module.walk() if isinstance(op, PipelineForOp)]
    query = _trip_count_query(loop)
    assert query is not None
    trips, facts = query
    return " ".join(str(term) for term in (trips, *facts))


def test_the_same_query_has_the_same_names_in_every_compile():
    first = _query_text()
    assert "k_0" in first  # the enclosing loop's variable, named by this query alone
    assert _query_text() == first


@pytest.mark.skipif(
    not long_mode("TILEPIPE_SLOW_REGRESSIONS"),
    reason="about 90 s: set TILEPIPE_SLOW_REGRESSIONS=long (or TILEPIPE_TESTS=long)",
)
def test_fuzz_seed_431135_compiles_the_same_twice_in_one_process():
    from tilepipe.fuzz.check import Options, check_text

    text = (INPUTS / "sm90_second_compile_same_queries.mlir").read_text()
    outcome = check_text(text, "sm_90", [0, 1, 2], Options(execute=False))
    assert outcome.compiled and outcome.findings == [], [str(f) for f in outcome.findings]


def test_a_repeated_query_is_answered_from_memory(monkeypatch):
    """The answer is a function of the query (the query runs in a fresh
    context): asked again -- an Ascend example asks each distinct query three or four
    times -- it is not solved again, and the answer is the same."""
    import z3

    from tilepipe.passes.analysis import symbolic_index

    contexts = []
    real_context = z3.Context
    monkeypatch.setattr(z3, "Context", lambda *a: contexts.append(1) or real_context(*a))
    monkeypatch.setattr(symbolic_index, "_ANSWERS", type(symbolic_index._ANSWERS)())
    x, y = z3.Ints("x y")
    disjoint = [x >= 0, x < 4, y >= 4, y < 8, x == y]
    overlap = [x >= 0, x < 4, y >= 2, y < 8, x == y]
    first = [symbolic_index.satisfiable(q) for q in (disjoint, overlap)]
    again = [symbolic_index.satisfiable(q) for q in (disjoint, overlap)]
    assert first == again == [False, True]
    assert len(contexts) == 2
