"""An eager kernel's *prelude*: the statements before its ``with T.Kernel``.

They say which parameters are tensors (``A: T.Tensor((M, K), dtype)``), which
tensors the kernel allocates and returns (``C = T.empty(...)``), and name its
sizes (``T.const``); :func:`read_prelude` runs them in the statement walker (so
errors are located as any other) and collects the declarations
(:mod:`.eager` says what eager kernels are).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tilepipe.language import namespace as T
from tilepipe.language.errors import LanguageError


def is_kernel_block(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is ``with T.Kernel(...)`` (as whatever name ``T`` has)."""
    if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
        return False
    call = stmt.items[0].context_expr
    func = call.func if isinstance(call, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr == "Kernel") or (
        isinstance(func, ast.Name) and func.id == "Kernel")


@dataclass
class Binding:
    """One specialization: the Python values of the non-tensor parameters and the
    sizes ``T.const`` names (a missing size stays run-time)."""

    values: dict[str, Any]
    sizes: dict[str, int] = field(default_factory=dict)
    tensor_params: tuple[str, ...] = ()


@dataclass
class Prelude:
    """What the statements before ``with T.Kernel`` declare."""

    inputs: list[tuple[str, T.TensorSpec, ast.AST]]
    outputs: list[tuple[str, T.TensorSpec, ast.AST]]
    body: list[ast.stmt]  # the statements after the prelude


def read_prelude(walker: Any, tolerant: bool = False) -> Prelude:
    """Run the prelude in ``walker`` (binding its plain names) and collect the
    tensors it declares; also checks the ``return`` against the ``T.empty``s.
    ``tolerant``: the sizes may not be known yet (the tensors' shapes are what is
    being read), so a plain statement that fails is skipped -- the kernel's build,
    with every size known, runs it again."""
    prim = walker.prim
    binding: Binding = prim.eager  # type: ignore[attr-defined]
    body = prim.tree.body
    start = next((i for i, s in enumerate(body) if is_kernel_block(s)), len(body))
    declared: dict[str, tuple[T.TensorSpec, ast.AST]] = {}
    outputs: dict[str, tuple[T.TensorSpec, ast.AST]] = {}
    for stmt in body[:start]:
        target = getattr(stmt, "target", None)
        if isinstance(stmt, ast.AnnAssign) and isinstance(target, ast.Name) and stmt.value is None:
            if target.id not in binding.tensor_params:
                walker.fail(stmt, f"'{target.id}' is not a parameter of {prim.name}: "
                            "annotate parameters with T.Tensor, allocate outputs with T.empty")
            spec = walker.guard(stmt, lambda s=stmt: walker.eval(s.annotation))
            if not isinstance(spec, T.TensorSpec) or isinstance(spec, T.EmptySpec):
                walker.fail(stmt, f"parameter '{target.id}' needs a T.Tensor((...), dtype) annotation")
            declared[target.id] = (spec, stmt)
            continue
        if isinstance(stmt, ast.Assign) and _is_empty_call(stmt.value, walker):
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                walker.fail(stmt, "assign T.empty(...) to one name")
            spec = walker.guard(stmt, lambda s=stmt: walker.eval(s.value))
            outputs[stmt.targets[0].id] = (spec, stmt)
            continue
        if not tolerant:
            walker.statements([stmt])
            continue
        try:
            walker.statements([stmt])
        except LanguageError:
            pass  # arithmetic on a size not known yet (`splitK = K // split_k`): not needed here
    for name in binding.tensor_params:
        if name not in declared:
            walker.fail(prim.tree, f"tensor parameter '{name}' has no `{name}: T.Tensor(...)` line")
    returned = _returned_names(walker, body[start:], outputs)
    inputs = [(n, *declared[n]) for n in binding.tensor_params]
    return Prelude(inputs, [(n, *outputs[n]) for n in returned], body[start:])


def _is_empty_call(value: ast.expr, walker: Any) -> bool:
    if not isinstance(value, ast.Call):
        return False
    try:
        return walker.eval(value.func) is T.empty
    except Exception:  # noqa: BLE001 - an unknown callee is reported where it is called
        return False


def _returned_names(walker: Any, rest: list[ast.stmt],
                    outputs: dict[str, tuple[T.TensorSpec, ast.AST]]) -> list[str]:
    returns = [s for s in rest if isinstance(s, ast.Return)]
    if not returns:
        if outputs:
            name = next(iter(outputs))
            walker.fail(outputs[name][1], f"'{name}' = T.empty(...) is never returned")
        return []
    stmt = returns[0]
    if stmt is not rest[-1]:
        walker.fail(stmt, "the `return` of an eager kernel must be its last statement")
    value = stmt.value
    elts = [] if value is None else value.elts if isinstance(value, ast.Tuple) else [value]
    names = [e.id for e in elts if isinstance(e, ast.Name)]
    if len(names) != len(elts) or any(n not in outputs for n in names) or len(set(names)) != len(names):
        walker.fail(stmt, "an eager kernel returns the tensors it allocated with T.empty "
                    f"({', '.join(outputs) or 'none'}), each once")
    for name, (_, node) in outputs.items():
        if name not in names:
            walker.fail(node, f"'{name}' = T.empty(...) is never returned")
    return names
