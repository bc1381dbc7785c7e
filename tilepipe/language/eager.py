"""Eager-style ``@tilepipe.jit`` kernels: TileLang's newer way of writing one.

The decorated function *is* the kernel, with no inner ``@T.prim_func``::

    @tilepipe.jit
    def matmul(A, B, block_M, block_N, block_K, dtype=T.float16):
        M, N, K = T.const("M, N, K")
        A: T.Tensor((M, K), dtype)
        B: T.Tensor((K, N), dtype)
        C = T.empty((M, N), dtype)
        with T.Kernel(...) as (bx, by):
            ...
        return C

Its *prelude* -- the statements before ``with T.Kernel`` -- says which parameters
are tensors (``A: T.Tensor(...)``), which tensors the kernel allocates and returns
(``T.empty``), and names its sizes (``T.const``).  Every other parameter is a
compile-time Python value.  ``matmul.compile(M=1024, N=1024, K=1024, block_M=128,
...)`` compiles it (a size given neither way is a run-time size, as
``T.symbolic``); ``matmul(a, b, block_M=128, ...)`` reads the sizes from ``a``
and ``b``, compiles (cached) and runs it, returning ``C``.

The kernel's parameters are the tensor parameters in the function's order, then
the ``T.empty`` tensors in the order the ``return`` names them.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from tilepipe.language import namespace as T
from tilepipe.language.errors import LanguageError
from tilepipe.language.frontend import KernelWalker
from tilepipe.language.prelude import Binding, Prelude, is_kernel_block, read_prelude
from tilepipe.language.program import PrimFunc, _stable


def is_eager_kernel(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s own body holds the ``with T.Kernel(...)`` block (eager
    style) rather than returning a ``@T.prim_func`` (a factory, lazy style)."""
    tree = PrimFunc.parse(fn)[2]
    return any(is_kernel_block(stmt) for stmt in tree.body)


class EagerPrimFunc(PrimFunc):
    """One specialization of an eager kernel: what :func:`build_kernel` walks."""

    def __init__(self, fn: Callable[..., Any], binding: Binding):
        super().__init__(fn)
        self.eager = binding
        self.sizes_known = False  # until specialize has read them from the tensors
        self._prelude: Prelude | None = None

    def namespace(self) -> dict[str, Any]:
        names = super().namespace()
        names.update(self.eager.values)
        return names

    def cache_key(self) -> tuple:
        values = tuple(sorted((k, _stable(v)) for k, v in self.eager.values.items()))
        return (*super().cache_key(), values, tuple(sorted(self.eager.sizes.items())))

    def prelude(self) -> Prelude:
        """The declarations; read once the sizes are known (a call asks twice: for
        the outputs' indices and the build), tolerantly before."""
        if not self.sizes_known:
            return read_prelude(KernelWalker(self, "sm_80"), tolerant=True)
        if self._prelude is None:
            self._prelude = read_prelude(KernelWalker(self, "sm_80"))
        return self._prelude

    def output_indices(self) -> list[int]:
        """The kernel's parameters allocated by the call: its ``T.empty`` tensors."""
        prelude = self.prelude()
        return list(range(len(prelude.inputs), len(prelude.inputs) + len(prelude.outputs)))

    def size(self, dim: T.SymbolicDim) -> Any:
        """``T.const``'s value: the size given or read from a tensor, else run-time."""
        return self.eager.sizes.get(dim.name, dim)


def tensor_parameters(fn: Callable[..., Any]) -> tuple[str, ...]:
    """The parameters the prelude annotates ``name: T.Tensor(...)``, in order."""
    body = PrimFunc.parse(fn)[2].body
    return tuple(
        name for name in inspect.signature(fn).parameters
        if any(isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
               and s.target.id == name and s.value is None for s in body)
    )


def specialize(fn: Callable[..., Any], args: tuple, kwargs: dict[str, Any]
               ) -> tuple[EagerPrimFunc, dict[str, Any]]:
    """The kernel ``fn`` is for these arguments, and the tensors among them:
    keyword arguments that are not parameters are ``T.const`` sizes, and the
    sizes not given are read from the tensors' shapes."""
    signature, tensor_params = inspect.signature(fn), tensor_parameters(fn)
    own = {k: v for k, v in kwargs.items() if k in signature.parameters}
    sizes = {k: v for k, v in kwargs.items() if k not in signature.parameters}
    where = PrimFunc.parse(fn)[1].location(None)
    try:
        bound = signature.bind_partial(*args, **own)
    except TypeError as err:
        raise LanguageError(where, f"{fn.__name__}: {err}") from None
    bound.apply_defaults()
    tensors = {n: v for n, v in bound.arguments.items() if n in tensor_params}
    values = {n: v for n, v in bound.arguments.items() if n not in tensor_params}
    missing = [n for n in signature.parameters if n not in bound.arguments and n not in tensor_params]
    if missing:
        raise LanguageError(where, f"{fn.__name__} needs a value for {', '.join(missing)}")
    for name, value in values.items():
        if hasattr(value, "shape") and hasattr(value, "dtype"):
            raise LanguageError(where, f"parameter '{name}' is given an array but has no "
                                f"`{name}: T.Tensor(...)` line in {fn.__name__}")
    for name, value in sizes.items():
        if type(value) is not int:
            raise LanguageError(where, f"size {name}={value!r} must be an int")
    binding = Binding(values, dict(sizes), tensor_params)
    func = EagerPrimFunc(fn, binding)
    inputs = func.prelude().inputs
    if not set(sizes) <= _const_names(func):
        raise LanguageError(where, f"{fn.__name__} got unexpected arguments: "
                            f"{', '.join(sorted(set(sizes) - _const_names(func)))}")
    for name, spec, node in inputs:
        if name in tensors:
            _read_sizes(func, name, spec, tensors[name], binding.sizes, node, _const_names(func))
    func.sizes_known = True
    return func, tensors


def _const_names(func: EagerPrimFunc) -> set[str]:
    """The sizes the kernel's ``T.const("...")`` calls declare."""
    declared: set[str] = set()
    for node in ast.walk(func.tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "const" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            declared.update(p for p in node.args[0].value.replace(",", " ").split() if p)
    return declared


def _read_sizes(func: EagerPrimFunc, name: str, spec: T.TensorSpec, value: Any,
                sizes: dict[str, int], node: ast.AST, consts: set[str]) -> None:
    """Bind the ``T.const`` sizes of ``spec`` from the tensor's shape (a
    ``T.dynamic`` size stays run-time: one kernel for every size)."""
    shape = tuple(getattr(value, "shape", ()))
    where = func.source.location(node)
    if len(shape) != len(spec.shape):
        raise LanguageError(where, f"'{name}' is declared with {len(spec.shape)} dimensions "
                            f"{_show(spec.shape)} but is given shape {shape}")
    for dim, size in zip(spec.shape, shape):
        if isinstance(dim, T.SymbolicDim):
            if dim.name not in consts:
                continue
            if sizes.setdefault(dim.name, int(size)) != size:
                raise LanguageError(where, f"size {dim.name} is {sizes[dim.name]} but '{name}' "
                                    f"has {size} there (shape {shape})")
        elif dim != size:
            raise LanguageError(where, f"'{name}' is declared {_show(spec.shape)} but is given shape {shape}")


def _show(shape: tuple) -> str:
    return "(" + ", ".join(d.name if isinstance(d, T.SymbolicDim) else str(d) for d in shape) + ")"
