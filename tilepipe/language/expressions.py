"""Expressions of a ``@T.prim_func`` body: Python where the values are known at
compile time, IR where they are not.

``T.ceildiv(N, block_N)`` of two ints is an int; ``by * block_M`` with ``by`` a
block id is an ``arith.muli`` (value-numbered, hoisted: :class:`IRBuilder`);
``A_f[i, j] * 2.0`` in a ``T.Parallel`` body is an element expression
(:mod:`tilepipe.language.parallel`).  :class:`ExpressionEvaluator` is the
statement walker's base class; it keeps the AST node being evaluated so that
every error and every op is located at the user's line and column.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from tilepipe.language import namespace as T
from tilepipe.language import parallel
from tilepipe.language.errors import FrontendError
from tilepipe.language.ir_builder import IRBuilder
from tilepipe.language.layouts import pack_region
from tilepipe.language.values import Buffer, Condition, Index, Region

PY_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitXor: operator.xor,
}
INDEX_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv",
                ast.Mod: "mod"}
ELEM_BINARY = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}
COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
PY_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
              ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
              ast.Is: operator.is_, ast.IsNot: operator.is_not,
              ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


class UncalledLambda:
    """A ``lambda`` in a kernel body: kept as a value (layout functions), not run."""

    def __init__(self, text: str):
        self.text = text

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise FrontendError(f"`{self.text}`: lambdas in a T.prim_func are values (layout "
                            "functions), not called")


def is_runtime(value: Any) -> bool:
    return isinstance(value, Index | Condition | Buffer | Region | T.SymbolicDim) or parallel.is_elem(value)


class ExpressionEvaluator:
    """Evaluates expression nodes against ``self.names`` (locals over the closure,
    globals and builtins)."""

    b: IRBuilder
    names: dict[str, Any]
    node: ast.AST | None
    symbols: dict[str, Index]

    # -- entry

    def eval(self, node: ast.expr) -> Any:
        saved, self.node = self.node, node
        try:
            method = getattr(self, f"eval_{type(node).__name__}", None)
            if method is None:
                raise FrontendError(
                    f"the expression `{ast.unparse(node)}` ({type(node).__name__}) is not "
                    "supported in a T.prim_func"
                )
            result = method(node)
        finally:
            self.node = saved
        return result

    def runtime_index(self, value: Any) -> Any:
        """A symbolic size becomes the ``memref.dim`` that reads it."""
        if isinstance(value, T.SymbolicDim):
            if value.name not in self.symbols:
                raise FrontendError(f"symbolic size {value.name} is not a size of any parameter")
            return self.symbols[value.name]
        return value

    # -- leaves

    def eval_Constant(self, node: ast.Constant) -> Any:  # noqa: N802
        return node.value

    def eval_Name(self, node: ast.Name) -> Any:  # noqa: N802
        if node.id not in self.names:
            raise FrontendError(f"name '{node.id}' is not defined")
        return self.names[node.id]

    def eval_Attribute(self, node: ast.Attribute) -> Any:  # noqa: N802
        value = self.eval(node.value)
        if isinstance(value, Buffer) and node.attr in ("shape", "dtype", "name"):
            return getattr(value, node.attr)
        if parallel.is_elem(value) and node.attr == "astype":
            return lambda dtype: parallel.cast(value, dtype)
        if is_runtime(value):
            raise FrontendError(f"{type(value).__name__} has no attribute '{node.attr}' here")
        return getattr(value, node.attr)

    def eval_Tuple(self, node: ast.Tuple) -> tuple:  # noqa: N802
        return tuple(self.eval(e) for e in node.elts)

    def eval_List(self, node: ast.List) -> list:  # noqa: N802
        return [self.eval(e) for e in node.elts]

    def eval_Dict(self, node: ast.Dict) -> dict:  # noqa: N802
        if any(k is None for k in node.keys):
            raise FrontendError("`**` in a dict display is not supported in a T.prim_func")
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]

    def eval_Lambda(self, node: ast.Lambda) -> Any:  # noqa: N802
        """A lambda is only ever a layout function here (``T.Layout(shape, lambda
        i, j: ...)``), which tilepipe does not use: kept, never called."""
        return UncalledLambda(ast.unparse(node))

    def eval_JoinedStr(self, node: ast.JoinedStr) -> str:  # noqa: N802
        return "".join(str(self.eval(v.value)) if isinstance(v, ast.FormattedValue) else v.value
                       for v in node.values)

    # -- operators

    def eval_BinOp(self, node: ast.BinOp) -> Any:  # noqa: N802
        lhs = self.runtime_index(self.eval(node.left))
        rhs = self.runtime_index(self.eval(node.right))
        return self.binary(type(node.op), lhs, rhs)

    def binary(self, op: type, lhs: Any, rhs: Any) -> Any:
        if parallel.is_elem(lhs) and not isinstance(lhs, parallel.LoopVar) or (
            parallel.is_elem(rhs) and not isinstance(rhs, parallel.LoopVar)
        ):
            if op not in ELEM_BINARY:
                raise FrontendError(f"operator {op.__name__} is not supported on tile elements")
            return parallel.binary(ELEM_BINARY[op], lhs, rhs)
        if isinstance(lhs, parallel.LoopVar) or isinstance(rhs, parallel.LoopVar):
            kind = INDEX_BINARY.get(op, "?")
            if parallel.is_affine(kind, lhs, rhs):  # still an index: var + invariant
                return parallel.affine(self.b, kind, lhs, rhs)
            if op not in ELEM_BINARY:
                raise FrontendError(f"operator {op.__name__} on a T.Parallel variable")
            # i * 2, i + j: no longer a tile region, but a value (coordinates, tile.iota)
            return parallel.binary(ELEM_BINARY[op], lhs, rhs)
        if isinstance(lhs, Index) or isinstance(rhs, Index):
            if op not in INDEX_BINARY or not all(isinstance(v, int | Index) for v in (lhs, rhs)):
                raise FrontendError(
                    f"operator {op.__name__} on a run-time index and {type(rhs).__name__} is "
                    "not supported (use + - * // % on indices and ints)"
                )
            return self.b.binary(INDEX_BINARY[op], lhs, rhs)
        if is_runtime(lhs) or is_runtime(rhs):
            raise FrontendError(f"operator {op.__name__} is not defined on buffers")
        return PY_BINARY[op](lhs, rhs)

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:  # noqa: N802
        value = self.runtime_index(self.eval(node.operand))
        if isinstance(node.op, ast.USub):
            if parallel.is_elem(value) and not isinstance(value, parallel.LoopVar):
                return parallel.neg(value)
            if isinstance(value, Index):
                return self.b.binary("sub", 0, value)
        if isinstance(node.op, ast.Not) and isinstance(value, Condition):
            raise FrontendError("`not` of a run-time condition: invert the comparison instead")
        if is_runtime(value):
            raise FrontendError(f"unary {type(node.op).__name__} of a run-time value is not supported")
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                ast.Invert: operator.invert}[type(node.op)](value)

    def eval_Compare(self, node: ast.Compare) -> Any:  # noqa: N802
        result: Any = True
        lhs = self.runtime_index(self.eval(node.left))
        for op, right in zip(node.ops, node.comparators):
            rhs = self.runtime_index(self.eval(right))
            if parallel.is_elem(lhs) or parallel.is_elem(rhs):
                if type(op) not in COMPARE:
                    raise FrontendError(f"{type(op).__name__} of tile elements")
                part: Any = parallel.compare(COMPARE[type(op)], lhs, rhs)
            elif isinstance(lhs, Index) or isinstance(rhs, Index):
                if type(op) not in COMPARE:
                    raise FrontendError(f"{type(op).__name__} on a run-time index")
                part = self.b.compare(COMPARE[type(op)], lhs, rhs)
            elif is_runtime(lhs) or is_runtime(rhs):
                raise FrontendError("comparisons of buffers are not supported: compare "
                                    "their elements in a T.Parallel body")
            else:
                part = PY_COMPARE[type(op)](lhs, rhs)
            result = part if result is True else self._and(result, part)
            lhs = rhs
        return result

    def _and(self, a: Any, c: Any) -> Any:
        if parallel.is_elem(a) or parallel.is_elem(c):  # masks: 1 where both hold
            return parallel.select(a, c, 0)
        if isinstance(a, Condition) and isinstance(c, Condition):
            return self.b.logical("and", a, c)
        if isinstance(a, Condition) or isinstance(c, Condition):
            known, cond = (c, a) if isinstance(a, Condition) else (a, c)
            return cond if known else False
        return a and c

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:  # noqa: N802
        values = [self.eval(v) for v in node.values]
        result = values[0]
        for value in values[1:]:
            if isinstance(node.op, ast.And):
                result = self._and(result, value)
            elif parallel.is_elem(result) or parallel.is_elem(value):  # masks: 1 where either holds
                result = parallel.select(result, 1, value)
            elif isinstance(result, Condition) and isinstance(value, Condition):
                result = self.b.logical("or", result, value)
            elif isinstance(result, Condition) or isinstance(value, Condition):
                known, cond = (value, result) if isinstance(result, Condition) else (result, value)
                result = True if known else cond
            else:
                result = result or value
        return result

    def eval_IfExp(self, node: ast.IfExp) -> Any:  # noqa: N802
        test = self.eval(node.test)
        if is_runtime(test):
            raise FrontendError(
                "a conditional expression on a run-time value is not supported; use an "
                "`if` statement (scf.if)"
            )
        return self.eval(node.body if test else node.orelse)

    # -- subscripts: regions of buffers

    def eval_Subscript(self, node: ast.Subscript) -> Any:  # noqa: N802
        value = self.eval(node.value)
        if not isinstance(value, Buffer):
            index = self.eval(node.slice)
            if is_runtime(index):
                raise FrontendError("indexing a Python value with a run-time index")
            return value[index]
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        shape = value.logical_shape or value.shape
        starts, extents = [], []
        for d, item in enumerate(items):
            if isinstance(item, ast.Slice):
                start, extent = self._slice(item, shape[d] if d < len(shape) else 0)
                starts.append(start)
                extents.append(extent)
            else:
                starts.append(self.runtime_index(self.eval(item)))
                extents.append(None)
        if value.packed_from is not None:
            if len(items) != len(shape):
                raise FrontendError(f"{value.name} has {len(shape)} dimensions, indexed with {len(items)}")
            starts, extents = pack_region(self.b, shape, value.packed_from, starts, extents)
        if any(parallel.is_elem(s) and not isinstance(s, parallel.LoopVar) for s in starts):
            raise FrontendError(
                "T.Parallel indices must be a loop variable plus a loop-invariant offset "
                "(A[by * 64 + i, j]); scaled or combined loop variables are not tile regions")
        if any(isinstance(s, parallel.LoopVar) for s in starts):
            dims = tuple(s if isinstance(s, parallel.LoopVar) else parallel.LoopVar(None, s)
                         for s in starts)
            return parallel.Load(value, dims)
        for s in starts:
            if not isinstance(s, int | Index):
                raise FrontendError(f"an index must be an int or a run-time index, got {type(s).__name__}")
        return Region(value, tuple(starts), tuple(extents))

    def _slice(self, item: ast.Slice, size: int) -> tuple[Any, int]:
        if item.step is not None:
            raise FrontendError("strided slices are not tile regions")
        start = 0 if item.lower is None else self.runtime_index(self.eval(item.lower))
        if item.upper is None:
            if not isinstance(start, int):
                raise FrontendError("a slice from a run-time start needs an explicit end")
            return start, size - start
        # `i:i + n` has extent n even when i is only known at run time.
        upper = item.upper
        if (isinstance(upper, ast.BinOp) and isinstance(upper.op, ast.Add) and item.lower is not None
                and ast.dump(upper.left) == ast.dump(item.lower)):
            extent = self.eval(upper.right)
        elif item.lower is not None and (difference := self._difference(upper, item.lower)) is not None:
            extent = difference  # TileLang's `bx * bM:(bx + 1) * bM`
        else:
            stop = self.runtime_index(self.eval(upper))
            if not (isinstance(start, int) and isinstance(stop, int)):
                raise FrontendError(
                    "the extent of a slice must be known at compile time: write it as "
                    "A[i:i + n] with n a constant"
                )
            extent = stop - start
        if not isinstance(extent, int) or extent <= 0:
            raise FrontendError(f"slice extent {extent!r} must be a positive compile-time int")
        return start, extent

    def _difference(self, upper: ast.expr, lower: ast.expr) -> int | None:
        """``upper - lower`` when it is a compile-time int although both bounds are
        run-time (``(bx + 1) * block_M - bx * block_M``): both sides as linear forms
        over their run-time sub-expressions (keyed by their source, so equal text is
        an equal value), which must cancel.  None when they do not."""
        terms = _merge(self._linear(upper), self._linear(lower), -1)
        if any(coefficient for key, coefficient in terms.items() if key):
            return None
        return terms.get("", 0)

    def _linear(self, node: ast.expr) -> dict[str, int]:
        """``node`` as {sub-expression source: coefficient}, "" the constant term;
        names of compile-time ints are constants, anything else is opaque."""
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return {"": node.value}
        if isinstance(node, ast.Name) and type(self.names.get(node.id)) is int:
            return {"": self.names[node.id]}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return _merge({}, self._linear(node.operand), -1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return _merge(self._linear(node.left), self._linear(node.right), sign)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            lhs, rhs = self._linear(node.left), self._linear(node.right)
            for factor, form in ((lhs, rhs), (rhs, lhs)):
                if set(factor) <= {""}:
                    return {k: v * factor.get("", 0) for k, v in form.items()}
        return {ast.unparse(node): 1}


def _merge(a: dict[str, int], c: dict[str, int], sign: int) -> dict[str, int]:
    out = dict(a)
    for key, value in c.items():
        out[key] = out.get(key, 0) + sign * value
    return out
