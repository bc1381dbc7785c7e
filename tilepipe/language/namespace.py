"""The names of ``tilepipe.language`` (``T``) but :func:`prim_func`: the values a
kernel's body reads (``T.Tensor``, ``T.Kernel``, ``T.Pipelined``, ...) and the
intrinsics the frontend interprets (``T.copy``, ``T.gemm``, ...).  Their own module so
that the frontend can recognize them without importing the package, which imports the
frontend (through :mod:`.program`)."""


from __future__ import annotations

import builtins
import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


class dtype(str):  # noqa: N801 - TileLang's name (``dtype: T.dtype = T.float16``)
    """An element type: its name as a string, and callable as TileLang's dtypes are
    (``T.float32(1.0)`` is the number as that type, at compile time)."""

    def __call__(self, value: Any) -> Any:
        # builtins.*: this module rebinds int and float to dtypes (at its end)
        if isinstance(value, builtins.bool | builtins.int | builtins.float):
            return builtins.float(value) if self.startswith(("float", "bfloat")) else builtins.int(value)
        raise TypeError(f"T.{self}(...) takes a number, got {type(value).__name__}")


float16, bfloat16, float32, float64 = (dtype(n) for n in ("float16", "bfloat16", "float32", "float64"))
int8, int16, int32, int64, bool_ = (dtype(n) for n in ("int8", "int16", "int32", "int64", "bool"))


@dataclass(frozen=True)
class TensorSpec:
    """A kernel parameter's type: ``T.Tensor((M, K), "float16")``."""

    shape: tuple[Any, ...]
    dtype: str = "float32"


class _TensorType:
    """``T.Tensor((M, K), dtype)`` or ``T.Tensor[[M, K], dtype]``: a global-memory
    tensor of static (``int``) or symbolic (:func:`symbolic`, :func:`const`) sizes."""

    def __call__(self, shape: Sequence[Any] | Any, dtype: str = "float32") -> TensorSpec:
        shape = (shape,) if not isinstance(shape, list | tuple) else tuple(shape)
        return TensorSpec(shape, str(dtype))

    def __getitem__(self, item: Any) -> TensorSpec:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], list | tuple):
            return self(item[0], item[1])
        return self(item)


Tensor = _TensorType()
Buffer = Tensor


@dataclass(frozen=True)
class EmptySpec(TensorSpec):
    """``C = T.empty((M, N), dtype)``: an output tensor of an eager ``@tilepipe.jit``
    kernel, allocated by the call and returned."""


def empty(*shape: Any, dtype: str = "float32") -> EmptySpec:
    """``T.empty((M, N), dtype)``, ``T.empty((M, N), dtype=...)`` or ``T.empty(M, N)``."""
    if len(shape) == 2 and isinstance(shape[0], list | tuple) and isinstance(shape[1], str):
        return EmptySpec(tuple(shape[0]), shape[1])
    if len(shape) == 1 and isinstance(shape[0], list | tuple):
        return EmptySpec(tuple(shape[0]), str(dtype))
    return EmptySpec(tuple(shape), str(dtype))


def const(names: str, dtype: str = "int32") -> Any:
    """``M, N = T.const("M, N")``: sizes of an eager ``@tilepipe.jit`` kernel, given
    to ``.compile(M=...)`` or read from the shapes of the tensors it is called with.
    Outside such a kernel (and for a size neither gives) each is a run-time size,
    as :func:`symbolic`."""
    parts = [p for p in names.replace(",", " ").split() if p]
    dims = tuple(SymbolicDim(p, dtype) for p in parts)
    return dims[0] if len(dims) == 1 else dims


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


unroll = Serial = serial


def Parallel(*extents: Any, coalesced_width: Any = None) -> LoopSpec:  # noqa: N802
    """Element-wise loop over a tile; its body becomes whole-tile ops."""
    return LoopSpec("parallel", 0, None, extents=tuple(extents))


def ceildiv(a: Any, b: Any) -> Any:
    """``(a + b - 1) // b``: Python arithmetic on numbers; on run-time sizes inside
    a kernel the frontend emits ``arith.ceildivui``."""
    return -(-a // b)


def floordiv(a: Any, b: Any) -> Any:
    """``a // b`` (Python on numbers; the frontend emits ``arith.floordivsi`` on indices)."""
    return a // b


def floormod(a: Any, b: Any) -> Any:
    """``a % b`` (Python on numbers; ``arith.remsi`` on indices)."""
    return a % b


@dataclass(frozen=True)
class LayoutSpec:
    """``T.Layout``/``T.Fragment``: a layout TileLang's lowering would use; tilepipe
    chooses its own (swizzled shared tiles, mma fragments), so it is only a value."""

    shape: Any = None
    forward: Any = None


def Layout(shape: Any = None, forward_fn: Any = None, **_options: Any) -> LayoutSpec:  # noqa: N802
    return LayoutSpec(shape, forward_fn)


Fragment = Layout


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
def alloc_L0A(shape: Any, dtype: str) -> Any:  # noqa: N802
    """Ascend L0A buffer (a cube operand)."""


@_intrinsic
def alloc_L0B(shape: Any, dtype: str) -> Any:  # noqa: N802
    """Ascend L0B buffer (a cube operand)."""


@_intrinsic
def alloc_L0C(shape: Any, dtype: str) -> Any:  # noqa: N802
    """Ascend L0C buffer (the cube's accumulator)."""


@_intrinsic
def gemm_v0(A: Any, B: Any, C: Any, transpose_A: bool = False, transpose_B: bool = False,  # noqa: N803
            init: Any = False) -> None:
    """tilelang-ascend's cube gemm: A, B in L1 (staged through L0A/L0B), C in L0C;
    ``init`` zero-fills C first."""


@_intrinsic
def barrier_all() -> None:
    """tilelang-ascend's PIPE_ALL barrier: nothing on tilepipe, which synchronizes
    the pipes itself."""


@dataclass
class ScopeSpec:
    """``with T.Scope("C")`` / ``"V"``: tilelang-ascend's cube or vector section."""

    name: str


def Scope(name: str) -> ScopeSpec:  # noqa: N802
    return ScopeSpec(name)


def _tile_intrinsic(op: str, binary: bool) -> Callable[..., Any]:
    """``T.tile.<op>``: the frontend calls its ``call_tile_op`` with the name."""
    if binary:
        def fn(dst: Any, src0: Any, src1: Any) -> None: ...
    else:
        def fn(dst: Any, src0: Any) -> None: ...  # type: ignore[misc]
    fn.__name__ = f"tile.{op}"
    fn.__doc__ = f"tilelang-ascend's ``T.tile.{op}(dst, src0{', src1' if binary else ''})``."
    return _intrinsic(fn)


class _AscendTile:
    """``T.tile``: tilelang-ascend's whole-buffer vector operations."""

    def __init__(self) -> None:
        for op in ("add", "sub", "mul", "div", "max", "min"):
            setattr(self, op, _tile_intrinsic(op, True))
        for op in ("exp", "ln", "sqrt", "rsqrt", "abs"):
            setattr(self, op, _tile_intrinsic(op, False))


tile = _AscendTile()


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
def atomic_add(dst: Any, value: Any, memory_order: Any = None, return_prev: bool = False,
               use_tma: bool = False) -> None:
    """``dst += value`` in global memory, each element atomically (``tile.atomic_add``):
    a region and a tile, or an element in a ``T.Parallel`` body."""


@_intrinsic
def annotate_layout(layout_map: Any, allow_reannotation: bool = False,
                    allow_buffer_region: bool = False) -> None:
    """A layout hint for TileLang's lowering: accepted, no effect (tilepipe chooses
    its layouts)."""


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
    """Natural logarithm (``tile.log``)."""


@_intrinsic
def log2(x: Any) -> Any:
    """``log(x) / ln 2``."""


@_intrinsic
def log10(x: Any) -> Any:
    """``log(x) / ln 10``."""


@_intrinsic
def exp10(x: Any) -> Any:
    """``exp(x * ln 10)``."""


@_intrinsic
def sqrt(x: Any) -> Any:
    """Square root (``tile.sqrt``)."""


@_intrinsic
def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)`` (``tile.rsqrt``)."""


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
    """``then_value`` where ``cond`` holds, else ``else_value``: Python on compile-time
    conditions, ``tile.select`` on element conditions, ``arith.select`` on indices."""


@_intrinsic
def cast(value: Any, dtype: str) -> Any:
    """Convert an element (``tile.cast``)."""


@_intrinsic
def Cast(dtype: str, value: Any) -> Any:  # noqa: N802
    """TVM's argument order of :func:`cast`."""


# TileLang names tilepipe does not offer, and why: ``T.<name>`` raises an
# AttributeError saying so, which the frontend reports at the user's line.
UNSUPPORTED = {
    "atomic_max": "the only atomic tile operation is T.atomic_add",
    "atomic_min": "the only atomic tile operation is T.atomic_add",
    "get_thread_binding": "thread-level programming is not tilepipe's model: a kernel is "
                          "tile statements (T.copy, T.gemm, T.Parallel ...) over the block",
    "thread_binding": "thread-level programming is not tilepipe's model",
    "alloc_var": "scalar variables are not supported; use a 1-element T.alloc_fragment",
    "Persistent": "persistent kernels are not supported; use T.Kernel over the whole grid",
    "call_extern": "external calls are not supported",
    "ptx_ldmatrix": "PTX intrinsics are chosen by tilepipe's lowering, not written by hand",
    "mma_sync": "PTX intrinsics are chosen by tilepipe's lowering, not written by hand",
}


# Last, as they shadow builtins: TileLang's short spellings of the same dtypes.
float, half, double, bfloat = float32, float16, float64, bfloat16  # noqa: A001
int, long = int32, int64  # noqa: A001
