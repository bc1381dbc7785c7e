"""Property: any loop body that pipeline-validate accepts pipelines into a kernel that
computes exactly what the sequential loop computes.

Bodies are 2-8 side-effecting tile ops over 1-4 shared buffers: loads of a global tile
indexed by the iteration, elementwise ops between buffers, stores to a global tile,
accumulation into a register tile.  Stage/order are drawn three ways: nondecreasing
stages with orders in program order, the same rotated (TileLang's shape), and fully
random; whatever the validator accepts must be equivalent for several trip counts.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pipeline_helpers import apply_passes, first_difference_of_runs, parse
from tilepipe.dialects.pipeline import ForOp
from tilepipe.core.diagnostics import OpDiagnosticError
from tilepipe.passes.pipelining.pipeline_validate import validate_pipeline_loop

pytest.importorskip("tilepipe.semantics")

TILE = 4
TRIP_COUNTS = (0, 1, 2, 3, 6)
MAX_TRIPS = max(TRIP_COUNTS)
VECTOR = f"memref<{TILE}xf32"
SHARED = f'{VECTOR}, "shared">'
GLOBAL = f"memref<{TILE * MAX_TRIPS}xf32>"
ACC = f'{VECTOR}, "fragment">'


@st.composite
def loop_bodies(draw) -> list[str]:
    """Tile ops reading only buffers written earlier in the iteration."""
    buffers = [f"%S{i}" for i in range(draw(st.integers(1, 4)))]
    written: list[str] = []
    body: list[str] = []
    for _ in range(draw(st.integers(2, 8))):
        kinds = ["load"] + (["binary", "store", "accumulate"] if written else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "load":
            dst = draw(st.sampled_from(buffers))
            source = draw(st.sampled_from(["%X", "%Y"]))
            body.append(f"tile.copy<{TILE}> {source}[%off] -> {dst} : {GLOBAL} -> {SHARED}")
            written.append(dst)
        elif kind == "binary":
            lhs, rhs = draw(st.sampled_from(written)), draw(st.sampled_from(written))
            dst = draw(st.sampled_from(buffers))
            op = draw(st.sampled_from(["add", "mul", "max"]))
            body.append(
                f"tile.{op}<{TILE}> {lhs}, {rhs} -> {dst} : {SHARED}, {SHARED} -> {SHARED}"
            )
            written.append(dst)
        elif kind == "store":
            src = draw(st.sampled_from(written))
            out = draw(st.sampled_from(["%O", "%P"]))
            body.append(f"tile.copy<{TILE}> {src} -> {out}[%off] : {SHARED} -> {GLOBAL}")
        else:
            src = draw(st.sampled_from(written))
            body.append(f"tile.add<{TILE}> %acc, {src} -> %acc : {ACC}, {SHARED} -> {ACC}")
    return body


@st.composite
def schedules(draw, size: int) -> tuple[list[int], list[int]]:
    mode = draw(st.sampled_from(["monotone", "rotated", "random"]))
    stage = st.integers(0, 3)
    if mode == "random":
        stages = draw(st.lists(stage, min_size=size, max_size=size))
        orders = draw(st.permutations(range(size)))
    else:
        stages = sorted(draw(st.lists(stage, min_size=size, max_size=size)))
        shift = draw(st.integers(0, size - 1)) if mode == "rotated" else 0
        orders = [(i + shift) % size for i in range(size)]
    return stages, list(orders)


def kernel(body: list[str], stages: list[int], orders: list[int]) -> str:
    allocs = "\n".join(
        f"  %S{i} = memref.alloc() : {SHARED}" for i in range(4)
    )
    statements = "\n".join(f"    {line}" for line in body)
    return f"""
func.func @body(%X: {GLOBAL}, %Y: {GLOBAL}, %O: {GLOBAL}, %P: {GLOBAL}, %R: {VECTOR}>, %n: index)
    attributes {{tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c{TILE} = arith.constant {TILE} : index
  %zero = arith.constant 0.000000e+00 : f32
{allocs}
  %acc = memref.alloc() : {ACC}
  tile.fill<{TILE}> %zero -> %acc : f32 -> {ACC}
  pipeline.for %k = %c0 to %n step %c1 stage = {stages} order = {orders} {{
    %off = arith.muli %k, %c{TILE} : index
{statements}
  }}
  tile.copy<{TILE}> %acc -> %R : {ACC} -> {VECTOR}>
  func.return
}}
"""


def is_valid(text: str) -> bool:
    loop = next(op for op in parse(text).walk() if isinstance(op, ForOp))
    try:
        validate_pipeline_loop(loop)
    except OpDiagnosticError:
        return False
    return True


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(data=st.data())
def test_valid_schedules_preserve_semantics(data):
    body = data.draw(loop_bodies())
    stages, orders = data.draw(schedules(len(body)))
    original = kernel(body, stages, orders)
    assume(is_valid(original))
    pipelined = apply_passes(original, "inject-software-pipeline")
    for trips in TRIP_COUNTS:
        difference = first_difference_of_runs(original, pipelined, index_args={"n": trips})
        assert difference is None, f"{trips} iterations:\n{original}\n{difference}"


def test_the_validator_rejects_some_random_schedules():
    """The random mode must exercise the validator's rejections, not only accepts."""
    body = [
        f"tile.copy<{TILE}> %X[%off] -> %S0 : {GLOBAL} -> {SHARED}",
        f"tile.copy<{TILE}> %S0 -> %O[%off] : {SHARED} -> {GLOBAL}",
    ]
    assert is_valid(kernel(body, [0, 1], [0, 1]))
    assert not is_valid(kernel(body, [1, 0], [0, 1]))
    assert not is_valid(kernel(body, [0, 0], [1, 0]))
