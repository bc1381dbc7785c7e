"""The AscendC printer's coordinates, comparisons and selections (docs/ascend.md,
"Coordinates, comparisons and selections").

The vector unit compares into a bit mask (one bit per element, ``Compare`` /
``CompareScalar``) and selects by one (``Select``); ``ascend.cmp`` and
``ascend.select`` keep the tile level's meaning, so each is printed as a short
sequence of V-pipe calls through a kernel-wide UB scratch of bits, ``cmp_bits``
(declared once, sized for the largest tile; the calls of one op run in order on V, and
no other op touches the scratch, so it needs no flag):

* ``cmp``: ``Compare(bits, lhs, rhs, CMPMODE::P, n)``; ``Duplicate(dst, 1, n)``;
  ``Select(dst, bits, dst, 0, SELMODE::VSEL_TENSOR_SCALAR_MODE, n)``;
* ``select``: ``CompareScalar(bits, mask, 0, CMPMODE::NE, n)``;
  ``Select(dst, bits, on_true, on_false, SELMODE::VSEL_TENSOR_TENSOR_MODE, n)``;
* ``iota``, per row of the tile: along the last dimension ``CreateVecIndex(row, 0, C)``
  then ``Adds(row, row, start, C)`` (the coordinates are exact, so the one rounded
  add is the tile level's sum); along another dimension ``Duplicate(row, start + r, C)``
  with the sum computed on the scalar unit (in float for half).

What the 910B-class vector unit cannot do exactly is a located error: integer
comparisons and selections (``Compare`` takes half/float, int32 only for EQ;
``Select`` half/float), a compare of fewer than 256 bytes' worth of whole repeats,
coordinates of other types than half/float/int16/int32 or past 2048 in a half row, and
rows that do not start on 32-byte boundaries.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import AnyFloat, Float16Type, Float32Type, IntegerType
from xdsl.ir import Attribute, Operation

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend
from tilepipe.dialects.ascend_pipes import element_bytes
from tilepipe.dialects.tile import BufferAccess

from tilepipe.lowering.ascend.ascendc_types import cpp_type, tile_layout

MASK_SCRATCH = "cmp_bits"
REPEAT_BYTES = 256  # one repeat of the vector unit; Compare counts whole repeats
UB_ALIGNMENT = 32  # a LocalTensor starts on a 32-byte boundary

_CMPMODE = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def mask_scratch_bytes(ops: list[Operation]) -> int:
    """The bytes of the bit mask the comparisons and selections among ``ops`` need:
    one bit per element of the largest, in whole 32-byte blocks (0: none)."""
    elements = [
        math.prod(op.tile_shape) for op in ops if isinstance(op, ascend.CmpOp | ascend.SelectOp)
    ]
    if not elements:
        return 0
    bits_bytes = -(-max(elements) // 8)
    return -(-bits_bytes // UB_ALIGNMENT) * UB_ALIGNMENT


def _half_or_float(element: Attribute) -> bool:
    return isinstance(element, Float16Type | Float32Type)


class MaskCalls:
    """Mixed into :class:`tilepipe.lowering.ascend.ascendc.AscendCPrinter`."""

    def declare_mask_scratch(self, kernel_ops: list[Operation]) -> None:
        size = mask_scratch_bytes(kernel_ops)
        if not size:
            return
        self.taken.add(MASK_SCRATCH)  # type: ignore[attr-defined]
        self.emit(f"AscendC::TBuf<AscendC::TPosition::VECCALC> {MASK_SCRATCH}_buf;")  # type: ignore[attr-defined]
        self.emit(f"pipe.InitBuffer({MASK_SCRATCH}_buf, {size});")  # type: ignore[attr-defined]
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::LocalTensor<uint8_t> {MASK_SCRATCH} = {MASK_SCRATCH}_buf.Get<uint8_t>();"
        )

    def _compared_count(self, op: Operation, compared: Attribute, count: int) -> None:
        if not _half_or_float(compared):
            raise op_error(
                op, f"compares {compared} elements, which the vector unit's Compare and "
                "Select do not take (half and float only)"
            )
        if (count * element_bytes(compared)) % REPEAT_BYTES:
            raise op_error(
                op, f"compares {count} elements of {compared}: Compare takes whole "
                f"{REPEAT_BYTES}-byte repeats"
            )

    def compare(self, op: ascend.CmpOp, accesses: dict[str, BufferAccess], count: int) -> None:
        element = op.element_type("dst")
        self._compared_count(op, element, count)
        dst, lhs, rhs = (self.tensor(accesses[r]) for r in ("dst", "lhs", "rhs"))  # type: ignore[attr-defined]
        mode = _CMPMODE[op.predicate.data]
        value = cpp_type(element)
        self.emit(f"AscendC::Compare({MASK_SCRATCH}, {lhs}, {rhs}, AscendC::CMPMODE::{mode}, {count});")  # type: ignore[attr-defined]
        self.emit(f"AscendC::Duplicate({dst}, ({value})1, {count});")  # type: ignore[attr-defined]
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::Select({dst}, {MASK_SCRATCH}, {dst}, ({value})0, "
            f"AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});"
        )

    def select(self, op: ascend.SelectOp, accesses: dict[str, BufferAccess], count: int) -> None:
        mask_type, element = op.element_type("mask"), op.element_type("dst")
        self._compared_count(op, mask_type, count)
        if not _half_or_float(element):
            raise op_error(op, f"selects {element} elements; Select takes half and float")
        dst, mask, on_true, on_false = (
            self.tensor(accesses[r]) for r in ("dst", "mask", "on_true", "on_false")  # type: ignore[attr-defined]
        )
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::CompareScalar({MASK_SCRATCH}, {mask}, ({cpp_type(mask_type)})0, "
            f"AscendC::CMPMODE::NE, {count});"
        )
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::Select({dst}, {MASK_SCRATCH}, {on_true}, {on_false}, "
            f"AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});"
        )

    def iota(self, op: ascend.IotaOp, dst: BufferAccess) -> None:
        element = op.element_type("dst")
        if not (
            isinstance(element, Float16Type | Float32Type)
            or (isinstance(element, IntegerType) and element.width.data in (16, 32))
        ):
            raise op_error(op, f"CreateVecIndex makes no {element} coordinates (half, float, int16, int32)")
        shape = op.tile_shape
        columns = shape[-1]
        rows = math.prod(shape[:-1])
        layout = tile_layout(dst)
        if layout is None or not (layout.contiguous or layout.row_length == columns):
            raise op_error(op, "dst tile rows are not evenly spaced in UB")
        row_stride = columns if layout.contiguous else layout.row_stride
        if rows > 1 and (row_stride * element_bytes(element)) % UB_ALIGNMENT:
            raise op_error(
                op, f"dst rows {row_stride * element_bytes(element)} bytes apart do not all "
                f"start on {UB_ALIGNMENT}-byte boundaries"
            )
        along_rows = op.iota_dim == len(shape) - 1
        if along_rows and isinstance(element, Float16Type) and columns > 2048:
            raise op_error(op, f"half coordinates up to {columns - 1} are not exact (past 2048)")
        value = cpp_type(element)
        start = self.scalar(op.value)  # type: ignore[attr-defined]  (of the element type)
        base = self.name(dst.buffer)  # type: ignore[attr-defined]
        origin = self.offset(dst)  # type: ignore[attr-defined]
        row = self.fresh("row")  # type: ignore[attr-defined]
        if rows > 1:
            self.emit(f"for (int32_t {row} = 0; {row} < {rows}; ++{row}) {{")  # type: ignore[attr-defined]
            self.indent += 1  # type: ignore[attr-defined]
            row_offset = f"{row} * {row_stride}"
            tensor = f"{base}[{row_offset if origin == '0' else f'{origin} + {row_offset}'}]"
        else:
            tensor = base if origin == "0" else f"{base}[{origin}]"
        if along_rows:
            self.emit(f"AscendC::CreateVecIndex({tensor}, ({value})0, {columns});")  # type: ignore[attr-defined]
            self.emit(f"AscendC::Adds({tensor}, {tensor}, {start}, {columns});")  # type: ignore[attr-defined]
        else:
            # The row's coordinate along ``dim``: rows are the tile's leading dimensions
            # flattened, so it is the row number's digit for that dimension.
            inner = math.prod(shape[op.iota_dim + 1 : -1])
            coordinate = "0" if rows == 1 else (
                f"{row} / {inner} % {shape[op.iota_dim]}" if inner > 1 else f"{row} % {shape[op.iota_dim]}"
            )
            self.emit(  # type: ignore[attr-defined]
                f"AscendC::Duplicate({tensor}, {self._row_value(element, start, coordinate)}, {columns});"
            )
        if rows > 1:
            self.indent -= 1  # type: ignore[attr-defined]
            self.emit("}")  # type: ignore[attr-defined]

    @staticmethod
    def _row_value(element: Attribute, start: str, coordinate: str) -> str:
        """``start + coordinate`` as the tile level adds: in float for half and float
        (rounded once to half), in 64 bits for integers (wrapping when narrowed)."""
        value = cpp_type(element)
        if isinstance(element, AnyFloat):
            return f"({value})((float){start} + (float)({coordinate}))"
        return f"({value})((int64_t){start} + ({coordinate}))"
