"""The names of ``tilepipe.language`` (``T``) but :func:`prim_func`: the values a
kernel's body reads (``T.Tensor``, ``T.Kernel``, ``T.Pipelined``, ...) and the
intrinsics the frontend interprets (``T.copy``, ``T.gemm``, ...).  Their own module so
that the frontend can recognize them without importing the package, which imports the
frontend (through :mod:`.program`)."""


from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


float16, bfloat16, float32, float64 = "float16", "bfloat16", "float32", "float64"
int8, int16, int32, int64, bool_ = "int8", "int16", "int32", "int64", "bool"


@dataclass(frozen=True)
class TensorSpec:
    """A kernel parameter's type: ``T.Tensor((M, K), "float16")``."""

    shape: tuple[Any, ...]
    dtype: str = "float32"


def Tensor(shape: Sequence[Any] | int, dtype: str = "float32") -> TensorSpec:  # noqa: N802
    """A global-memory tensor parameter of static (``int``) or symbolic
    (:func:`symbolic`) sizes."""
    shape = (shape,) if not isinstance(shape, list | tuple) else tuple(shape)
    return TensorSpec(shape, str(dtype))


Buffer = Tensor


@dataclass(frozen=True)
class SymbolicDim:
    """A size known only at run time (``T.symbolic("M")``): a ``?`` in the memref
    type, read with ``memref.dim`` where the kernel uses it."""

    name: str
    dtype: str = "int32"


def symbolic(name: str, dtype: str = "int32") -> SymbolicDim:
    return SymbolicDim(name, dtype)


dynamic = symbolic


@dataclass
class KernelSpec:
    """``T.Kernel(*grid, threads=)``: the launch grid (x first) and block size."""

    grid: tuple[Any, ...]
    threads: Any = 128
    options: dict[str, Any] = field(default_factory=dict)


def Kernel(*grid: Any, threads: Any = 128, **options: Any) -> KernelSpec:  # noqa: N802
    return KernelSpec(tuple(grid), threads, options)


@dataclass
class LoopSpec:
    """The iterator of a ``for``: ``kind`` is pipelined, serial or parallel."""

    kind: str
    start: Any
    stop: Any
    step: Any = 1
    num_stages: int | None = None
    order: Sequence[int] | None = None
    stage: Sequence[int] | None = None
    extents: tuple[Any, ...] = ()


def Pipelined(start: Any, stop: Any = None, num_stages: int = 0,  # noqa: N802
              order: Sequence[int] | None = None, stage: Sequence[int] | None = None,
              sync: Any = None, group: Any = None) -> LoopSpec:
    """A software-pipelined loop (``pipeline.for``): ``num_stages``, or explicit
    per-statement ``stage``/``order`` lists (``sync``/``group`` are TileLang's
    hand-scheduling hints; tilepipe plans sync itself and ignores them)."""
    if stop is None:
        start, stop = 0, start
    return LoopSpec("pipelined", start, stop, 1, num_stages, order, stage)


def serial(start: Any, stop: Any = None, step: Any = None) -> LoopSpec:
    """A sequential loop (``scf.for``)."""
    if stop is None:
        start, stop = 0, start
    return LoopSpec("serial", start, stop, 1 if step is None else step)


unroll = serial


def Parallel(*extents: Any, coalesced_width: Any = None) -> LoopSpec:  # noqa: N802
    """Element-wise loop over a tile; its body becomes whole-tile ops."""
    return LoopSpec("parallel", 0, None, extents=tuple(extents))


def ceildiv(a: Any, b: Any) -> Any:
    """``(a + b - 1) // b``: Python arithmetic on numbers; on run-time sizes inside
    a kernel the frontend emits ``arith.ceildivui``."""
    return -(-a // b)


def infinity(dtype: str = "float32") -> float:
    return math.inf


class GemmWarpPolicy(enum.Enum):
    """Accepted for TileLang compatibility; tilepipe's lowering picks its own warp layout."""

    Square = 0
    FullRow = 1
    FullCol = 2


def _intrinsic(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn`` as a statement or expression the frontend interprets."""

    def outside(*args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"T.{fn.__name__} can only be used inside a @T.prim_func kernel")

    outside.__name__, outside.__doc__ = fn.__name__, fn.__doc__
    outside.__wrapped__ = fn  # type: ignore[attr-defined]
    outside.__tilepipe_intrinsic__ = fn.__name__  # type: ignore[attr-defined]
    return outside


@_intrinsic
def alloc_shared(shape: Any, dtype: str, scope: str = "shared.dyn") -> Any:
    """A buffer in shared memory (``"shared"``), or the Ascend space ``scope`` names."""


@_intrinsic
def alloc_fragment(shape: Any, dtype: str, scope: str = "local.fragment") -> Any:
    """A buffer in registers, distributed over the block's threads (``"fragment"``)."""


@_intrinsic
def alloc_local(shape: Any, dtype: str, scope: str = "local") -> Any:
    """Per-thread registers (``"local"``)."""


@_intrinsic
def alloc_L1(shape: Any, dtype: str) -> Any:  # noqa: N802
    """Ascend L1 buffer."""


@_intrinsic
def alloc_ub(shape: Any, dtype: str) -> Any:
    """Ascend unified buffer."""


@_intrinsic
def copy(src: Any, dst: Any, coalesced_width: Any = None, disable_tma: bool = False) -> None:
    """Copy a tile; the extent is the destination's (a corner ``A[i, j]`` takes the
    other side's)."""


@_intrinsic
def gemm(A: Any, B: Any, C: Any, transpose_A: bool = False, transpose_B: bool = False,  # noqa: N803
         policy: Any = None, clear_accum: bool = False, k_pack: int = 1, wg_wait: int = 0) -> None:
    """``C += op(A) @ op(B)``; ``policy``/``k_pack``/``wg_wait`` are accepted and ignored."""


@_intrinsic
def fill(buffer: Any, value: Any) -> None:
    """Fill a buffer with a number."""


@_intrinsic
def clear(buffer: Any) -> None:
    """Fill a buffer with zeros."""


@_intrinsic
def reduce_max(buffer: Any, out: Any, dim: int = -1, clear: bool = True) -> None:
    """Row/column maximum; ``clear=False`` keeps the max with ``out``'s old values."""


@_intrinsic
def reduce_sum(buffer: Any, out: Any, dim: int = -1, clear: bool = True) -> None:
    """Row/column sum; ``clear=False`` adds to ``out``."""


@_intrinsic
def reduce_min(buffer: Any, out: Any, dim: int = -1, clear: bool = True) -> None:
    """Row/column minimum (``-max(-x)``)."""


@_intrinsic
def use_swizzle(panel_size: int = 10, order: str = "row", enable: bool = True) -> None:
    """Block rasterization hint: a no-op in tilepipe (results are unchanged)."""


@_intrinsic
def exp(x: Any) -> Any:
    """``e**x`` (T.Parallel bodies)."""


@_intrinsic
def exp2(x: Any) -> Any:
    """``2**x`` computed as ``exp(x * ln 2)``."""


@_intrinsic
def log(x: Any) -> Any:
    """Not supported by the tile dialect: a clear error."""


@_intrinsic
def abs(x: Any) -> Any:  # noqa: A001
    """``max(x, -x)``."""


@_intrinsic
def max(a: Any, b: Any) -> Any:  # noqa: A001
    """Element-wise maximum (or Python's on numbers)."""


@_intrinsic
def min(a: Any, b: Any) -> Any:  # noqa: A001
    """Element-wise minimum, ``-max(-a, -b)``."""


@_intrinsic
def if_then_else(cond: Any, then_value: Any, else_value: Any) -> Any:
    """Select: on compile-time conditions only (the dialect has no select)."""


@_intrinsic
def cast(value: Any, dtype: str) -> Any:
    """Convert an element (``tile.cast``)."""


@_intrinsic
def Cast(dtype: str, value: Any) -> Any:  # noqa: N802
    """TVM's argument order of :func:`cast`."""
