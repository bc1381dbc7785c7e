"""The statement walker: a ``@T.prim_func``'s AST to a tile-level ``func.func``.

Each statement sets the builder's location to its ``file:line:col`` before it
emits anything, so every op -- and every verifier, pipeline, budget or race
diagnostic about it later -- names the user's Python line.  Statements over
compile-time values run as Python (``if trans_A:``, ``for s in range(...)`` of
unrolled Python is *not* this: ``range`` is a loop, as in TileLang); statements
over run-time values become ``scf.for``/``scf.if``/``pipeline.for``.  Anything
else is a :class:`LanguageError` at its line saying what to write instead.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any, Protocol

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, MemRefType, ModuleOp, i64

from tilepipe.language import namespace as T
from tilepipe.core.diagnostics import verify_module
from tilepipe.core.targets import TARGET_ALIASES, TARGETS
from tilepipe.dialects.pipeline import pipeline_statements
from tilepipe.dialects.tile_launch import GridDimsOp
from tilepipe.language import parallel
from tilepipe.language.ascend_calls import AscendCalls, cube_operand_scopes
from tilepipe.language.calls import UNARY_MATH, TileCalls
from tilepipe.language.errors import FrontendError, LanguageError, PySource
from tilepipe.language.expressions import ExpressionEvaluator, is_runtime
from tilepipe.language.ir_builder import IRBuilder
from tilepipe.language.layouts import packed_dims, packed_shape
from tilepipe.language.macros import MACRO_ATTRIBUTE, HelperInliner, inlinable
from tilepipe.language.prelude import read_prelude
from tilepipe.language.values import Buffer, Condition, Index, dtype_name, element_type

INDEX_FUNCTIONS = ((T.ceildiv, "ceildiv"), (T.floordiv, "floordiv"), (T.floormod, "mod"))
INTEGER_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
USER_ERRORS = (NameError, TypeError, ValueError, ZeroDivisionError, AttributeError,
               IndexError, KeyError, AssertionError)


class KernelDefinition(Protocol):
    """What the walker reads of a ``@T.prim_func`` (``program.PrimFunc``, which
    builds itself through :func:`build_kernel`)."""

    fn: Callable[..., Any]
    name: str
    source: PySource
    tree: ast.FunctionDef | ast.AsyncFunctionDef
    param_specs: dict[str, Any]
    eager: Any  # an eager @tilepipe.jit kernel's eager.Binding, else None

    def namespace(self) -> dict[str, Any]: ...


def build_kernel(prim: KernelDefinition, target: str) -> ModuleOp:
    target = TARGET_ALIASES.get(target, target)
    if target not in TARGETS:
        raise LanguageError(prim.source.location(prim.tree),
                            f"unknown target '{target}' (known: {', '.join(sorted(TARGETS))})")
    walker = KernelWalker(prim, target)
    module = walker.run()
    diagnostic = verify_module(module)
    if diagnostic is not None:
        raise LanguageError(diagnostic.location, diagnostic.message)
    return module


class KernelWalker(ExpressionEvaluator, TileCalls, AscendCalls, HelperInliner):
    def __init__(self, prim: KernelDefinition, target: str):
        self.prim, self.target = prim, target
        self.ascend = TARGETS[target].kind == "ascend"
        self.temp_scope = "ub" if self.ascend else "fragment"
        self.names = prim.namespace()
        self.node: ast.AST | None = prim.tree
        self.symbols: dict[str, Index] = {}
        self.parallel: parallel.ParallelBody | None = None
        self.temp_pool: parallel.TempPool = {}
        self.grid: tuple[int, ...] | None = None
        self.threads: int | None = None
        self.kernel_seen = False
        self.packed: dict[str, int] = {}
        self.source = prim.source  # a helper being inlined has its own (macros.HelperInliner)
        self.pipeline_depth = 0
        self.cube_roles: dict[str, str] = {}

    # -- the function

    def run(self) -> ModuleOp:
        body: list[ast.stmt] = self.prim.tree.body
        self.packed = packed_dims(self.prim.tree, {n.id for n in ast.walk(self.prim.tree)
                                                   if isinstance(n, ast.Name)})
        self.cube_roles = cube_operand_scopes(self.prim.tree) if self.ascend else {}
        if self.prim.eager is not None:
            prelude = read_prelude(self)
            params = [self._parameter(name, spec, node)
                      for name, spec, node in prelude.inputs + prelude.outputs]
            body = prelude.body
        else:
            params = self._parameters()
        types = [p[1] for p in params]
        self.b = IRBuilder(self.prim.name, types, [p[0] for p in params])
        self.b.temp_scope = self.temp_scope
        # Kernel-wide diagnostics (the shared-memory budget) point at the `def` line.
        self.b.func.location = self.prim.source.loc_attr(self.prim.tree)
        for (name, type_, spec), arg in zip(params, self.b.entry.args):
            if isinstance(type_, IndexType):
                self.names[name] = Index(arg)
                self.prim.param_specs[name] = spec
                continue
            shape = tuple(-1 if isinstance(d, T.SymbolicDim) else d for d in spec.shape)
            packed = self.packed.get(name)
            self.names[name] = Buffer(name, arg, tuple(type_.get_shape()), dtype_name(spec.dtype), "global",
                                      packed, shape if packed is not None else None)
            for d, dim in enumerate(spec.shape):
                if isinstance(dim, T.SymbolicDim) and dim.name not in self.symbols:
                    self.symbols[dim.name] = self._dim(arg, d)
        self.statements(body)
        if not self.kernel_seen:
            self.fail(self.prim.tree, "a T.prim_func body needs a `with T.Kernel(...)` block")
        return self.b.finish(self.grid, self.threads, self.target)

    def _dim(self, arg: Any, d: int) -> Index:
        op = memref.DimOp(arg, self.b.constant(d, IndexType()))
        return Index(self.b.pure(op, ("dim", arg, d)))

    def _parameters(self) -> list[tuple[str, Any, Any]]:
        args = self.prim.tree.args
        if args.vararg or args.kwarg or args.kwonlyargs:
            self.fail(self.prim.tree, "kernel parameters are positional T.Tensor((...), dtype) only")
        annotations = getattr(self.prim.fn, "__annotations__", {})
        params = []
        for arg in args.args:
            spec = annotations.get(arg.arg)
            if isinstance(spec, str) or spec is None:
                spec = self.guard(arg, lambda a=arg: self.eval(a.annotation) if a.annotation else None)
            if isinstance(spec, str) and spec in INTEGER_DTYPES:
                params.append((arg.arg, IndexType(), spec))  # a run-time integer: an index
                continue
            if not isinstance(spec, T.TensorSpec):
                self.fail(arg, f"parameter '{arg.arg}' needs a T.Tensor((...), dtype) or an integer "
                          "dtype annotation (float scalars are not supported: pass a 1-element tensor)")
            params.append(self._parameter(arg.arg, spec, arg))
        return params

    def _parameter(self, name: str, spec: T.TensorSpec, node: ast.AST) -> tuple[str, MemRefType, T.TensorSpec]:
        shape = [-1 if isinstance(d, T.SymbolicDim) else d for d in spec.shape]
        if name in self.packed:
            shape = list(self.guard(node, lambda: packed_shape(tuple(shape), self.packed[name])))
        if any(not isinstance(d, int) or d == 0 or d < -1 for d in shape):
            self.fail(node, f"tensor '{name}' has shape {spec.shape}: sizes must be "
                      "positive ints or T.symbolic(...)")
        elem = self.guard(node, lambda: element_type(spec.dtype))
        self.prim.param_specs[name] = spec
        dims = [DYNAMIC_INDEX if d == -1 else d for d in shape]
        return name, MemRefType(elem, dims), spec

    # -- errors

    def fail(self, node: ast.AST | None, message: str) -> None:
        raise LanguageError(self.source.location(node), message)

    def guard(self, node: ast.AST, thunk: Any) -> Any:
        """Run ``thunk``; a frontend or Python error in it becomes a located error."""
        saved, self.node = self.node, node
        try:
            return thunk()
        except LanguageError:
            raise
        except FrontendError as err:
            where, message = self.node or node, str(err)
        except USER_ERRORS as err:
            where, message = self.node or node, f"{type(err).__name__}: {err}"
        finally:
            self.node = saved
        # Raised outside the handler: the user sees their line, not a chained traceback.
        raise LanguageError(self.source.location(where), message)

    # -- statements

    def statements(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if hasattr(self, "b"):  # an eager kernel's prelude runs before the builder exists
                self.b.loc = self.source.loc_attr(stmt)
            method = getattr(self, f"stmt_{type(stmt).__name__}", None)
            if method is None:
                self.fail(stmt, f"the statement `{ast.unparse(stmt).splitlines()[0]}` "
                          f"({type(stmt).__name__}) is not supported in a T.prim_func")
            self.guard(stmt, lambda m=method, s=stmt: m(s))

    def stmt_Pass(self, stmt: ast.Pass) -> None:  # noqa: N802
        pass

    def stmt_Expr(self, stmt: ast.Expr) -> None:  # noqa: N802
        if isinstance(stmt.value, ast.Constant):
            return  # a docstring
        self.eval(stmt.value)

    def stmt_Assert(self, stmt: ast.Assert) -> None:  # noqa: N802
        test = self.eval(stmt.test)
        if is_runtime(test):
            self.fail(stmt, "assert needs a compile-time condition")
        if not test:
            message = self.eval(stmt.msg) if stmt.msg else ast.unparse(stmt.test)
            self.fail(stmt, f"assertion failed: {message}")

    def stmt_Assign(self, stmt: ast.Assign) -> None:  # noqa: N802
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.bind(target, value)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:  # noqa: N802
        if stmt.value is not None:
            self.bind(stmt.target, self.eval(stmt.value))

    def stmt_AugAssign(self, stmt: ast.AugAssign) -> None:  # noqa: N802
        current = self.runtime_index(self.eval(stmt.target if not isinstance(stmt.target, ast.Name)
                                               else ast.Name(stmt.target.id, ast.Load())))
        value = self.runtime_index(self.eval(stmt.value))
        self.bind(stmt.target, self.binary(type(stmt.op), current, value))

    def bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if is_runtime(value) or len(value) != len(target.elts):
                raise FrontendError("cannot unpack this value into "
                                    f"{len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self.bind(t, v)
        elif isinstance(target, ast.Subscript):
            dst = self.eval(target)
            if self.parallel is None or not isinstance(dst, parallel.Load):
                raise FrontendError(
                    "element assignment is only supported inside `for ... in T.Parallel(...)` "
                    "with the loop variables as indices; use T.fill or T.copy for whole tiles"
                )
            self.parallel.assign(dst, value)
        else:
            raise FrontendError(f"cannot assign to `{ast.unparse(target)}`")

    def stmt_If(self, stmt: ast.If) -> None:  # noqa: N802
        test = self.runtime_index(self.eval(stmt.test))
        if isinstance(test, Condition):
            if self.parallel is not None:
                raise FrontendError("an `if` on run-time values inside T.Parallel is not supported")
            then_block, else_block = self.b.if_op(test, bool(stmt.orelse))
            from xdsl.dialects import scf

            for block, body in ((then_block, stmt.body), (else_block, stmt.orelse)):
                if block is None:
                    continue
                with self.b.inside(block):
                    self.statements(body)
                    self.b.insert(scf.YieldOp())
            return
        if is_runtime(test):
            raise FrontendError("an `if` needs a compile-time value or a comparison of indices")
        self.statements(stmt.body if test else stmt.orelse)

    def stmt_While(self, stmt: ast.While) -> None:  # noqa: N802
        self.fail(stmt, "`while` loops are not supported; use `for k in T.serial(n)`")

    def stmt_Return(self, stmt: ast.Return) -> None:  # noqa: N802
        if self.inline_depth:
            self.fail(stmt, "a helper inlined into a kernel may return only as its last statement")
        if self.prim.eager is None:
            self.fail(stmt, "a T.prim_func returns nothing: write results into an output tensor")
        # An eager kernel's return names its T.empty outputs (checked by eager.read_prelude).

    # -- with T.Kernel(...)

    def stmt_With(self, stmt: ast.With) -> None:  # noqa: N802
        if len(stmt.items) != 1:
            self.fail(stmt, "use one `with T.Kernel(...) as (bx, by):`")
        item = stmt.items[0]
        spec = self.eval(item.context_expr)
        if isinstance(spec, T.ScopeSpec) and self.kernel_seen:
            self.statements(stmt.body)  # tilelang-ascend's T.Scope: see ascend_calls
            return
        if not isinstance(spec, T.KernelSpec):
            self.fail(stmt, "only `with T.Kernel(...)` is supported in a T.prim_func")
        if self.kernel_seen:
            self.fail(stmt, "one T.Kernel per T.prim_func")
        self.kernel_seen = True
        grid = [self.runtime_index(g) for g in spec.grid] or [1]
        if not 1 <= len(grid) <= 3:
            self.fail(stmt, "T.Kernel takes 1 to 3 grid extents")
        if all(isinstance(g, int) for g in grid):
            if any(g <= 0 for g in grid):
                self.fail(stmt, f"grid extents must be positive, got {tuple(grid)}")
            self.grid = tuple(grid)
        else:
            self.b.insert(GridDimsOp([self.b.index(g) for g in grid]))
        threads = spec.threads
        if isinstance(threads, list | tuple):
            threads = 1 if not threads else threads[0] * (threads[1] if len(threads) > 1 else 1)
        if not isinstance(threads, int) or threads <= 0:
            self.fail(stmt, f"threads must be a positive int, got {spec.threads!r}")
        self.threads = None if self.ascend else threads
        names = item.optional_vars
        if (self.ascend and isinstance(names, ast.Tuple) and len(names.elts) == len(grid) + 1
                and self.grid is not None):
            grid = self._vector_sub_blocks(stmt, names.elts[-1])
        ids = self.b.block_ids(len(grid))
        if len(ids) < (len(names.elts) if isinstance(names, ast.Tuple) else 1):
            ids.append(0)  # tilelang-ascend's vid in a kernel that never reads it
        if item.optional_vars is not None:
            self.bind(item.optional_vars, ids[0] if isinstance(item.optional_vars, ast.Name) and len(ids) == 1 else tuple(ids))
        self.statements(stmt.body)

    def _vector_sub_blocks(self, stmt: ast.With, vid: ast.expr) -> list[Any]:
        """tilelang-ascend's ``T.Kernel(n, is_npu=True) as (cid, vid)``: ``vid`` picks
        one of the two vector cores that share a cube core.  A kernel that reads it
        splits its work between them: on tilepipe, a last grid dimension of 2."""
        used = isinstance(vid, ast.Name) and any(
            isinstance(n, ast.Name) and n.id == vid.id and isinstance(n.ctx, ast.Load)
            for n in ast.walk(ast.Module(body=stmt.body, type_ignores=[])))
        assert self.grid is not None
        if used:
            self.grid = (*self.grid, 2)
        return list(self.grid)

    # -- for loops

    def stmt_For(self, stmt: ast.For) -> None:  # noqa: N802
        if stmt.orelse:
            self.fail(stmt, "`for ... else` is not supported")
        spec = self.eval(stmt.iter)
        if isinstance(spec, range):
            spec = T.serial(spec.start, spec.stop, spec.step)
        if not isinstance(spec, T.LoopSpec):
            if is_runtime(spec):
                self.fail(stmt, "iterate over T.Pipelined, T.Parallel, T.serial or range")
            for value in spec:  # a Python iterable of compile-time values: unrolled
                self.bind(stmt.target, value)
                self.statements(stmt.body)
            return
        if self.parallel is not None:
            self.fail(stmt, "loops inside T.Parallel are not supported")
        if spec.kind == "parallel":
            self._parallel(stmt, spec)
            return
        start, stop, step = (self.runtime_index(v) for v in (spec.start, spec.stop, spec.step))
        if not isinstance(stmt.target, ast.Name):
            self.fail(stmt, f"T.{spec.kind} binds one loop variable")
        if spec.kind == "serial" or (spec.kind == "pipelined" and not spec.num_stages
                                     and spec.order is None and spec.stage is None):
            # T.Pipelined(n) with num_stages=0 (its default) is TileLang's plain loop.
            if self.ascend and self.pipeline_depth == 0 and step == 1 and _moves_tiles(stmt):
                # Ascend's passes synchronize the pipes of top-level and pipelined
                # loops only: a loop of tile ops is a pipeline of one stage (in order).
                spec = T.Pipelined(spec.start, spec.stop, num_stages=1)
                self._pipelined(stmt, spec, start, stop)
                return
            with self.b.serial_loop(start, stop, step) as iv:
                iv.value.name_hint = stmt.target.id
                self.names[stmt.target.id] = iv
                self.statements(stmt.body)
            return
        self._pipelined(stmt, spec, start, stop)

    def _pipelined(self, stmt: ast.For, spec: T.LoopSpec, start: Any, stop: Any) -> None:
        if (spec.order is None) != (spec.stage is None):
            self.fail(stmt, "T.Pipelined needs both order= and stage= (or neither)")
        annotations: dict[str, Any] = {}
        if spec.num_stages:
            annotations["num_stages"] = int(spec.num_stages)
        with self.b.pipelined_loop(start, stop, 1, **annotations) as (loop, iv):
            iv.value.name_hint = stmt.target.id
            self.names[stmt.target.id] = iv
            groups: list[list] = []
            self.pipeline_depth += 1
            for child in stmt.body:
                before = set(map(id, pipeline_statements(loop.body.block)))
                self.statements([child])
                groups.append([op for op in pipeline_statements(loop.body.block) if id(op) not in before])
            self.pipeline_depth -= 1
        if spec.order is not None:
            self._stage_order(stmt, loop, groups, list(spec.stage), list(spec.order))

    def _stage_order(self, stmt: ast.For, loop: Any, groups: list[list], stage: list, order: list) -> None:
        """TileLang's arrays count source statements; a statement may become several
        tile ops (a converting copy, a T.Parallel body), which share its stage and
        take consecutive orders."""
        groups = [g for g in groups if g]
        if len(stage) != len(groups) or len(order) != len(groups):
            self.fail(stmt, f"T.Pipelined: stage has {len(stage)} and order {len(order)} entries "
                      f"but the loop body has {len(groups)} statements with memory effects")
        # Dense ranks of (order, position in the statement): equal user orders stay
        # equal, so pipeline-validate still reports them.
        keys = sorted({(order[s], t) for s, g in enumerate(groups) for t in range(len(g))})
        rank = {key: r for r, key in enumerate(keys)}
        new_order = {(s, t): rank[(order[s], t)] for s, g in enumerate(groups) for t in range(len(g))}
        loop.properties["stage"] = DenseArrayBase.from_list(
            i64, [stage[s] for s, g in enumerate(groups) for _ in g])
        loop.properties["order"] = DenseArrayBase.from_list(
            i64, [new_order[(s, t)] for s, g in enumerate(groups) for t in range(len(g))])

    def _parallel(self, stmt: ast.For, spec: T.LoopSpec) -> None:
        extents = tuple(spec.extents)
        if not extents or any(not isinstance(e, int) or e <= 0 for e in extents):
            self.fail(stmt, f"T.Parallel extents must be positive compile-time ints, got {extents}")
        names = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else [stmt.target]
        if len(names) != len(extents) or not all(isinstance(n, ast.Name) for n in names):
            self.fail(stmt, f"T.Parallel of {len(extents)} extents binds {len(extents)} names")
        self.parallel = parallel.ParallelBody(self.b, extents, self.temp_scope, self.temp_pool)
        try:
            for k, name in enumerate(names):
                self.names[name.id] = parallel.LoopVar(  # type: ignore[union-attr]
                    k, 0, "float32" if self.ascend else "int32")
            self.statements(stmt.body)
        finally:
            self.parallel = None

    # -- calls

    def eval_Call(self, node: ast.Call) -> Any:  # noqa: N802
        fn = self.eval(node.func)
        args: list[Any] = []
        for a in node.args:
            if not isinstance(a, ast.Starred):
                args.append(self.eval(a))
                continue
            values = self.eval(a.value)  # *shape: a compile-time sequence
            if is_runtime(values) or not isinstance(values, list | tuple | range):
                raise FrontendError(f"*{ast.unparse(a.value)} must be a compile-time list or tuple")
            args.extend(values)
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords if k.arg is not None}
        if any(k.arg is None for k in node.keywords):
            raise FrontendError("**kwargs in calls are not supported in a T.prim_func")
        name = getattr(fn, "__tilepipe_intrinsic__", None)
        if name is not None:
            try:
                bound = inspect.signature(fn.__wrapped__).bind(*args, **kwargs)
            except TypeError as err:
                raise FrontendError(f"T.{name}: {err}") from None
            bound.apply_defaults()
            saved, self.b.loc = self.b.loc, self.source.loc_attr(node)
            try:
                if name.startswith("tile."):
                    return self.call_tile_op(name[5:], *bound.arguments.values())
                if name in UNARY_MATH:  # T.exp(x), T.log2(x), ...: element math
                    return parallel.unary(name, bound.arguments["x"])
                return getattr(self, f"call_{name}")(**bound.arguments)
            finally:
                self.b.loc = saved
        if fn is T.const and self.prim.eager is not None:
            dims = fn(*args, **kwargs)
            return tuple(map(self.prim.size, dims)) if isinstance(dims, tuple) else self.prim.size(dims)
        index_fn = next((name for f, name in INDEX_FUNCTIONS if f is fn), None)
        if index_fn is not None and any(isinstance(self.runtime_index(a), Index) for a in args):
            return self.b.binary(index_fn, *(self.runtime_index(a) for a in args))
        if fn in (T.Kernel, T.Pipelined, T.serial, T.unroll, T.Parallel):
            return fn(*(self.runtime_index(a) for a in args), **kwargs)
        runtime = any(is_runtime(a) for a in [*args, *kwargs.values()])
        if inlinable(fn) and (runtime or getattr(fn, MACRO_ATTRIBUTE, False)):
            return self.inline(fn, args, kwargs)  # a helper (or @T.macro): walked inline
        if runtime:
            label = getattr(fn, "__name__", type(fn).__name__)
            raise FrontendError(
                f"calling {label}() with run-time values is not supported: it is not Python "
                "source tilepipe can read; use the T.* operations (docs/language.md)"
            )
        return fn(*args, **kwargs)

TILE_STATEMENTS = frozenset({"copy", "gemm", "gemm_v0", "fill", "clear", "reduce_max", "reduce_sum",
                             "reduce_min", "Parallel"})


def _moves_tiles(loop: ast.For) -> bool:
    """Whether a loop's body (syntactically) holds tile statements."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and (n.func.attr in TILE_STATEMENTS or (isinstance(n.func.value, ast.Attribute)
                                                       and n.func.value.attr == "tile"))
               for stmt in loop.body for n in ast.walk(stmt))

