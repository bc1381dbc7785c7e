"""The statements of tilelang-ascend's kernels, for the statement walker.

tilelang-ascend writes a cube GEMM as ``T.alloc_L1`` operands, a ``T.alloc_L0C``
accumulator and ``T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))``, inside
``with T.Scope("C")``, with ``T.barrier_all()`` between the steps; vector code
calls ``T.tile.add(dst, a, b)`` and friends.  On tilepipe:

* ``T.gemm_v0`` (and ``T.gemm`` on L1 operands) stages A and B through L0A/L0B
  buffers of their shapes (``tile.copy``, the MTE1 moves), then ``tile.gemm``
  into L0C; ``init`` zero-fills the accumulator first (``scf.if`` on a run-time
  condition), which the lowering folds into the mmad's init flag where it can;
* ``T.Scope`` is only a block: tilepipe assigns every op to its core from the
  memory it touches (``ascend-resolve-core``);
* ``T.barrier_all`` does nothing: tilepipe inserts the synchronization the hazards
  need (``ascend-insert-sync``) -- a PIPE_ALL barrier would only slow the kernel;
* on Ascend, ``T.alloc_shared``/``T.alloc_fragment`` buffers are UB, except those
  a gemm reads (L1) or accumulates into (L0C): tilelang-ascend's developer mode
  infers the same scopes (:func:`cube_operand_scopes`);
* ``T.tile.<op>(dst, src0[, src1])`` is ``dst[...] = src0[...] <op> src1[...]``
  over the whole buffers, through the same element-wise code as ``T.Parallel``.
"""

from __future__ import annotations

import ast
from typing import Any

from xdsl.dialects import arith, scf
from xdsl.ir import BlockArgument

from tilepipe.dialects import pipeline

from tilepipe.language import parallel, tile_ops
from tilepipe.language.errors import FrontendError
from tilepipe.language.values import Buffer, Condition, Region

TILE_BINARY = frozenset({"add", "sub", "mul", "div", "max", "min"})
TILE_UNARY = {"exp": "exp", "ln": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "abs": "abs"}


class AscendCalls:
    """Mixed into the statement walker, which provides ``b``, ``ascend``,
    ``temp_pool``, ``temp_scope`` and ``_alloc`` (its checked allocation)."""

    b: Any
    ascend: bool
    temp_pool: Any
    temp_scope: str

    def call_alloc_L0A(self, shape: Any, dtype: Any) -> Buffer:  # noqa: N802
        return self._alloc(  # type: ignore[attr-defined]
            shape, dtype, "l0a", "T.alloc_L0A")

    def call_alloc_L0B(self, shape: Any, dtype: Any) -> Buffer:  # noqa: N802
        return self._alloc(  # type: ignore[attr-defined]
            shape, dtype, "l0b", "T.alloc_L0B")

    def call_alloc_L0C(self, shape: Any, dtype: Any) -> Buffer:  # noqa: N802
        return self._alloc(  # type: ignore[attr-defined]
            shape, dtype, "l0c", "T.alloc_L0C")

    def call_barrier_all(self) -> None:
        """tilepipe synchronizes the pipes itself (see the module docstring)."""

    def call_gemm_v0(self, A: Any, B: Any, C: Any, transpose_A: Any, transpose_B: Any,  # noqa: N803
                     init: Any) -> None:
        self.cube_gemm(A, B, C, bool(transpose_A), bool(transpose_B), init)

    def cube_gemm(self, A: Any, B: Any, C: Any, transpose_A: bool, transpose_B: bool,  # noqa: N803
                  init: Any) -> None:
        """``C (+)= op(A) op(B)`` with A and B in L1 (or already in L0A/L0B)."""
        staged = [self._to_l0(x, scope, role) for x, scope, role in ((A, "l0a", "A"), (B, "l0b", "B"))]
        if isinstance(init, Condition):
            self._init_before_loop(init, C)
        elif init:
            tile_ops.fill(self.b, C, 0)
        tile_ops.gemm(self.b, staged[0], staged[1], C, transpose_A, transpose_B, False)

    def _init_before_loop(self, init: Condition, C: Any) -> None:  # noqa: N803
        """``init=(k == 0)`` with ``k`` a loop's variable from 0: the zero fill goes
        right before that loop, where the lowering folds it into the first mmad's
        init flag (a fill inside the loop, under an ``scf.if``, it cannot fold)."""
        cmp = init.value.owner
        loop_var = cmp.lhs if isinstance(cmp, arith.CmpiOp) else None
        loop = loop_var.owner.parent_op() if isinstance(loop_var, BlockArgument) else None
        start = loop.operands[0].owner if loop is not None else None
        if not (isinstance(cmp, arith.CmpiOp) and cmp.predicate.value.data == 0  # eq
                and isinstance(loop, scf.ForOp | pipeline.ForOp)
                and isinstance(start, arith.ConstantOp) and isinstance(cmp.rhs.owner, arith.ConstantOp)
                and start.value == cmp.rhs.owner.value):
            raise FrontendError("T.gemm_v0's init must be a compile-time bool or `k == <start>` "
                                "for the loop variable k of an enclosing loop")
        tile_ops.fill(self.b, C, 0)
        fill = self.b.block.last_op
        fill.detach()
        loop.parent_block().insert_op_before(fill, loop)

    def _to_l0(self, operand: Any, scope: str, role: str) -> Buffer:
        if not isinstance(operand, Buffer):
            raise FrontendError(f"T.gemm_v0: {role} must be a whole L1, L0A or L0B buffer")
        if operand.scope == scope:
            return operand
        if operand.scope != "l1":
            raise FrontendError(f"T.gemm_v0: {role} = {operand} must be in L1 (or {scope.upper()})")
        pool = self.temp_pool.setdefault(("gemm", scope, operand.shape, operand.dtype), [])
        staged = pool[0] if pool else self.b.alloc(f"{operand.name}_{scope}", operand.shape,
                                                     operand.dtype, scope)
        pool[:1] = [staged]
        tile_ops.copy(self.b, operand, staged)
        return staged

    def call_tile_op(self, name: str, dst: Any, *sources: Any) -> None:
        """``T.tile.<name>(dst, src0[, src1])`` over whole buffers or regions."""
        if not self.ascend:
            raise FrontendError(f"T.tile.{name} is tilelang-ascend's; on CUDA write a T.Parallel loop")
        shape = _shape(dst, f"T.tile.{name}")
        loads = [_as_load(x, shape, f"T.tile.{name}") for x in sources]
        if name in TILE_BINARY:
            value = parallel.binary(name, *loads)
        else:
            value = parallel.unary(TILE_UNARY[name], loads[0])
        body = parallel.ParallelBody(self.b, shape, self.temp_scope, self.temp_pool)
        body.assign(_as_load(dst, shape, f"T.tile.{name}"), value)  # type: ignore[arg-type]


def _shape(value: Any, what: str) -> tuple[int, ...]:
    if isinstance(value, Buffer):
        return value.shape
    if isinstance(value, Region) and value.has_extents and all(isinstance(e, int) for e in value.extents):
        return tuple(value.extents)  # type: ignore[arg-type]
    raise FrontendError(f"{what} takes buffers or sliced regions of them")


def _as_load(value: Any, shape: tuple[int, ...], what: str) -> Any:
    """A whole buffer or region as the element of a loop over ``shape``; a number
    stays a number (``T.tile.add(dst, src, 1.0)``)."""
    if isinstance(value, bool | int | float):
        return value
    if _shape(value, what) != shape:
        raise FrontendError(f"{what}: operand shape {_shape(value, what)} is not the destination's {shape}")
    if isinstance(value, Buffer):
        return parallel.Load(value, tuple(parallel.LoopVar(k) for k in range(len(shape))))
    return parallel.Load(value.buffer, tuple(parallel.LoopVar(k, start) for k, start in enumerate(value.starts)))


def cube_operand_scopes(tree: ast.AST) -> dict[str, str]:
    """The names a ``T.gemm``/``T.gemm_v0`` call uses as A or B (``"l1"``) and as C
    (``"l0c"``), read from the kernel's source."""
    roles: dict[str, str] = {}
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in ("gemm", "gemm_v0") or len(node.args) < 3:  # type: ignore[union-attr]
            continue
        for arg, scope in zip(node.args[:3], ("l1", "l1", "l0c")):  # type: ignore[union-attr]
            if isinstance(arg, ast.Name):
                roles[arg.id] = scope
    return roles

