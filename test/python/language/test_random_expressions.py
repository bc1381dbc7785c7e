"""Random ``T.Parallel`` bodies: expression trees over loads, constants, loop
coordinates, + - * /, T.max/T.min, T.exp/T.log/T.sqrt/T.rsqrt, comparisons and
T.if_then_else, written out as a kernel file in TileLang's style, built through
the frontend, compiled through the full flow (CUDA to PTX, or AscendC) and run in
the interpreter against numpy evaluating the same tree in float32.  A few seeds by
default; ``TILEPIPE_LANGUAGE_SEEDS=N`` runs N."""

from __future__ import annotations

import importlib.util
import os
import random
import sys

import numpy as np
import pytest

import tilepipe

SEEDS = range(int(os.environ.get("TILEPIPE_LANGUAGE_SEEDS", "6")))
M, N = 8, 16
F32 = np.float32


class Expr:
    """A generated expression: its T.* source and its numpy value (float32); and
    whether it is known positive (for log and sqrt)."""

    def __init__(self, text: str, value: np.ndarray, positive: bool = False):
        self.text, self.value, self.positive = text, value.astype(F32), positive


def leaf(rng: random.Random, inputs: dict[str, np.ndarray]) -> Expr:
    kind = rng.choice(["load", "load", "const", "coordinate"])
    if kind == "load":
        name = rng.choice(sorted(inputs))
        return Expr(f"{name}_f[i, j]", inputs[name], positive=True)  # inputs lie in [0.5, 2]
    if kind == "const":
        c = rng.choice([0.5, 1.5, 3.0, -2.0])
        return Expr(repr(c), np.full((M, N), c, F32), positive=c > 0)
    rows, cols = np.indices((M, N))
    offset = rng.choice([0, 3])
    if rng.random() < 0.5:
        return Expr(f'T.cast(i + {offset}, "float32")', (rows + offset).astype(F32), positive=offset > 0)
    return Expr(f'T.cast(j - {offset}, "float32")', (cols - offset).astype(F32))


def expression(rng: random.Random, inputs: dict[str, np.ndarray], depth: int) -> Expr:
    if depth == 0 or rng.random() < 0.25:
        return leaf(rng, inputs)
    kind = rng.choice(["binary", "binary", "unary", "select"])
    a = expression(rng, inputs, depth - 1)
    if kind == "unary":
        if a.positive:
            fn = rng.choice(["log", "sqrt", "rsqrt", "exp"])
        else:
            fn = "exp"
            a = Expr(f"T.min({a.text}, 4.0)", np.minimum(a.value, F32(4)))  # no overflow
        value = {"log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: F32(1) / np.sqrt(x),
                 "exp": np.exp}[fn](a.value)
        return Expr(f"T.{fn}({a.text})", value, positive=fn != "log")
    b = expression(rng, inputs, depth - 1)
    if kind == "select":
        pred = rng.choice(["<", ">=", "==", "!="])
        c = expression(rng, inputs, depth - 1)
        d = expression(rng, inputs, depth - 1)
        mask = {"<": np.less, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[pred](a.value, b.value)
        return Expr(f"T.if_then_else({a.text} {pred} {b.text}, {c.text}, {d.text})",
                    np.where(mask, c.value, d.value), c.positive and d.positive)
    op = rng.choice(["+", "-", "*", "/", "max", "min"])
    if op == "/" and not b.positive:
        op = "*"
    if op in ("max", "min"):
        value = (np.maximum if op == "max" else np.minimum)(a.value, b.value)
        return Expr(f"T.{op}({a.text}, {b.text})", value, a.positive or b.positive if op == "max"
                    else a.positive and b.positive)
    value = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](a.value, b.value)
    positive = op in ("*", "/", "+") and a.positive and b.positive
    return Expr(f"({a.text} {op} {b.text})", value, positive)


KERNEL = '''
import tilepipe.language as T


def make():
    @T.prim_func
    def main(X: T.Tensor(({M}, {N}), "float32"), Y: T.Tensor(({M}, {N}), "float32"),
             Z: T.Tensor(({M}, {N}), "float32")):
        with T.Kernel(1, threads=128) as bx:
            X_f = {alloc}(({M}, {N}), "float32")
            Y_f = {alloc}(({M}, {N}), "float32")
            Z_f = {alloc}(({M}, {N}), "float32")
            T.copy(X[0, 0], X_f)
            T.copy(Y[0, 0], Y_f)
            for i, j in T.Parallel({M}, {N}):
                Z_f[i, j] = {expr}
            T.copy(Z_f, Z[0, 0])

    return main
'''


def load_kernel(tmp_path, seed: int, text: str):
    path = tmp_path / f"random_kernel_{seed}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module.make()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_expression_equals_numpy(seed, tmp_path):
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    inputs = {n: data.uniform(0.5, 2, (M, N)).astype(F32) for n in ("X", "Y")}
    target = "ascend910b" if seed % 3 == 2 else "sm_80"
    expr = expression(rng, inputs, depth=3)
    alloc = "T.alloc_ub" if target == "ascend910b" else "T.alloc_fragment"
    text = KERNEL.format(M=M, N=N, alloc=alloc, expr=expr.text)
    kernel = tilepipe.compile(load_kernel(tmp_path, seed, text), out_idx=[-1], target=target)
    z = kernel(inputs["X"], inputs["Y"], check_races=True)
    np.testing.assert_allclose(z, expr.value, rtol=3e-6, atol=3e-6, err_msg=expr.text)
