"""What names in a ``@T.prim_func`` body stand for while the frontend builds IR.

A name is either a compile-time Python value (an ``int`` block size, a dtype
string, a closure constant) or one of the run-time values below: an index
(:class:`Index`, e.g. a block id or a loop variable), a buffer
(:class:`Buffer`, a kernel parameter or an allocation) or a region of one
(:class:`Region`, ``A[by * 128, k * 64]`` or ``A[0:64, :]``).  Keeping the
compile-time values plain Python is what lets ``T.ceildiv(N, block_N)`` and
``if trans_A:`` be ordinary Python, as in TileLang.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, SSAValue

from tilepipe.language.errors import FrontendError

DTYPES: dict[str, Attribute] = {
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    "bool": IntegerType(1),
}
ALIASES = {"half": "float16", "float": "float32", "fp16": "float16", "fp32": "float32",
           "bf16": "bfloat16", "double": "float64"}
FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}
INT_RANK = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4}


def dtype_name(dtype: object) -> str:
    """The canonical name of a dtype given as TileLang does (``"float16"``,
    ``T.float16``, ``"half"``)."""
    name = str(dtype)
    name = ALIASES.get(name, name)
    if name not in DTYPES:
        known = ", ".join(DTYPES)
        raise FrontendError(f"unknown dtype {dtype!r} (tilepipe supports {known})")
    return name


def element_type(dtype: str) -> Attribute:
    return DTYPES[dtype_name(dtype)]


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_RANK


def promote(a: str, b: str) -> str:
    """The dtype a binary op of ``a`` and ``b`` computes in: the wider float, a
    float over an integer, the wider integer (TVM errors on a mismatch instead;
    tilepipe promotes, documented in docs/language.md)."""
    if a == b:
        return a
    if is_float(a) and is_float(b):
        if {a, b} == {"float16", "bfloat16"}:
            return "float32"
        return a if FLOAT_RANK[a] > FLOAT_RANK[b] else b
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    return a if INT_RANK[a] > INT_RANK[b] else b


@dataclass(eq=False)
class Index:
    """A run-time ``index`` value (block id, loop variable, or arithmetic on them)."""

    value: SSAValue

    def __bool__(self) -> bool:
        raise FrontendError(
            "a run-time index has no Python truth value; compare it inside an `if` "
            "statement (which becomes scf.if) or use T.if_then_else in T.Parallel"
        )

    def __index__(self) -> int:
        raise FrontendError("a run-time index cannot be used where Python needs an int")


@dataclass(eq=False)
class Condition:
    """A run-time ``i1`` comparison of indices, the condition of an ``scf.if``."""

    value: SSAValue

    def __bool__(self) -> bool:
        raise FrontendError(
            "a run-time comparison has no Python truth value here; use it as the "
            "condition of an `if` statement"
        )


@dataclass(eq=False)
class Buffer:
    """A memref: a kernel parameter (global) or an allocation (``scope``)."""

    name: str
    value: SSAValue
    shape: tuple[int, ...]
    dtype: str
    scope: str
    packed_from: int | None = None
    """A tensor indexed ``[..., rows, h, :]``: its dimensions from this one on are
    packed into the memref's last (:mod:`tilepipe.language.layouts`)."""
    logical_shape: tuple[int, ...] | None = None  # the user's shape, when packed

    @property
    def memref_type(self) -> MemRefType:
        assert isinstance(self.value.type, MemRefType)
        return self.value.type

    @property
    def on_chip(self) -> bool:
        return self.scope not in ("global", "gm")

    def __str__(self) -> str:
        return f"{self.name} ({'x'.join(map(str, self.shape))} {self.dtype}, {self.scope})"


Offset = int | Index


@dataclass(eq=False)
class Region:
    """``buffer[starts...]`` (TileLang's BufferLoad: a corner, extent from the other
    side of a copy) or ``buffer[a:b, ...]`` (a BufferRegion with ``extents``)."""

    buffer: Buffer
    starts: tuple[Offset, ...]
    extents: tuple[int | None, ...] = field(default=())

    @property
    def has_extents(self) -> bool:
        return any(e is not None for e in self.extents)
