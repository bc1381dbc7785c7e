"""``TileOp.tile_regions`` reads the operand segments once per call (the analyses ask
it of every op many times); it must name the same values as xDSL's field accessors,
for every tile op of every flow's levels."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilepipe.core.flows import run_flow
from tilepipe.dialects.tile_base import TileOp

from pipeline_helpers import parse

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
CASES = [
    ("gemm.mlir", "cuda", "scheduled"),
    ("flash_attention.mlir", "cuda", "scheduled"),
    ("ascend_matmul.mlir", "ascend", "ascend"),
    ("ascend_matmul_vector.mlir", "ascend", "ascend"),
]


def accessor_regions(op: TileOp):
    return [
        (role, getattr(op, buffer), tuple(getattr(op, offsets)))
        for buffer, offsets, role in op.REGION_OPERANDS
    ]


@pytest.mark.parametrize("example,flow,level", CASES)
def test_regions_match_the_field_accessors(example, flow, level):
    module = parse((EXAMPLES / example).read_text())
    seen = 0
    for stage in (module.clone(), run_flow(module.clone(), flow, level)):
        for op in stage.walk():
            if isinstance(op, TileOp) and op.REGION_OPERANDS:
                assert op.tile_regions() == accessor_regions(op), op.name
                seen += 1
    assert seen > 4
