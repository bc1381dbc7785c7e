"""XOR swizzling of the shared tiles that tensor cores read, against bank conflicts.

Shared memory has 32 banks of 4 bytes: the 16-byte units 0..7 of every 128-byte line
map to disjoint bank groups.  ``ldmatrix`` gives each 8 lanes one 8x8 matrix: 8 rows
of 16 bytes at the same column.  In a row-major tile whose rows are 128 bytes (or a
multiple), those 8 rows start in the same bank group -- an 8-way conflict, 8
wavefronts where one would do.  The same holds for ``.trans`` loads of B.

The fix is the one upstream's ``nvgpu-optimize-shared-memory`` applies: permute the
16-byte units of each row by XOR with a function of the row, so that 8 consecutive
rows at the same logical column land in 8 different bank groups:

* rows of ``U >= 8`` units (``U`` a multiple of 8): ``unit ^ (row % 8)``;
* rows of ``U`` = 2 or 4 units (``8 / U`` rows share a 128-byte line):
  ``unit ^ ((row / (8 / U)) % U)``;
* anything else (one unit, or a unit count that is no power of two) stays as it is.

In element columns, with ``E`` elements per 16-byte unit, that is
``col ^ (phase(row) * E)``: the XOR only touches the unit bits, so an access of at
most 16 aligned bytes stays inside its unit.  Every access of a swizzled buffer goes
through the same permutation (``TileOperand.indices``), so the permutation is
invisible to the program: a bijection of the tile's bytes onto themselves that keeps
each element with the thread that touches it (the thread mappings of sync insertion
and the race detector are unchanged).

The lowering marks each swizzled buffer's ``memref.view`` with ``tilepipe.swizzle``,
the permutation as a formula (``"col ^ ((row % 8) * 8)"``).

The same permutations are the tensor-map copy's hardware swizzles (PTX ISA,
"Swizzling modes"): with rows of 32, 64 or 128 bytes, the 32B, 64B and 128B modes XOR
the unit bits [4, 4 + log2(R/16)) of the shared address with its bits [7, ...), which
for row ``r`` of ``R`` bytes are ``(r * R / 128) % (R / 16)``: the formulas above
(given the tile's 8-row pattern starts at an address aligned to 8 rows, which
``tma-copy`` asks of the arena).

Which buffers: shared buffers read by a tensor-core ``tile.gemm`` whose every use is
a tile op lowered through ``TileOperand``, or a tensor-map copy that lands rows of 32,
64 or 128 bytes (in its hardware swizzle) -- not a row-wise ``pipeline.bulk_copy``,
which moves whole rows contiguously -- and whose arena bytes no buffer of the same
type permuted otherwise shares (thread-sync takes such views for one buffer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute, SSAValue

from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.tile import GemmOp, TileOp
from tilepipe.dialects.tile_base import constant_index, element_bytes
from tilepipe.passes.analysis.divisibility import value_divisibility
from tilepipe.passes.cuda.tensor_map import TensorBox, tensor_box
from tilepipe.passes.memory.arena_aliasing import arena_slice

from tilepipe.lowering.nvvm import emit

UNIT_BYTES = 16  # one bank group: 4 banks of 4 bytes
LINE_UNITS = 8  # 128 bytes: all 32 banks


@dataclass(frozen=True)
class SharedSwizzle:
    """``col ^ (((row / rows_per_phase) % phases) * unit_elements)``; with
    ``panels`` > 1, the rows are stored as that many panels of ``panel_columns``
    columns (panel ``j``: columns ``[j P, (j + 1) P)`` of all ``panel_rows`` rows,
    row-major, one after the other), each permuted by the formula."""

    unit_elements: int
    rows_per_phase: int
    phases: int
    panels: int = 1
    panel_columns: int = 0
    panel_rows: int = 0

    def describe(self) -> str:
        """The permutation as a formula, for the IR and the compile summary."""
        row = "row" if self.rows_per_phase == 1 else f"row / {self.rows_per_phase}"
        formula = f"col ^ (({row} % {self.phases}) * {self.unit_elements})"
        if self.panels > 1:
            return f"panels of {self.panel_columns} columns, {formula}"
        return formula

    def position(self, row: SSAValue, col: SSAValue) -> tuple[SSAValue, SSAValue]:
        """Where element (``row``, ``col``) of a tile is stored, as (row, column) of
        the same shape."""
        if self.panels == 1:
            return row, self.column(row, col)
        panel = emit.div(col, self.panel_columns)
        within = emit.rem(col, self.panel_columns)
        # Element (row, col) is element panel * R * P + row * P + within of the tile;
        # rows of n P columns put it at row panel * R / n + row / n, column
        # (row % n) * P + within.
        stored_row = emit.add(
            emit.mul(panel, self.panel_rows // self.panels), emit.div(row, self.panels)
        )
        stored_col = emit.add(
            emit.mul(emit.rem(row, self.panels), self.panel_columns), self.column(row, within)
        )
        return stored_row, stored_col

    def keeps_together(self, width: int, element_type: Attribute) -> bool:
        """Does an aligned run of ``width`` elements stay contiguous (inside one
        16-byte unit) under the permutation?"""
        return width * element_bytes(element_type) <= UNIT_BYTES

    @property
    def period(self) -> int:
        """Rows after which the permutation repeats."""
        return self.rows_per_phase * self.phases

    def column(self, row: SSAValue, col: SSAValue) -> SSAValue:
        row = _without_multiples(row, self.period)
        phase = emit.rem(emit.div(row, self.rows_per_phase), self.phases)
        mask = emit.mul(phase, self.unit_elements)
        mask_value, col_value = constant_index(mask), constant_index(col)
        if mask_value == 0:
            return col
        if mask_value is not None and col_value is not None:
            return emit.const(col_value ^ mask_value)
        return arith.XOrIOp(col, mask).result


def _without_multiples(value: SSAValue, period: int) -> SSAValue:
    """``value`` less the terms of its sum that are multiples of ``period`` (a warp's
    row origin, a 16-row block), which the phase does not depend on."""
    constant = constant_index(value)
    if constant is not None:
        return emit.const(constant % period) if constant >= 0 else value
    owner = value.owner
    if isinstance(owner, arith.AddiOp):
        if value_divisibility(owner.lhs) % period == 0:
            return _without_multiples(owner.rhs, period)
        if value_divisibility(owner.rhs) % period == 0:
            return _without_multiples(owner.lhs, period)
    return value


def choose_swizzle(buffer_type: MemRefType, panels: bool = False) -> SharedSwizzle | None:
    """The permutation for a row-major shared tile, or None where none is needed.
    With ``panels`` (a tile the tensor-map TMA lands), rows longer than 128 bytes are
    stored as 128-byte panels, each in the 128-byte swizzle: the only layout a TMA
    swizzle gives a wider tile (one box per panel)."""
    shape = buffer_type.get_shape()
    if len(shape) < 2:
        return None
    size = element_bytes(buffer_type.element_type)
    row_bytes = shape[-1] * size
    if size > UNIT_BYTES or row_bytes % UNIT_BYTES:
        return None
    line = LINE_UNITS * UNIT_BYTES
    if panels and row_bytes > line:
        count, rows = row_bytes // line, shape[-2]
        if row_bytes % line or rows % LINE_UNITS or rows % count:
            return None
        return SharedSwizzle(UNIT_BYTES // size, 1, LINE_UNITS, count, line // size, rows)
    units = row_bytes // UNIT_BYTES
    if units >= LINE_UNITS and units % LINE_UNITS == 0:
        return SharedSwizzle(UNIT_BYTES // size, 1, LINE_UNITS)
    if units in (2, 4):
        return SharedSwizzle(UNIT_BYTES // size, LINE_UNITS // units, units)
    return None


def _addressed_by_indices(op: object, buffer: SSAValue) -> bool:
    """Does ``op`` touch ``buffer`` only as a tile region that the lowering addresses
    element by element (every tile op but a bulk copy), or land it in the same
    permutation (a tensor-map copy whose rows are a hardware swizzle's)?"""
    if isinstance(op, BulkCopyOp):
        box = tensor_box(op) if op.is_tensor_copy and op.dst == buffer else None
        return isinstance(box, TensorBox) and box.swizzle_candidate > 0
    return isinstance(op, TileOp) and any(b == buffer for _, b, _ in op.tile_regions())


def swizzled_buffers(
    shared_buffers: Iterable[SSAValue], on_tensor_cores: Callable[[GemmOp], bool]
) -> dict[SSAValue, SharedSwizzle]:
    """The swizzle of every shared buffer that a tensor-core gemm reads and that only
    index-addressed tile ops touch."""
    shared_buffers = list(shared_buffers)
    swizzles: dict[SSAValue, SharedSwizzle] = {}
    for buffer in shared_buffers:
        users = [use.operation for use in buffer.uses]
        read_by_tensor_cores = any(
            isinstance(user, GemmOp) and buffer in (user.a, user.b) and on_tensor_cores(user)
            for user in users
        )
        if not read_by_tensor_cores:
            continue
        if not all(_addressed_by_indices(user, buffer) for user in users):
            continue
        buffer_type = buffer.type
        assert isinstance(buffer_type, MemRefType)
        landed_by_tensor_copies = any(
            isinstance(user, BulkCopyOp) and user.is_tensor_copy for user in users
        )
        swizzle = choose_swizzle(buffer_type, panels=landed_by_tensor_copies)
        if swizzle is not None:
            swizzles[buffer] = swizzle
    return _alike_on_shared_bytes(shared_buffers, swizzles)


def _alike_on_shared_bytes(
    shared_buffers: Iterable[SSAValue], swizzles: dict[SSAValue, SharedSwizzle]
) -> dict[SSAValue, SharedSwizzle]:
    """``swizzles`` without the buffers that share their arena bytes and type with a
    buffer permuted otherwise (or not at all).  thread-sync compares two such views
    element by element (the same element is the same bytes, touched by the same
    thread), so a permutation of one and not the other would hand an element's bytes
    to another thread with no barrier between them (fuzz seed 702632: a gemm operand
    swizzled over the bytes of an earlier loop's plain buffer)."""
    groups: dict[tuple, list[SSAValue]] = {}
    for buffer in shared_buffers:
        if (where := arena_slice(buffer)) is not None:
            groups.setdefault((where, buffer.type), []).append(buffer)
    for members in groups.values():
        if len({swizzles.get(member) for member in members}) > 1:
            for member in members:
                swizzles.pop(member, None)
    return swizzles
