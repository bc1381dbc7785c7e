"""``import tilepipe.language as T``: TileLang's kernel language on tilepipe.

A kernel is a Python function decorated with :func:`prim_func`, written as in
TileLang (``T.Kernel``, ``T.alloc_shared``, ``T.copy``, ``T.gemm``,
``T.Pipelined``, ``T.Parallel``, ...).  The frontend (:mod:`.frontend`) reads
its source with Python's ``ast`` module and builds tile-level xDSL IR directly, every op
located at the user's line; :func:`tilepipe.compile` / :func:`tilepipe.jit`
(:mod:`.jit`) compile it through tilepipe's full flow and run it in the
interpreter.  docs/language.md lists every name and how it differs from TileLang.

The functions below that build IR (``copy``, ``gemm``, ...) only mean something
inside a ``@T.prim_func`` body, where the frontend interprets the call; called
from plain Python they raise :class:`TypeError`.  The rest (``Tensor``,
``Kernel``, ``Pipelined``, ``Parallel``, ``serial``, ``ceildiv``, dtypes) are
ordinary values the frontend reads.
"""

from __future__ import annotations

from tilepipe.language.errors import LanguageError
from tilepipe.language.namespace import (  # noqa: F401 (the T namespace)
    Buffer,
    Cast,
    GemmWarpPolicy,
    Kernel,
    Parallel,
    Pipelined,
    Tensor,
    abs,
    Fragment,
    Layout,
    alloc_L0A,
    annotate_layout,
    atomic_add,
    floordiv,
    floormod,
    alloc_L0B,
    alloc_L0C,
    alloc_L1,
    barrier_all,
    gemm_v0,
    Scope,
    tile,
    alloc_fragment,
    alloc_local,
    alloc_shared,
    alloc_ub,
    bfloat16,
    bool_,
    cast,
    ceildiv,
    clear,
    const,
    copy,
    double,
    dynamic,
    empty,
    exp,
    exp2,
    bfloat,
    fill,
    float,
    float16,
    float32,
    float64,
    gemm,
    half,
    if_then_else,
    infinity,
    int,
    int16,
    int32,
    int64,
    int8,
    log,
    log2,
    log10,
    exp10,
    sqrt,
    rsqrt,
    dtype,
    long,
    max,
    min,
    reduce_max,
    reduce_min,
    reduce_sum,
    Serial,
    serial,
    symbolic,
    unroll,
    use_swizzle,
)
from tilepipe.language.macros import macro
from tilepipe.language.program import PrimFunc, prim_func

__all__ = [
    "Buffer", "Cast", "GemmWarpPolicy", "Kernel", "LanguageError", "Parallel", "Pipelined",
    "PrimFunc", "Serial", "Tensor", "abs", "Fragment", "Layout", "annotate_layout", "atomic_add", "macro", "floordiv", "floormod", "alloc_L0A", "alloc_L0B", "alloc_L0C", "alloc_L1", "barrier_all", "gemm_v0", "Scope", "tile", "alloc_fragment", "alloc_local",
    "alloc_shared", "alloc_ub", "bfloat", "bfloat16", "bool_", "cast", "ceildiv", "clear",
    "const", "copy", "double", "dynamic", "empty", "exp", "exp2", "fill", "float", "float16",
    "float32", "float64", "gemm", "half", "if_then_else", "infinity", "int", "int16", "int32",
    "int64", "int8", "log", "log2", "log10", "exp10", "sqrt", "rsqrt", "dtype", "long", "max", "min", "prim_func", "reduce_max", "reduce_min",
    "reduce_sum", "serial", "symbolic", "unroll", "use_swizzle",
]


def __getattr__(name: str) -> object:
    from tilepipe.language.namespace import UNSUPPORTED

    if name in UNSUPPORTED:
        raise AttributeError(f"T.{name} is not supported by tilepipe: {UNSUPPORTED[name]}")
    raise AttributeError(f"module 'tilepipe.language' has no attribute '{name}' "
                         "(docs/language.md lists the supported T.* names)")
