"""The AscendC printer's dynamic shapes and boundary tiles (docs/ascend.md,
"Dynamic shapes and boundary tiles").

A dynamic dimension of a GM argument is a kernel parameter ``<name>_size<d>`` after
the buffers; strides and ``memref.dim`` read it.  A copy ``lower-to-ascend`` marked
``ascend.boundary`` (its GM region may reach past the array) is printed for the
run-time number of valid rows and columns, on the copy's own pipe, so no flag
changes:

* GM -> UB: ``DataCopyPad`` of the valid rows, each zero-padded to its 32-byte block;
  the ``zero_tail`` that follows it: ``Duplicate`` 0 over the rest of the tile;
* UB -> GM: ``DataCopyPad`` of the valid rows and columns;
* GM -> L1: ``InitConstValue`` of the L1 tile with 0, then the ND -> NZ ``DataCopy``
  of the valid part (the zeros a K tail of a matmul needs);
* L0C -> GM: ``Fixpipe`` of the valid ``mSize x nSize``.

A tile wholly past the end copies nothing (its valid count is 0).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.ascend_pipes import element_bytes
from tilepipe.dialects.memory_space import memory_space
from tilepipe.dialects.tile import BufferAccess

from tilepipe.lowering.ascend.ascendc_cube import fixpipe_params
from tilepipe.lowering.ascend.ascendc_types import cpp_type, tile_layout


def size_parameter(name: str, dim: int) -> str:
    return f"{name}_size{dim}"


class BoundaryCalls:
    """Mixed into :class:`tilepipe.lowering.ascend.ascendc.AscendCPrinter`."""

    gm_names: dict[SSAValue, str]  # GM argument -> the C++ name of its raw pointer

    def gm_size(self, buffer: SSAValue, dim: int) -> str:
        """The size of dimension ``dim`` of a buffer: a constant or a parameter."""
        assert isinstance(buffer.type, MemRefType)
        size = buffer.type.get_shape()[dim]
        if size >= 0:
            return str(size)
        if buffer not in self.gm_names:
            raise op_error(buffer.owner, "a dynamic size of a buffer that is not a kernel argument")
        return size_parameter(self.gm_names[buffer], dim)

    def stride(self, buffer: SSAValue, dim: int) -> str:
        """The row-major stride (elements) of dimension ``dim``."""
        assert isinstance(buffer.type, MemRefType)
        shape = buffer.type.get_shape()
        later = range(dim + 1, len(shape))
        static = math.prod(shape[d] for d in later if shape[d] >= 0)
        dynamic = [self.gm_size(buffer, d) for d in later if shape[d] < 0]
        return " * ".join(([str(static)] if static != 1 or not dynamic else []) + dynamic)

    def valid_extents(self, op: Operation, access: BufferAccess) -> tuple[str, str]:
        """C++ names of the valid rows and columns of a 1-d or 2-d GM tile (leading
        unit dimensions must lie inside), declared here."""
        sizes = access.sizes
        if any(n != 1 for n in sizes[:-2]):
            raise op_error(op, "a boundary tile has at most two dimensions of extent > 1")
        names = []
        dims = range(len(sizes))[-2:] if len(sizes) > 1 else range(len(sizes))
        for d in dims:
            offset = self.expr(access.offsets[d]) if access.offsets else "0"
            left = f"{self.gm_size(access.buffer, d)} - {offset}"
            name = self.fresh(f"{self.name(access.buffer).removesuffix('_gm')}_valid{d}")
            self.emit(
                f"int64_t {name} = {left} < 0 ? 0 : ({left} > {sizes[d]} ? {sizes[d]} : {left});"
            )
            names.append(name)
        # A leading unit dimension past the array leaves no valid row (the tile's
        # one slice there lies outside).
        outside = [
            f"{offset} >= {self.gm_size(access.buffer, d)}"
            for d in range(len(sizes) - 2)
            if (offset := self.expr(access.offsets[d]) if access.offsets else "0") != "0"
        ]
        if outside:
            self.emit(f"if ({' || '.join(outside)}) {{")
            self.emit(f"  {names[0]} = 0;")
            self.emit("}")
        return ("1", names[0]) if len(names) == 1 else (names[0], names[1])

    def _guarded(self, extents: tuple[str, str], lines: list[str]) -> None:
        """``lines`` when the tile has valid elements."""
        condition = " && ".join(f"{e} > 0" for e in extents if e != "1")
        self.emit(f"if ({condition}) {{")
        for line in lines:
            self.emit("  " + line)
        self.emit("}")

    def pad_copy(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """GM <-> UB with ``DataCopyPad`` (``DataCopyExtParams(blockCount, blockLen
        bytes, srcStride, dstStride, rsv)``: the GM stride is a byte gap, the UB one a
        gap in 32-byte blocks)."""
        to_ub = memory_space(src.buffer.type).is_off_chip
        gm, ub = (src, dst) if to_ub else (dst, src)
        ub_layout = tile_layout(ub)
        if ub_layout is None:
            raise op_error(op, "tile rows are not evenly spaced")
        assert isinstance(gm.buffer.type, MemRefType)
        element = gm.buffer.type.element_type
        size, type_ = element_bytes(element), cpp_type(element)
        rows, cols = self.valid_extents(op, gm)
        tile_row = gm.sizes[-1]
        ub_row_bytes = (tile_row if ub_layout.contiguous else ub_layout.row_stride) * size
        padded = self.fresh("padded_bytes")
        self.emit(f"int64_t {padded} = ({cols} * {size} + 31) / 32 * 32;")
        gm_gap = (
            f"({self.stride(gm.buffer, len(gm.sizes) - 2)} - {cols}) * {size}"
            if len(gm.sizes) > 1 else "0"
        )
        ub_gap = f"({ub_row_bytes} - {padded}) / 32"
        src_gap, dst_gap = (gm_gap, ub_gap) if to_ub else (ub_gap, gm_gap)
        params = f"AscendC::DataCopyExtParams({rows}, {cols} * {size}, {src_gap}, {dst_gap}, 0)"
        if to_ub:
            right = f"({padded} - {cols} * {size}) / {size}"  # elements to the block end
            pad = f"AscendC::DataCopyPadExtParams<{type_}>(true, 0, {right}, 0)"
            call = f"AscendC::DataCopyPad({self.tensor(dst)}, {self.tensor(src)}, {params}, {pad});"
        else:
            call = f"AscendC::DataCopyPad({self.tensor(dst)}, {self.tensor(src)}, {params});"
        self._guarded((rows, cols), [call])

    def zero_tail(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """``ascend.zero_tail`` after a ``DataCopyPad`` of the region ``src``:
        ``Duplicate`` 0 over each valid row from the end of its 32-byte block (the
        copy zero-padded up to there) to the row's end, and over the rows past the
        array.  The starts are 32-byte aligned, as ``Duplicate`` needs; an interior
        tile skips both calls."""
        layout = tile_layout(dst)
        if layout is None or not layout.contiguous:
            raise op_error(op, "dst tile is not contiguous in UB")
        assert isinstance(dst.buffer.type, MemRefType)
        element = dst.buffer.type.element_type
        size, zero = element_bytes(element), f"({cpp_type(element)})0"
        rows, cols = self.valid_extents(op, src)
        tile_rows = src.sizes[-2] if len(src.sizes) > 1 else 1
        tile_cols = src.sizes[-1]
        base = self.offset(dst)

        def at(offset: str) -> str:
            return f"{self.name(dst.buffer)}[{offset if base == '0' else f'{base} + {offset}'}]"

        tail = self.fresh(f"{self.name(src.buffer).removesuffix('_gm')}_tail")
        self.emit(f"int64_t {tail} = ({cols} * {size} + 31) / 32 * 32 / {size};")
        self.emit(f"if ({tail} < {tile_cols}) {{")
        if rows == "1":  # a 1-d tile: its one row
            self.emit(f"  AscendC::Duplicate({at(tail)}, {zero}, {tile_cols} - {tail});")
            self.emit("}")
            return
        row = self.fresh("row")
        self.emit(f"  for (int64_t {row} = 0; {row} < {rows}; ++{row}) {{")
        self.emit(
            f"    AscendC::Duplicate({at(f'{row} * {tile_cols} + {tail}')}, {zero}, "
            f"{tile_cols} - {tail});"
        )
        self.emit("  }")
        self.emit("}")
        self.emit(f"if ({rows} < {tile_rows}) {{")
        self.emit(
            f"  AscendC::Duplicate({at(f'{rows} * {tile_cols}')}, {zero}, "
            f"({tile_rows} - {rows}) * {tile_cols});"
        )
        self.emit("}")

    def nd2nz_boundary(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """GM -> L1 (NZ) of a boundary tile: zero the L1 tile, copy the valid part."""
        assert isinstance(dst.buffer.type, MemRefType) and isinstance(src.buffer.type, MemRefType)
        rows, cols = self.valid_extents(op, src)
        tile_rows, tile_cols = src.sizes[-2:]
        l1_rows = dst.buffer.type.get_shape()[-2]
        if l1_rows != tile_rows:
            raise op_error(op, "a boundary tile must fill the rows of its L1 matrix")
        element = dst.buffer.type.element_type
        blocks = tile_rows * tile_cols * element_bytes(element) // 32
        zero = f"AscendC::InitConstValueParams<{cpp_type(element)}>(1, {blocks}, 0, 0)"
        self.emit(f"AscendC::InitConstValue({self.nz_tensor(dst)}, {zero});")
        gm_row = self.stride(src.buffer, len(src.sizes) - 2)
        params = f"AscendC::Nd2NzParams(1, {rows}, {cols}, 0, {gm_row}, {l1_rows}, 1, 0)"
        call = f"AscendC::DataCopy({self.nz_tensor(dst)}, {self.tensor(src)}, {params});"
        self._guarded((rows, cols), [call])

    def fixpipe_boundary(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """L0C -> GM of a boundary tile: ``mSize x nSize`` of the valid part."""
        rows, cols = self.valid_extents(op, dst)
        m = src.sizes[-2]
        gm_row = self.stride(dst.buffer, len(dst.sizes) - 2)
        params = fixpipe_params(op, cols, rows, m, gm_row)
        call = f"AscendC::Fixpipe({self.tensor(dst)}, {self.tensor(src)}, {params});"
        self._guarded((rows, cols), [call])
