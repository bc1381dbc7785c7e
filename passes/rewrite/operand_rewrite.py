"""Rebuild an op with some of its named operand groups replaced.

Multi-buffering and barrier expansion change the *number* of offsets of a region operand
(a version index is prepended), which an in-place operand update cannot do for ops with
several variadic operand groups.  :func:`with_operands` recreates the op through its
IRDL definition and recomputes ``operandSegmentSizes``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, VarOperandDef

SEGMENT_SIZES = "operandSegmentSizes"


def with_operands(
    op: Operation, replacements: Mapping[str, SSAValue | Sequence[SSAValue]]
) -> Operation:
    """A detached copy of ``op`` whose operand groups named in ``replacements`` are
    replaced (regions are cloned); ``op`` itself is left untouched."""
    assert isinstance(op, IRDLOperation)
    definition = type(op).get_irdl_definition()
    operands: list[SSAValue] = []
    sizes: list[int] = []
    for name, operand_def in definition.operands:
        group = replacements.get(name, getattr(op, name))
        values = [group] if isinstance(group, SSAValue) else list(group)
        if not isinstance(operand_def, VarOperandDef):
            assert len(values) == 1, f"operand '{name}' of {op.name} takes one value"
        operands.extend(values)
        sizes.append(len(values))
    properties = dict(op.properties)
    if SEGMENT_SIZES in properties:
        properties[SEGMENT_SIZES] = DenseArrayBase.from_list(i32, sizes)
    rebuilt = type(op).create(
        operands=operands,
        result_types=[r.type for r in op.results],
        properties=properties,
        attributes=dict(op.attributes),
        regions=[region.clone() for region in op.regions],
    )
    rebuilt.location = op.location  # diagnostics and reports keep pointing at the source
    return rebuilt
