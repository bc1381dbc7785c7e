"""The data instructions of the Ascend pipe simulator: numpy semantics of copies,
``mmad`` and vector ops on the simulated GM and on-chip buffers
(:mod:`tilepipe.semantics.ascend.sim` decides when each runs).

GM regions of copies marked ``ascend.boundary`` are clipped as the tile level
clips them (docs/semantics.md, boundary tiles: reads 0, writes dropped); a GM -> UB
boundary copy writes what AscendC's ``DataCopyPad`` writes, and ``zero_tail`` zeroes
what its ``Duplicate`` calls zero (docs/ascend.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from xdsl.dialects.builtin import Float16Type, Float32Type, IntegerType, MemRefType
from xdsl.ir import SSAValue

from tilepipe.dialects import ascend
from tilepipe.dialects.ascend import BOUNDARY_ATTR
from tilepipe.dialects.memory_space import MemorySpace, memory_space

from tilepipe.semantics import numerics
from tilepipe.semantics.ascend.conversions import fixpipe_convert, run_reduce_plan, vector_cast
from tilepipe.semantics.ascend.issue import Box, Instruction
from tilepipe.semantics.ascend.layout import read_nz, write_nz
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.numerics import gemm_accumulate, gemm_k_step


def numpy_dtype(memref_type: MemRefType) -> np.dtype:
    element = memref_type.element_type
    if isinstance(element, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element, Float32Type):
        return np.dtype(np.float32)
    if isinstance(element, IntegerType):
        return np.dtype(f"int{element.width.data}")
    raise KernelError(None, f"the pipe simulator has no element type {element}")


# The unary vector ops, by the kind ``numerics.unary`` computes.
_UNARY = {ascend.ExpOp: "exp", ascend.LnOp: "log", ascend.SqrtOp: "sqrt", ascend.RsqrtOp: "rsqrt"}


class DataUnit:
    """The numpy semantics of the data instructions."""

    def __init__(self, arrays: dict[SSAValue, np.ndarray]):
        self.arrays = arrays
        # Where the hardware's result is not the tile level's (conversions.py).
        self.divergences: list[str] = []
        self._gm: dict[SSAValue, bool] = {}  # buffer -> lives in GM (asked per instruction)

    def is_gm(self, buffer: SSAValue) -> bool:
        if (known := self._gm.get(buffer)) is None:
            known = self._gm[buffer] = (
                isinstance(buffer.type, MemRefType) and memory_space(buffer.type).is_off_chip
            )
        return known

    def array(self, value: SSAValue) -> np.ndarray:
        if value not in self.arrays:
            assert isinstance(value.type, MemRefType)
            self.arrays[value] = np.zeros(value.type.get_shape(), numpy_dtype(value.type))
        return self.arrays[value]

    def _checked(self, instr: Instruction, box: Box) -> np.ndarray:
        """The buffer of ``box``; a region past it is an error, except a GM region of
        a copy marked as a boundary tile (``ascend.boundary``), which is clipped."""
        array = self.array(box.buffer)
        boundary = self.is_gm(box.buffer) and BOUNDARY_ATTR in instr.op.attributes
        if self.clipped(box) is not None and not boundary:
            start, size, dim = next(
                (s, n, d) for s, n, d in zip(box.starts, box.sizes, array.shape)
                if s < 0 or s + n > d
            )
            raise KernelError(
                instr.op,
                f"{box.role} region [{start}, {start + size}) is out of bounds "
                f"of a dimension of size {dim}",
            )
        return array

    def clipped(self, box: Box) -> tuple[Box, tuple[slice, ...]] | None:
        """A box reaching past its buffer: its in-bounds part and where that lies in
        the tile (docs/semantics.md, boundary tiles); None when it is in bounds."""
        shape = self.array(box.buffer).shape
        if all(0 <= s and s + n <= d for s, n, d in zip(box.starts, box.sizes, shape)):
            return None
        lows = [min(max(s, 0), d) for s, d in zip(box.starts, shape)]
        highs = [max(min(s + n, d), lo) for s, n, d, lo in zip(box.starts, box.sizes, shape, lows)]
        inside = replace(box, starts=tuple(lows), sizes=tuple(h - lo for lo, h in zip(lows, highs)))
        where = tuple(slice(lo - s, h - s) for lo, h, s in zip(lows, highs, box.starts))
        return inside, where

    def in_bounds(self, box: Box) -> Box | None:
        """The part of ``box`` an instruction really accesses (None: nothing)."""
        clip = self.clipped(box) if self.is_gm(box.buffer) else None
        inside = box if clip is None else clip[0]
        return inside if all(inside.sizes) else None

    def read(self, instr: Instruction, box: Box) -> np.ndarray:
        """A GM tile past the array's end reads 0 there."""
        array = self._checked(instr, box)
        clip = self.clipped(box)
        if clip is None:
            return array[box.slices]
        inside, where = clip
        values = np.zeros(box.sizes, array.dtype)
        values[where] = array[inside.slices]
        return values

    def write(self, instr: Instruction, box: Box, values: np.ndarray) -> None:
        """Elements of a GM tile past the array's end are dropped."""
        target = self._checked(instr, box)
        values = np.asarray(values).reshape(box.sizes).astype(target.dtype)
        clip = self.clipped(box)
        if clip is None:
            target[box.slices] = values
        else:
            inside, where = clip
            target[inside.slices] = values[where]

    def _padded_copy(self, instr: Instruction, src: Box, dst: Box) -> None:
        """GM -> UB of a boundary tile, as ``DataCopyPad`` does it: the in-bounds rows
        and columns, each row zero-padded to its 32-byte block; the rest of the UB
        tile keeps what it held (AscendC pads no further)."""
        inside, _ = self.clipped(src)  # type: ignore[misc]
        target = self._checked(instr, dst)
        # The valid rows (none when a leading unit dimension lies past the array) and
        # the block end the padding reaches: what the zero_tail after it keeps.
        rows, padded = ascend.ZeroTailOp.kept(inside.sizes, target.dtype.itemsize, dst.sizes[-1])
        tile = np.array(target[dst.slices]).reshape(-1, dst.sizes[-1])
        values = self.read(instr, src).reshape(-1, dst.sizes[-1]).astype(target.dtype)
        tile[:rows, :padded] = values[:rows, :padded]
        target[dst.slices] = tile.reshape(dst.sizes)

    def _zero_tail(self, instr: Instruction, op: ascend.ZeroTailOp, dst: Box) -> None:
        """``zero_tail`` as its AscendC does it: ``Duplicate`` 0 over each valid row
        from the end of its 32-byte block (``DataCopyPad`` zeroed up to there) and
        over the rows past the array; an interior tile has no tail."""
        source = op.source()
        starts = tuple(instr.scalars[o] for o in source.offsets) or (0,) * len(source.sizes)
        clip = self.clipped(Box(source.buffer, starts, source.sizes, False, False, "src"))
        if clip is None:
            return
        inside, _ = clip
        target = self._checked(instr, dst)
        rows, padded = op.kept(inside.sizes, target.dtype.itemsize, dst.sizes[-1])
        tile = np.array(target[dst.slices]).reshape(-1, dst.sizes[-1])
        tile[:rows, padded:] = 0
        tile[rows:, :] = 0
        target[dst.slices] = tile.reshape(dst.sizes)

    def _fixpipe_convert(self, instr: Instruction, values: np.ndarray, dst: Box) -> np.ndarray:
        """The fixpipe's conversion to the destination's type; elements where its
        saturation differs from ``tile.cast`` are reported."""
        converted, differing = fixpipe_convert(values, self.array(dst.buffer).dtype)
        if differing:
            self.divergences.append(
                f"{instr.describe()} saturates {differing} element(s) that tile.cast "
                f"makes inf or NaN (the 910B fixpipe has no INF_NAN mode)"
            )
        return converted

    def execute(self, instr: Instruction) -> None:
        op = instr.op
        boxes = {box.role: box for box in instr.boxes}
        if isinstance(op, ascend.MoveOp):
            src, dst = boxes["src"], boxes["dst"]
            if (
                isinstance(op, ascend.DataCopyOp) and self.is_gm(src.buffer)
                and self.clipped(src) is not None
            ):
                return self._padded_copy(instr, src, dst)
            if isinstance(op, ascend.LoadDataOp):  # LoadData reads L1 in NZ
                values = read_nz(self._checked(instr, src), src.starts, src.sizes)
            else:
                values = self.read(instr, src)
            if isinstance(op, ascend.FixpipeOp):
                values = self._fixpipe_convert(instr, values, dst)
            if isinstance(op, ascend.DataCopyNd2NzOp) or (
                isinstance(op, ascend.FixpipeOp) and op.spaces[1] == MemorySpace.L1
            ):
                write_nz(self._checked(instr, dst), dst.starts, dst.sizes, values)
            else:
                self.write(instr, dst, values)
        elif isinstance(op, ascend.MmadOp):
            m, n, k = op.mnk
            a = self.read(instr, boxes["a"]).reshape(m, k).astype(np.float32)
            b = self.read(instr, boxes["b"]).reshape(k, n).astype(np.float32)
            init = op.init is not None and bool(instr.scalars[op.init])
            c = np.zeros((m, n), np.float32) if init else self.read(instr, boxes["c"]).reshape(m, n)
            # The tile level's order (numerics.gemm_k_step), so that a lowered kernel
            # is compared with its source bit for bit.
            k_step = gemm_k_step(op.a.type.element_type.bitwidth)
            self.write(instr, boxes["c"], gemm_accumulate(c, a, b, k_step))
        elif isinstance(op, ascend.DuplicateOp):
            value = instr.scalars.get(op.value)
            if value is None:
                raise KernelError(op, "duplicates a value the simulator does not know")
            self.write(instr, boxes["dst"], np.full(boxes["dst"].sizes, value))
        elif isinstance(op, ascend.ZeroTailOp):
            self._zero_tail(instr, op, boxes["dst"])
        elif isinstance(op, ascend.CastOp):
            target = self.array(boxes["dst"].buffer).dtype
            self.write(instr, boxes["dst"], vector_cast(self.read(instr, boxes["src"]), target))
        elif isinstance(op, ascend.ReduceOp):
            target = self.array(boxes["dst"].buffer).dtype
            source = self.read(instr, boxes["src"])
            if op.kind.data == "max":
                # A maximum does not depend on the order, but for which NaN (sign,
                # payload) or which zero it returns, which the vector unit's docs do
                # not say: the simulator returns the tile level's (numpy's) choice.
                values = np.max(source.reshape(op.tile_shape), axis=op.reduce_axis)
            else:
                values = run_reduce_plan(op.plan(), source, target)
            self.write(instr, boxes["dst"], values)
        elif isinstance(op, ascend.BroadcastOp):
            source = self.read(instr, boxes["src"]).reshape(op.operand_tile_shape("src"))
            values = np.expand_dims(source, op.along_axis)
            self.write(instr, boxes["dst"], np.broadcast_to(values, op.tile_shape))
        elif type(op) in _UNARY:
            values = numerics.unary(_UNARY[type(op)], self.read(instr, boxes["src"]))
            self.write(instr, boxes["dst"], values)
        elif isinstance(op, ascend.IotaOp):
            value = instr.scalars.get(op.value)
            if value is None:
                raise KernelError(op, "starts at a value the simulator does not know")
            dst = boxes["dst"]
            element = self.array(dst.buffer).dtype
            shape = op.operand_tile_shape("dst")
            self.write(instr, dst, numerics.iota(value, shape, op.iota_dim, element))
        elif isinstance(op, ascend.CmpOp):
            lhs, rhs = self.read(instr, boxes["lhs"]), self.read(instr, boxes["rhs"])
            self.write(instr, boxes["dst"], numerics.compare(op.predicate.data, lhs, rhs))
        elif isinstance(op, ascend.SelectOp):
            mask, on_true, on_false = (
                self.read(instr, boxes[role]) for role in ("mask", "on_true", "on_false")
            )
            self.write(instr, boxes["dst"], numerics.select(mask, on_true, on_false))
        else:
            lhs, rhs = self.read(instr, boxes["lhs"]), self.read(instr, boxes["rhs"])
            kind = op.name.removeprefix("ascend.")
            self.write(instr, boxes["dst"], numerics.binary(kind, lhs, rhs))
