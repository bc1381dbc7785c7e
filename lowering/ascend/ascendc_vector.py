"""The AscendC printer's conversions and reductions on the vector unit
(docs/ascend.md, "Conversions and reductions").

* ``ascend.cast``: ``Cast(dst, src, RoundMode::M, n)`` with the mode of
  ``ascend.VECTOR_CAST_MODES``;
* ``ascend.reduce``: one call per step of its plan (``dialects/ascend_reduce_plan.py``)
  on a kernel-wide f32 UB scratch, ``reduce_work`` (declared once, sized for the
  largest plan; the calls run in order on V and no other op touches the scratch, so
  it needs no flag, as the comparisons' ``cmp_bits``): strided ``Add``/``Max`` with
  ``BinaryRepeatParams``, ``BlockReduceSum``/``BlockReduceMax``, ``Adds``, ``Cast``
  and an UB -> UB ``DataCopy``;
* a kernel whose vector unit rounds f32 to half/bf16 (a ``Cast`` or a reduction's
  result) first turns the saturation mode off,
  ``SetSaturationFlag<SaturationMode::FLOAT>(false)``: in its default saturation mode
  (CTRL[48] = 0, doc SetCtrlSpr for the Atlas A2 series) an overflow would become
  the largest half instead of the infinity ``tile.cast`` gives.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type
from xdsl.ir import Operation

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend
from tilepipe.dialects.ascend_reduce_plan import F32_BLOCK, Step, View
from tilepipe.dialects.tile import BufferAccess

from tilepipe.lowering.ascend.ascendc_types import tile_layout

REDUCE_SCRATCH = "reduce_work"
_COMBINE = {"sum": "Add", "max": "Max"}
_BLOCK_REDUCE = {"sum": "BlockReduceSum", "max": "BlockReduceMax"}
_REPEAT_ELEMENTS = 64  # f32 elements of one 256-byte repeat


def reduce_scratch_bytes(ops: list[Operation]) -> int:
    """The bytes of ``reduce_work`` the reductions among ``ops`` need (0: none)."""
    sizes = [op.plan().work_elements for op in ops if isinstance(op, ascend.ReduceOp)]
    sizes += [_broadcast_blocks(op) * F32_BLOCK for op in ops if isinstance(op, ascend.BroadcastOp)]
    return 4 * max(sizes, default=0)


def _broadcast_blocks(op: ascend.BroadcastOp) -> int:
    """The blocks ``Brcb`` fills for a broadcast along the last axis: one per row, in
    whole repeats of 8 (0 along the first axis, which needs no scratch)."""
    shape = op.tile_shape
    if op.along_axis != len(shape) - 1:
        return 0
    rows = shape[0] if len(shape) == 2 else 1
    return -(-rows // F32_BLOCK) * F32_BLOCK


def rounds_to_half(ops: list[Operation]) -> bool:
    """Does some vector call of ``ops`` round f32 results to half or bf16 (a ``Cast``,
    or the last step of a reduction of half/bf16)?"""
    return any(
        isinstance(op, ascend.CastOp | ascend.ReduceOp)
        and isinstance(op.element_type("dst"), Float16Type | BFloat16Type)
        for op in ops
    )


def _indexed(tensor: str, offset: int) -> str:
    if not offset:
        return tensor
    if tensor.endswith("]"):
        return f"{tensor[:-1]} + {offset}]"
    return f"{tensor}[{offset}]"


class VectorCalls:
    """Mixed into :class:`tilepipe.lowering.ascend.ascendc.AscendCPrinter`."""

    def declare_vector_scratch(self, kernel_ops: list[Operation]) -> None:
        """The reductions' scratch and the saturation mode, at the kernel's top."""
        size = reduce_scratch_bytes(kernel_ops)
        if size:
            self.taken.add(REDUCE_SCRATCH)  # type: ignore[attr-defined]
            self.emit(f"AscendC::TBuf<AscendC::TPosition::VECCALC> {REDUCE_SCRATCH}_buf;")  # type: ignore[attr-defined]
            self.emit(f"pipe.InitBuffer({REDUCE_SCRATCH}_buf, {size});")  # type: ignore[attr-defined]
            self.emit(  # type: ignore[attr-defined]
                f"AscendC::LocalTensor<float> {REDUCE_SCRATCH} = {REDUCE_SCRATCH}_buf.Get<float>();"
            )
        if rounds_to_half(kernel_ops):
            self.emit("AscendC::SetSaturationFlag<AscendC::SaturationMode::FLOAT>(false);")  # type: ignore[attr-defined]

    def cast(self, op: ascend.CastOp, src: str, dst: str, count: int) -> None:
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::Cast({dst}, {src}, AscendC::RoundMode::{op.round_mode}, {count});"
        )

    def reduce(self, op: ascend.ReduceOp, accesses: dict[str, BufferAccess]) -> None:
        for role in ("src", "dst"):
            layout = tile_layout(accesses[role])
            if layout is None or not layout.contiguous:
                raise op_error(op, f"{role} tile is not contiguous in UB")
        tensors = {
            "src": self.tensor(accesses["src"]),  # type: ignore[attr-defined]
            "dst": self.tensor(accesses["dst"]),  # type: ignore[attr-defined]
            "work": REDUCE_SCRATCH,
        }
        kind = op.kind.data
        for step in op.plan().steps:
            self._reduce_step(kind, step, tensors)

    def broadcast(self, op: ascend.BroadcastOp, src: BufferAccess, dst: BufferAccess) -> None:
        for access in (src, dst):
            layout = tile_layout(access)
            if layout is None or not layout.contiguous:
                raise op_error(op, f"{access.operand_name} tile is not contiguous in UB")
        shape = op.tile_shape
        rows, columns = (1, shape[0]) if len(shape) == 1 else shape
        src_t, dst_t = self.tensor(src), self.tensor(dst)  # type: ignore[attr-defined]
        if op.along_axis != len(shape) - 1:  # every row a copy of the source row
            for row in range(rows):
                self.emit(f"AscendC::Adds({_indexed(dst_t, row * columns)}, {src_t}, (float)-0.0, {columns});")  # type: ignore[attr-defined]
            return
        blocks = _broadcast_blocks(op)
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::Brcb({REDUCE_SCRATCH}, {src_t}, {blocks // F32_BLOCK}, "
            "AscendC::BrcbRepeatParams(1, 8));"
        )
        # Row r: its block, read with block stride 0 over each 64-element repeat.
        for first in range(0, columns, _REPEAT_ELEMENTS):
            mask = min(_REPEAT_ELEMENTS, columns - first)
            params = f"1, 0, {columns // F32_BLOCK}, 1"
            self.emit(  # type: ignore[attr-defined]
                f"AscendC::Adds({_indexed(dst_t, first)}, {REDUCE_SCRATCH}, (float)-0.0, "
                f"(uint64_t){mask}, {rows}, AscendC::UnaryRepeatParams({params}));"
            )

    def _reduce_step(self, kind: str, step: Step, tensors: dict[str, str]) -> None:
        def at(view: View) -> str:
            return _indexed(tensors[view.buffer], view.offset)

        out, a = at(step.out), at(step.a)
        if step.kind in ("widen", "narrow"):
            mode = "CAST_NONE" if step.kind == "widen" else "CAST_RINT"
            return self.emit(f"AscendC::Cast({out}, {a}, AscendC::RoundMode::{mode}, {step.out.count});")  # type: ignore[attr-defined]
        if step.kind == "add_zero":  # the tile level's closing +0
            return self.emit(f"AscendC::Adds({out}, {a}, (float)0, {step.out.count});")  # type: ignore[attr-defined]
        if step.kind == "block":
            # Whole repeats of 8 blocks; each block's reduction lands next to the last.
            repeats = step.a.rows // F32_BLOCK
            return self.emit(  # type: ignore[attr-defined]
                f"AscendC::{_BLOCK_REDUCE[kind]}({out}, {a}, {repeats}, {_REPEAT_ELEMENTS}, 1, 1, 8);"
            )
        if step.kind == "copy" and step.out.rows == 1:
            # x + (-0) is x for every x (+0 + -0 = +0, -0 + -0 = -0): an exact copy of
            # any length, where DataCopy moves whole 32-byte blocks only.
            return self.emit(f"AscendC::Adds({out}, {a}, (float)-0.0, {step.out.count});")  # type: ignore[attr-defined]
        blocks = step.out.width // F32_BLOCK
        if step.kind == "copy":
            gaps = (step.a.row_stride // F32_BLOCK - blocks, step.out.row_stride // F32_BLOCK - blocks)
            params = f"{step.out.rows}, {blocks}, {gaps[0]}, {gaps[1]}"
            return self.emit(f"AscendC::DataCopy({out}, {a}, AscendC::DataCopyParams({params}));")  # type: ignore[attr-defined]
        assert step.b is not None
        b = at(step.b)
        if step.out.rows == 1:
            return self.emit(f"AscendC::{_COMBINE[kind]}({out}, {a}, {b}, {step.out.width});")  # type: ignore[attr-defined]
        # One repeat per row: mask = the row's elements, strides in 32-byte blocks.
        strides = ", ".join(
            str(v.row_stride // F32_BLOCK) for v in (step.out, step.a, step.b)
        )
        self.emit(  # type: ignore[attr-defined]
            f"AscendC::{_COMBINE[kind]}({out}, {a}, {b}, (uint64_t){step.out.width}, "
            f"{step.out.rows}, AscendC::BinaryRepeatParams(1, 1, 1, {strides}));"
        )
