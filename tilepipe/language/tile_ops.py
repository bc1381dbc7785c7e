"""The tile statements of ``tilepipe.language``: ``T.copy``, ``T.gemm``,
``T.fill``/``T.clear`` and the reductions, as tile-dialect ops.

Each function checks what TileLang checks (shapes, ranks, dtypes) and raises
:class:`FrontendError` with a message for the user; the walker locates it at the
call.  Regions follow tilepipe's tile rule (dialects/tile.py): a tile of rank r on
a buffer of rank R covers the trailing r dimensions from the offsets, size 1 in
the leading ones -- the same rule as TileLang's ``T.copy(A[b, i, 0], A_s)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue

from tilepipe.dialects import tile
from tilepipe.language.errors import FrontendError
from tilepipe.language.ir_builder import IRBuilder
from tilepipe.language.values import Buffer, Condition, Index, Offset, Region, element_type, is_float

Operand = Buffer | Region


def _shape(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape)


def offsets_of(b: IRBuilder, operand: Operand) -> tuple[Buffer, list[SSAValue]]:
    """The buffer of ``operand`` and its offset operands (none for a whole buffer)."""
    if isinstance(operand, Buffer):
        return operand, []
    return operand.buffer, [b.index(s) for s in operand.starts]


def region_extent(operand: Operand, other: Operand | None, what: str) -> tuple[int, ...]:
    """The tile shape of a copy-like statement: a whole buffer's shape, a sliced
    region's extents, or (a corner ``A[i, j]``) the other side's."""
    if isinstance(operand, Buffer):
        return operand.shape
    if operand.has_extents:
        return tuple(_squeeze([e if e is not None else 1 for e in operand.extents]))
    if other is None or (isinstance(other, Region) and not other.has_extents):
        raise FrontendError(
            f"{what}: both sides are corners (A[i, j]); give one side as a whole buffer "
            "or a slice (A[i:i + 64, j:j + 64]) so the extent is known"
        )
    return region_extent(other, None, what)


def _check_fits(operand: Operand, shape: tuple[int, ...], what: str) -> None:
    buffer = operand if isinstance(operand, Buffer) else operand.buffer
    if len(shape) > len(buffer.shape):
        raise FrontendError(
            f"{what}: a {_shape(shape)} tile does not fit the rank-{len(buffer.shape)} "
            f"buffer {buffer}"
        )
    if isinstance(operand, Buffer):
        if len(shape) != len(buffer.shape) or tuple(shape) != buffer.shape:
            trailing = buffer.shape[len(buffer.shape) - len(shape):]
            if tuple(trailing) != tuple(shape) or any(d != 1 for d in buffer.shape[: len(buffer.shape) - len(shape)]):
                raise FrontendError(
                    f"{what}: shape mismatch, {buffer} cannot hold the {_shape(shape)} tile "
                    "(copy a region of it instead: buf[i:i + n, ...])"
                )
        return
    if len(operand.starts) != len(buffer.shape):
        raise FrontendError(
            f"{what}: {buffer.name} has rank {len(buffer.shape)} but is indexed with "
            f"{len(operand.starts)} indices"
        )
    if buffer.on_chip:
        lead = len(buffer.shape) - len(shape)
        for d, start in enumerate(operand.starts):
            size = 1 if d < lead else shape[d - lead]
            if isinstance(start, int) and not 0 <= start <= buffer.shape[d] - size:
                raise FrontendError(
                    f"{what}: region [{start}, {start + size}) is out of bounds in dimension "
                    f"{d} of {buffer}"
                )


def _tile_shape(src: Operand, dst: Operand, what: str) -> tuple[int, ...]:
    """The tile a copy-like statement moves: the destination's extent (or the
    source's when the destination is a corner), checked against both sides."""
    if not isinstance(src, Buffer | Region) or not isinstance(dst, Buffer | Region):
        raise FrontendError(f"{what} takes buffers or regions of buffers (A[i, j])")
    shape = region_extent(dst, src, what)
    src_shape = region_extent(src, dst, what)
    if math.prod(src_shape) != math.prod(shape) or _squeeze(src_shape) != _squeeze(shape):
        raise FrontendError(
            f"{what}: shape mismatch, source tile {_shape(src_shape)} vs destination "
            f"tile {_shape(shape)}"
        )
    shape = tuple(_squeeze(shape))
    _check_fits(src, shape, f"{what} source")
    _check_fits(dst, shape, f"{what} destination")
    return shape


def atomic_add(b: IRBuilder, dst: Operand, src: Operand) -> None:
    """``T.atomic_add(dst, src)`` over a tile: ``dst += src`` in global memory, each
    element's update atomic (``tile.atomic_add``; several blocks may add into one
    region, as split-K GEMMs and attention's dQ do)."""
    shape = _tile_shape(src, dst, "T.atomic_add")
    src_buf, src_offs = offsets_of(b, src)
    dst_buf, dst_offs = offsets_of(b, dst)
    if src_buf.dtype != dst_buf.dtype:
        raise FrontendError(f"T.atomic_add: {src_buf} and {dst_buf} must have one dtype "
                            "(T.cast the value first)")
    b.insert(tile.AtomicAddOp(src_buf.value, src_offs, dst_buf.value, dst_offs, shape))


def copy(b: IRBuilder, src: Operand, dst: Operand) -> None:
    """``T.copy(src, dst)``: the extent is the destination's (or the source's when
    the destination is a corner); differing dtypes convert, as TileLang's copy does."""
    shape = _tile_shape(src, dst, "T.copy")
    src_buf, src_offs = offsets_of(b, src)
    dst_buf, dst_offs = offsets_of(b, dst)
    if src_buf.dtype == dst_buf.dtype:
        b.insert(tile.CopyOp(src_buf.value, src_offs, dst_buf.value, dst_offs, shape))
        return
    # A converting copy: tile.cast works on chip; stage through a temporary otherwise.
    if src_buf.on_chip and dst_buf.on_chip:
        b.insert(tile.CastOp(src_buf.value, src_offs, dst_buf.value, dst_offs, shape))
    elif src_buf.scope == "l0c":  # the Fixpipe converts on its way out of L0C
        b.insert(tile.CastOp(src_buf.value, src_offs, dst_buf.value, dst_offs, shape))
    elif src_buf.on_chip:
        staged = b.alloc(f"{dst_buf.name}_cast", shape, dst_buf.dtype, b.temp_scope)
        b.insert(tile.CastOp(src_buf.value, src_offs, staged.value, [], shape))
        b.insert(tile.CopyOp(staged.value, [], dst_buf.value, dst_offs, shape))
    else:
        staged = b.alloc(f"{src_buf.name}_load", shape, src_buf.dtype, b.temp_scope)
        b.insert(tile.CopyOp(src_buf.value, src_offs, staged.value, [], shape))
        if dst_buf.on_chip:
            b.insert(tile.CastOp(staged.value, [], dst_buf.value, dst_offs, shape))
        else:  # global to global: load, convert on chip, store
            converted = b.alloc(f"{dst_buf.name}_cast", shape, dst_buf.dtype, b.temp_scope)
            b.insert(tile.CastOp(staged.value, [], converted.value, [], shape))
            b.insert(tile.CopyOp(converted.value, [], dst_buf.value, dst_offs, shape))


def _squeeze(shape: Sequence[int]) -> list[int]:
    """``shape`` without leading 1s (the region rule adds them back)."""
    dims = list(shape)
    while len(dims) > 1 and dims[0] == 1:
        dims.pop(0)
    return dims


def _whole(operand: object, what: str) -> Buffer:
    if isinstance(operand, Buffer):
        return operand
    raise FrontendError(f"{what} takes a whole buffer here (T.alloc_shared/alloc_fragment)")


def gemm(
    b: IRBuilder, a: object, bm: object, c: object, transpose_A: bool, transpose_B: bool,
    clear_accum: bool,
) -> None:
    """``T.gemm(A, B, C)``: ``C += op(A) op(B)`` on whole on-chip buffers."""
    a_buf, b_buf, c_buf = (_whole(x, "T.gemm") for x in (a, bm, c))
    for buf, role in ((a_buf, "A"), (b_buf, "B"), (c_buf, "C")):
        if len(buf.shape) != 2:
            raise FrontendError(f"T.gemm: {role} = {buf} must be 2-D")
    m, k = a_buf.shape[::-1] if transpose_A else a_buf.shape
    k2, n = b_buf.shape[::-1] if transpose_B else b_buf.shape
    if k != k2 or c_buf.shape != (m, n):
        raise FrontendError(
            f"T.gemm: shape mismatch: A is {_shape(a_buf.shape)}"
            f"{' (transposed)' if transpose_A else ''}, B is {_shape(b_buf.shape)}"
            f"{' (transposed)' if transpose_B else ''}, C is {_shape(c_buf.shape)}; "
            f"need A {m}x{k}, B {k}x{n}, C {m}x{n}"
        )
    if clear_accum:
        fill(b, c_buf, 0)
    b.insert(tile.GemmOp(a_buf.value, [], b_buf.value, [], c_buf.value, [], (m, n, k),
                         transpose_a=transpose_A, transpose_b=transpose_B))


def fill(b: IRBuilder, dst: object, value: object) -> None:
    """``T.fill(buf, value)`` / ``T.clear(buf)``: a scalar of the buffer's dtype."""
    if isinstance(dst, Region):
        shape = region_extent(dst, None, "T.fill")
    elif isinstance(dst, Buffer):
        shape = dst.shape
    else:
        raise FrontendError("T.fill/T.clear take a buffer")
    buf, offs = offsets_of(b, dst)
    if not buf.on_chip:
        raise FrontendError(
            f"T.fill: {buf} is in global memory; fill an on-chip buffer and T.copy it out"
        )
    b.insert(tile.FillOp(scalar(b, value, buf.dtype), buf.value, offs, _squeeze(shape)))


def scalar(b: IRBuilder, value: object, dtype: str) -> SSAValue:
    if isinstance(value, bool | int | float):
        if not is_float(dtype) and isinstance(value, float) and not value.is_integer():
            raise FrontendError(f"{value} is not a {dtype} value")
        return b.constant(value, element_type(dtype))
    if isinstance(value, Index):  # a run-time index as an element: converted, signed
        elem = element_type(dtype)
        if is_float(dtype):
            wide = b.pure(arith.IndexCastOp(value.value, i64), ("index_cast", value.value, i64))
            return b.pure(arith.SIToFPOp(wide, elem), ("sitofp", wide, elem))
        return b.pure(arith.IndexCastOp(value.value, elem), ("index_cast", value.value, elem))
    if isinstance(value, Condition):  # a run-time condition as an element: 1 or 0
        one, zero = scalar(b, 1, dtype), scalar(b, 0, dtype)
        return b.pure(arith.SelectOp(value.value, one, zero), ("select", value.value, one, zero))
    raise FrontendError(f"expected a number, got {type(value).__name__}")


def reduce(b: IRBuilder, kind: str, src: object, dst: object, dim: int, clear: bool) -> None:
    """``T.reduce_{max,sum,min}(src, dst, dim, clear)``.  tile.reduce has sum and
    max: min is ``-max(-x)`` (negation is exact); ``clear=False`` combines with
    the old ``dst`` through a temporary."""
    src_buf, dst_buf = _whole(src, f"T.reduce_{kind}"), _whole(dst, f"T.reduce_{kind}")
    rank = len(src_buf.shape)
    axis = dim + rank if dim < 0 else dim
    if not 0 <= axis < rank:
        raise FrontendError(f"T.reduce_{kind}: dim={dim} is out of range for {src_buf}")
    expected = src_buf.shape[:axis] + src_buf.shape[axis + 1:]
    if _squeeze(dst_buf.shape) != _squeeze(expected or (1,)):
        raise FrontendError(
            f"T.reduce_{kind}: shape mismatch, reducing {src_buf} along dim {dim} gives "
            f"{_shape(expected)}, but the destination is {dst_buf}"
        )
    if src_buf.dtype != dst_buf.dtype:
        raise FrontendError(
            f"T.reduce_{kind}: {src_buf.name} is {src_buf.dtype} but {dst_buf.name} is "
            f"{dst_buf.dtype}; T.copy into a {dst_buf.dtype} buffer first"
        )
    if rank == 1:
        raise FrontendError(
            f"T.reduce_{kind}: reducing a 1-D buffer to a scalar is not supported yet "
            "(tile.reduce keeps at least one dimension); reduce a 2-D tile"
        )
    source = src_buf
    if kind == "min":
        source = b.alloc(f"{src_buf.name}_neg", src_buf.shape, src_buf.dtype, src_buf.scope)
        _negate(b, src_buf, source)
    target = dst_buf if clear else b.alloc(f"{dst_buf.name}_part", dst_buf.shape, dst_buf.dtype, dst_buf.scope)
    b.insert(tile.ReduceOp(source.value, [], target.value, [], src_buf.shape, axis,
                           "sum" if kind == "sum" else "max"))
    if kind == "min":
        _negate(b, target, target)
    if not clear:
        combine = {"sum": tile.AddOp, "max": tile.MaxOp}.get(kind)
        if combine is None:  # min(dst, part) = -max(-dst, -part)
            _negate(b, dst_buf, dst_buf)
            _negate(b, target, target)
            b.insert(tile.MaxOp(dst_buf.value, [], target.value, [], dst_buf.value, [], dst_buf.shape))
            _negate(b, dst_buf, dst_buf)
        else:
            b.insert(combine(dst_buf.value, [], target.value, [], dst_buf.value, [], dst_buf.shape))


def _negate(b: IRBuilder, src: Buffer, dst: Buffer) -> None:
    minus_one = b.alloc(f"{src.name}_minus_one", src.shape, src.dtype, src.scope)
    b.insert(tile.FillOp(scalar(b, -1, src.dtype), minus_one.value, [], src.shape))
    b.insert(tile.MulOp(src.value, [], minus_one.value, [], dst.value, [], src.shape))
