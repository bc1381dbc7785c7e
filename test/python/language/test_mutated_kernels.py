"""Mutated kernels: random small edits of TileLang-style kernels (a number changed, a
name swapped, a statement dropped, call arguments reordered) must compile or fail
with a located ``tilepipe.CompileError`` -- never another exception from inside
tilepipe.  A few seeds by default; ``TILEPIPE_LANGUAGE_SEEDS=N`` runs N."""

from __future__ import annotations

import ast
import importlib.util
import os
import random
import sys
from pathlib import Path

import pytest

import tilepipe

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "python"
SOURCES = {"gemm": ("matmul", (128, 128, 128)), "flash_attention_bshd": ("flash_attention", (1, 2, 64, 64, True)),
           "row_softmax": None, "gemm_epilogue": None}
SEEDS = range(int(os.environ.get("TILEPIPE_LANGUAGE_SEEDS", "8")))
NUMBERS = [0, -1, 3, 7, 1.5, 1024]


class Mutator(ast.NodeTransformer):
    def __init__(self, rng: random.Random, names: list[str]):
        self.rng, self.names, self.done = rng, names, False

    def _now(self) -> bool:
        if self.done or self.rng.random() > 0.04:
            return False
        self.done = True
        return True

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, int | float) and not isinstance(node.value, bool) and self._now():
            return ast.copy_location(ast.Constant(self.rng.choice(NUMBERS)), node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and self._now():
            return ast.copy_location(ast.Name(self.rng.choice(self.names), ast.Load()), node)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if len(node.args) >= 2 and self._now():
            node.args = node.args[::-1]
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and len(body) > 1 and all(isinstance(s, ast.stmt) for s in body) \
                    and self._now():
                body.pop(self.rng.randrange(len(body)))
        return super().generic_visit(node)


def _kernel_of(path: Path, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_kernel_compiles_or_reports_a_located_error(seed, tmp_path):
    rng = random.Random(seed)
    name = rng.choice(["gemm", "flash_attention_bshd"])
    factory, args = SOURCES[name]
    tree = ast.parse((EXAMPLES / f"{name}.py").read_text())
    names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    mutator = Mutator(rng, names)
    while not mutator.done:
        tree = mutator.visit(tree)
    path = tmp_path / f"mutant_{seed}.py"
    path.write_text(ast.unparse(ast.fix_missing_locations(tree)))
    try:
        module = _kernel_of(path, f"mutant_{seed}")
        func = getattr(module, factory)(*args)
    except Exception:  # noqa: BLE001 - the mutant's own Python fails before any kernel exists
        return
    try:
        tilepipe.compile(func, out_idx=[-1], level="scheduled")
    except tilepipe.CompileError as err:  # located at the mutant's line
        assert err.diagnostics and str(err.diagnostics[0]).startswith(f"{path}:"), str(err)
