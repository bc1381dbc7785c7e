"""The AscendC printer's cube data movement: ND -> NZ copies into L1, ``LoadData``
into L0A/L0B, ``Mmad`` and ``Fixpipe``.

The cube reads L1 in the fractal NZ layout (see :mod:`tilepipe.semantics.ascend.layout`,
which the pipe simulator uses): GM -> L1 copies are ``DataCopy`` with ``Nd2NzParams``,
``LoadData`` fetches NZ fractals (both as asc-devkit's matmul_basic_api example), and a
``Fixpipe`` into L1 keeps NZ (``CFG_NZ``).  Parameter structs are built with the real
headers' constructors (they are not aggregates).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend
from tilepipe.dialects.ascend_pipes import ascend_space, element_bytes
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile import BufferAccess

from tilepipe.lowering.ascend.ascendc_types import cpp_type, tile_layout


class CubeCalls:
    """Mixed into :class:`tilepipe.lowering.ascend.ascendc.AscendCPrinter`, whose ``emit``,
    ``expr``, ``name``, ``fresh`` and ``tensor`` these methods use."""

    def nz_tensor(self, access: BufferAccess) -> str:
        """A region of an L1 buffer held in the NZ layout (see
        :mod:`tilepipe.semantics.ascend.layout`): its origin ``(r, c)`` of the
        ``R x C`` matrix is element ``(c / c0) * R * c0 + r * c0 + c % c0``."""
        assert isinstance(access.buffer.type, MemRefType)
        dims = access.buffer.type.get_shape()
        if len(dims) < 2:
            raise op_error(access.buffer.owner, "an NZ buffer must have rows and columns")
        c0 = _c0(access.buffer.type)
        rows = dims[-2]
        terms = []
        for d, off in enumerate(access.offsets[:-2]):
            text = self.expr(off)
            if text != "0":
                terms.append(f"{text} * {math.prod(dims[d + 1:])}")
        if access.offsets:
            r, c = (self.expr(v) for v in access.offsets[-2:])
            if c.isdigit() and r.isdigit():
                origin = (int(c) // c0) * rows * c0 + int(r) * c0 + int(c) % c0
                if origin:
                    terms.append(str(origin))
            else:
                terms.append(f"({c} / {c0}) * {rows * c0} + {r} * {c0} + {c} % {c0}")
        offset = " + ".join(terms)
        base = self.name(access.buffer)
        return f"{base}[{offset}]" if offset else base

    def _nd2nz(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """GM (ND) -> L1 (NZ): ``Nd2NzParams(ndNum, nValue, dValue, srcNdMatrixStride,
        srcDValue, dstNzC0Stride, dstNzNStride, dstNzMatrixStride)``; the L1 column
        blocks lie ``R`` 32-byte blocks apart (R: the L1 matrix's rows)."""
        assert isinstance(src.buffer.type, MemRefType) and isinstance(dst.buffer.type, MemRefType)
        if any(n != 1 for n in src.sizes[:-2]) or len(src.sizes) < 2:
            raise op_error(op, "an ND -> NZ copy moves one 2-d tile")
        rows, cols = src.sizes[-2:]
        src_row = src.buffer.type.get_shape()[-1]
        l1_rows = dst.buffer.type.get_shape()[-2]
        params = f"1, {rows}, {cols}, 0, {src_row}, {l1_rows}, 1, 0"
        self.emit(
            f"AscendC::DataCopy({self.nz_tensor(dst)}, {self.tensor(src)}, "
            f"AscendC::Nd2NzParams({params}));"
        )

    def _load_data(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        """L1 (NZ) -> L0A (zZ) or L0B (zN), one ``LoadData`` per 16-row block: for
        block ``i``, destination ``i * 16 * cols``, source ``i * 512 B``, ``repeatTimes``
        the 512-byte fractals of a row block, ``srcStride`` ``R/16`` (R: the L1
        matrix's rows), transposed into L0B -- asc-devkit's
        examples/01_simd_cpp_api/00_introduction/02_matrix/matmul_basic_api (its
        ``__NPU_ARCH__ == 2201`` branch) word for word."""
        assert isinstance(src.buffer.type, MemRefType)
        rows, cols = src.sizes[-2:]
        c0 = _c0(src.buffer.type)
        if rows % 16 or cols % c0:
            raise op_error(op, f"a LoadData tile must be whole 16x{c0} fractals")
        l1_rows = src.buffer.type.get_shape()[-2]
        transposed = ascend_space(dst.buffer.type) == MemorySpace.L0B
        if transposed and element_bytes(src.buffer.type.element_type) != 2:
            # CANN's LoadData (2D) doc: "with ifTranspose, source and destination
            # support b16 data types only".
            raise op_error(op, "an L1 -> L0B LoadData transposes its fractals, which "
                           "the hardware does for 16-bit elements only")
        transpose = "true" if transposed else "false"
        params = f"0, {cols // c0}, {l1_rows // 16}, 0, 0, {transpose}, 0"
        block = self.fresh("b")
        dst_t, src_t = self.tensor(dst), self.nz_tensor(src)
        self.emit(f"for (int64_t {block} = 0; {block} < {rows // 16}; {block} += 1) {{")
        self.emit(
            f"  AscendC::LoadData({_indexed(dst_t, f'{block} * {16 * cols}')}, "
            f"{_indexed(src_t, f'{block} * {16 * c0}')}, AscendC::LoadData2DParams({params}));"
        )
        self.emit("}")

    def _fixpipe(self, op: ascend.FixpipeOp, src: BufferAccess, dst: BufferAccess) -> None:
        m, n = src.sizes[-2], src.sizes[-1]
        if ascend_space(dst.buffer.type) == MemorySpace.L1:
            # Into L1 for the cube: the NZ layout (CFG_NZ), rows R apart.
            assert isinstance(dst.buffer.type, MemRefType)
            types = f"{cpp_type(dst.buffer.type.element_type)}, {cpp_type(src.buffer.type.element_type)}"
            params = fixpipe_params(op, n, m, m, dst.buffer.type.get_shape()[-2])
            return self.emit(
                f"AscendC::Fixpipe<{types}, AscendC::CFG_NZ>({self.nz_tensor(dst)}, "
                f"{self.tensor(src)}, {params});"
            )
        layout = tile_layout(dst)
        dst_stride = n if layout is None or layout.contiguous else layout.row_stride
        params = fixpipe_params(op, n, m, m, dst_stride)
        self.emit(f"AscendC::Fixpipe({self.tensor(dst)}, {self.tensor(src)}, {params});")

    def _mmad(self, op: ascend.MmadOp, accesses: dict[str, BufferAccess]) -> None:
        m, n, k = op.mnk
        init = "false" if op.init is None else self.expr(op.init)
        # The 6-argument constructor (m, n, k, unitFlag, cmatrixSource,
        # cmatrixInitVal): the real MmadParams is not an aggregate.
        params = f"{m}, {n}, {k}, 0, false, {init}"
        self.emit(
            f"AscendC::Mmad({self.tensor(accesses['c'])}, {self.tensor(accesses['a'])}, "
            f"{self.tensor(accesses['b'])}, AscendC::MmadParams({params}));"
        )


# The fixpipe's quantization by destination element type (doc asc_copy_l0c2gm:
# F322F16, F322BF16; an f32 destination moves unconverted).
_QUANT_MODES = {"f16": "F322F16", "bf16": "F322BF16"}


def fixpipe_params(op: ascend.FixpipeOp, n, m, src_stride, dst_stride) -> str:
    """``FixpipeParamsV220`` of a move out of L0C: the 5-argument constructor (nSize,
    mSize, srcStride, dstStride, reluEn) -- the real struct is not an aggregate -- or,
    when the move converts, the 11-argument one that also sets ``quantPre`` (deqScalar
    0, one ND matrix, no unit flag)."""
    head = f"{n}, {m}, {src_stride}, {dst_stride}, false"
    quant = _QUANT_MODES.get(str(op.element_type("dst")))
    if quant is None:
        return f"AscendC::FixpipeParamsV220({head})"
    return f"AscendC::FixpipeParamsV220({head}, QuantMode_t::{quant}, 0, 1, 0, 0, 0)"


def _c0(buffer_type: MemRefType) -> int:
    """Elements of one 32-byte block (the inner dimension of an NZ fractal)."""
    return 32 // element_bytes(buffer_type.element_type)


def _indexed(tensor: str, extra: str) -> str:
    """``tensor`` advanced by ``extra`` more elements."""
    if tensor.endswith("]"):
        return f"{tensor[:-1]} + {extra}]"
    return f"{tensor}[{extra}]"
