"""Original vs pipelined kernels in the interpreter: bit-identical outputs for every
example at num_stages 1-5, and for small kernels over trip counts
{0, 1, depth-1, depth, depth+1, 33}, static and dynamic."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import EXAMPLES, ROOT
from pipeline_helpers import (
    EXAMPLE_SHAPES,
    SMALL_KERNELS,
    apply_passes,
    first_difference_of_runs,
    small_kernel,
    with_num_stages,
)

pytest.importorskip("tilepipe.semantics")

PIPELINED_EXAMPLES = sorted(
    p.name for p in EXAMPLES.glob("*.mlir") if "pipeline.for" in p.read_text()
)
NUM_STAGES = [1, 2, 3, 4, 5]


def first_block(text: str) -> list[tuple[int, ...]]:
    grid = re.search(r"tile.grid = array<i64: ([\d, ]+)>", text) or re.search(
        r"tile.grid_dims ([%\w, ]+)\n", text
    )
    rank = len(grid.group(1).split(",")) if grid else 1
    return [(0,) * rank]


@pytest.mark.parametrize("example", PIPELINED_EXAMPLES)
@pytest.mark.parametrize("num_stages", NUM_STAGES)
def test_example_is_equivalent(example, num_stages):
    original = with_num_stages((EXAMPLES / example).read_text(), num_stages)
    pipelined = apply_passes(original)
    assert "pipeline.for" not in str(pipelined)
    difference = first_difference_of_runs(
        original, pipelined, blocks=first_block(original), shapes=EXAMPLE_SHAPES.get(example)
    )
    assert difference is None, difference


def trip_counts(num_stages: int) -> list[int]:
    depth = num_stages
    return sorted({0, 1, max(depth - 1, 0), depth, depth + 1, 33})


@pytest.mark.parametrize("kernel", sorted(SMALL_KERNELS))
@pytest.mark.parametrize("num_stages", NUM_STAGES)
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_small_kernel_trip_counts(kernel, num_stages, dynamic):
    for trips in trip_counts(num_stages):
        original = small_kernel(kernel, num_stages, trips, dynamic)
        pipelined = apply_passes(original)
        difference = first_difference_of_runs(
            original, pipelined, index_args={"n": trips}
        )
        assert difference is None, f"{trips} iterations: {difference}"


def lit_cases(path: str) -> dict[str, str]:
    """The functions of a --split-input-file lit test, by name."""
    chunks = (ROOT / path).read_text().split("// -----")
    return {
        re.search(r"func.func @(\w+)", c).group(1): c for c in chunks if "func.func" in c
    }


SCHEDULE_SHAPES = lit_cases("test/pipelining/inject-schedule.mlir")


@pytest.mark.parametrize("name", sorted(SCHEDULE_SHAPES))
def test_schedule_shapes_are_equivalent(name):
    """The lit shapes (non-unit steps, guards, tightening, values leaving guards) run
    like their sequential loops for several trip counts."""
    kernel = re.sub(
        r"(func.func @\w+\([^)]*\))",
        r'\1 attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"}',
        SCHEDULE_SHAPES[name],
        count=1,
    )
    pipelined = apply_passes(kernel, "inject-software-pipeline")
    dynamic = "%n: index" in kernel
    for trips in [0, 1, 2, 3, 5, 8] if dynamic else [None]:
        index_args = {"n": trips} if dynamic else None
        # Row indices a kernel loads must keep its 64-row copies in bounds.
        inputs = {"ids": np.arange(8) * 3} if "%ids" in kernel else None
        difference = first_difference_of_runs(
            kernel, pipelined, index_args=index_args, inputs=inputs
        )
        assert difference is None, f"n = {trips}: {difference}"
