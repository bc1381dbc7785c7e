"""The ``T.*`` statements and expressions the statement walker interprets: one
``call_<name>`` per intrinsic of :mod:`.namespace` (the walker binds the call's
arguments to the intrinsic's signature first, then calls it with the user's line
as the location of everything it emits).  Allocation, copies, gemms, fills and
reductions build tile ops (:mod:`.tile_ops`); element math builds ``T.Parallel``
expressions (:mod:`.parallel`).  tilelang-ascend's are in :mod:`.ascend_calls`.
"""

from __future__ import annotations

import ast
from typing import Any

from tilepipe.language import parallel, tile_ops
from tilepipe.language.errors import FrontendError
from tilepipe.language.expressions import is_runtime
from tilepipe.language.values import Buffer, Condition, Index, dtype_name

SCOPES = {"shared": "shared", "shared.dyn": "shared", "local.fragment": "fragment",
          "local": "local", "L1": "l1", "l1": "l1", "ub": "ub", "UB": "ub", "L0A": "l0a",
          "L0B": "l0b", "L0C": "l0c", "l0a": "l0a", "l0b": "l0b", "l0c": "l0c"}
ASCEND_SCOPES = {"l1", "ub", "l0a", "l0b", "l0c"}
UNARY_MATH = frozenset({"exp", "exp2", "exp10", "log", "log2", "log10", "sqrt", "rsqrt"})


class TileCalls:
    """Mixed into the statement walker, which provides ``b``, ``ascend``, ``target``,
    ``node``, ``prim``, ``parallel``, ``cube_roles`` and ``cube_gemm``."""

    b: Any
    ascend: bool
    target: str
    node: ast.AST | None
    prim: Any
    parallel: Any
    cube_roles: dict[str, str]

    def _alloc(self, shape: Any, dtype: Any, scope: str, what: str = "T.alloc_shared") -> Buffer:
        if scope in ASCEND_SCOPES and not self.ascend:
            # Mixed targets: said here, at the call, in the user's terms -- not as the
            # verifier's memory-space error about a memref.alloc.
            raise FrontendError(
                f"{what} allocates in Ascend's {scope.upper()} buffer, which {self.target} "
                "does not have: a CUDA kernel allocates with T.alloc_shared, "
                "T.alloc_fragment or T.alloc_local (or compile it with target=\"ascend910b\")"
            )
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or any(not isinstance(d, int) or d <= 0 for d in shape):
            raise FrontendError(f"allocation shape {shape} must be positive compile-time ints")
        name = self._target_name() or "buf"
        return self.b.alloc(name, shape, dtype_name(dtype), scope)

    def _target_name(self) -> str | None:
        stmt = self.node
        for candidate in ast.walk(self.prim.tree):
            if isinstance(candidate, ast.Assign) and self.node is not None and candidate.value is stmt:
                target = candidate.targets[0]
                return target.id if isinstance(target, ast.Name) else None
        return None

    def call_alloc_shared(self, shape: Any, dtype: Any, scope: str) -> Buffer:
        if self.ascend:
            return self._alloc(shape, dtype, self.cube_roles.get(self._target_name() or "", "ub"))
        return self._alloc(shape, dtype, SCOPES.get(scope, "shared"))

    def call_alloc_fragment(self, shape: Any, dtype: Any, scope: str) -> Buffer:
        if self.ascend:
            return self._alloc(shape, dtype, self.cube_roles.get(self._target_name() or "", "ub"))
        return self._alloc(shape, dtype, "fragment")

    def call_alloc_local(self, shape: Any, dtype: Any, scope: str) -> Buffer:
        return self._alloc(shape, dtype, "ub" if self.ascend else "local")

    def call_alloc_L1(self, shape: Any, dtype: Any) -> Buffer:  # noqa: N802
        return self._alloc(shape, dtype, "l1", "T.alloc_L1")

    def call_alloc_ub(self, shape: Any, dtype: Any) -> Buffer:
        return self._alloc(shape, dtype, "ub", "T.alloc_ub")

    def call_copy(self, src: Any, dst: Any, coalesced_width: Any, disable_tma: Any) -> None:
        tile_ops.copy(self.b, src, dst)

    def call_gemm(self, A: Any, B: Any, C: Any, transpose_A: Any, transpose_B: Any,  # noqa: N803
                  policy: Any, clear_accum: Any, k_pack: Any, wg_wait: Any) -> None:
        if self.ascend and isinstance(A, Buffer) and A.scope == "l1":
            self.cube_gemm(A, B, C, bool(transpose_A), bool(transpose_B), bool(clear_accum))
            return
        tile_ops.gemm(self.b, A, B, C, bool(transpose_A), bool(transpose_B), bool(clear_accum))

    def call_fill(self, buffer: Any, value: Any) -> None:
        tile_ops.fill(self.b, buffer, value)

    def call_clear(self, buffer: Any) -> None:
        tile_ops.fill(self.b, buffer, 0)

    def _reduce(self, kind: str, buffer: Any, out: Any, dim: Any, clear: Any) -> None:
        tile_ops.reduce(self.b, kind, buffer, out, int(dim), bool(clear))

    def call_reduce_max(self, **kw: Any) -> None:
        self._reduce("max", **kw)

    def call_reduce_sum(self, **kw: Any) -> None:
        self._reduce("sum", **kw)

    def call_reduce_min(self, **kw: Any) -> None:
        self._reduce("min", **kw)

    def call_atomic_add(self, dst: Any, value: Any, memory_order: Any, return_prev: Any,
                        use_tma: Any) -> None:
        if return_prev:
            raise FrontendError("T.atomic_add(..., return_prev=True) is not supported: tile "
                                "atomics return nothing")
        if self.parallel is not None and isinstance(dst, parallel.Load):
            self.parallel.atomic_add(dst, value)
        else:
            tile_ops.atomic_add(self.b, dst, value)

    def call_annotate_layout(self, layout_map: Any, allow_reannotation: Any, allow_buffer_region: Any) -> None:
        """A layout is tilepipe's choice (docs/language.md)."""

    def call_use_swizzle(self, panel_size: Any, order: Any, enable: Any) -> None:
        """Block rasterization changes which block runs when, never a result."""

    def call_abs(self, x: Any) -> Any:
        return parallel.unary("abs", x) if is_runtime(x) else abs(x)

    def _extremum(self, kind: str, a: Any, b: Any) -> Any:
        """Python's max/min on numbers, arith on indices, a tile op on elements."""
        if not (is_runtime(a) or is_runtime(b)):
            return max(a, b) if kind == "max" else min(a, b)
        if isinstance(a, Index) or isinstance(b, Index):
            return self.b.binary(kind, a, b)
        return parallel.binary(kind, a, b)

    def call_max(self, a: Any, b: Any) -> Any:
        return self._extremum("max", a, b)

    def call_min(self, a: Any, b: Any) -> Any:
        return self._extremum("min", a, b)

    def call_if_then_else(self, cond: Any, then_value: Any, else_value: Any) -> Any:
        if not is_runtime(cond):
            return then_value if cond else else_value
        if isinstance(cond, Condition) and all(isinstance(v, int | Index) for v in (then_value, else_value)):
            return self.b.select(cond, then_value, else_value)  # of indices: arith.select
        return parallel.select(cond, then_value, else_value)

    def call_cast(self, value: Any, dtype: Any) -> Any:
        return parallel.cast(value, dtype)

    def call_Cast(self, dtype: Any, value: Any) -> Any:  # noqa: N802
        return parallel.cast(value, dtype)
