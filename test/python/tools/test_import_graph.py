"""The package's import graph: no cycles, imports flow one way, and each folder is
one layer.

dialects and the ground floor (tilepipe/core: targets, the registry tables, located
parsing, op diagnostics) -> shared analyses -> pipelining and memory passes -> CUDA and
Ascend passes -> lowerings -> the executable semantics (it runs lowered kernels and
compiles Ascend ones for their race check) -> the top floor (tilepipe/drivers, the
fuzzer, the schedule simulator, the Python frontend tilepipe/language).  Every import statement counts, at any depth (a
function-level import is still a dependence).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# (folder, layer): a module's layer is the layer of the innermost folder holding it.
LAYERS = [
    ("tilepipe.dialects", 0),
    ("tilepipe.core", 0),
    ("tilepipe.passes.analysis", 1),
    ("tilepipe.passes.rewrite", 1),  # IR-building helpers the transformations share
    ("tilepipe.passes.pipelining", 2),
    ("tilepipe.passes.memory", 2),
    ("tilepipe.passes.tuning", 2),
    ("tilepipe.passes.cuda", 3),
    ("tilepipe.passes.ascend", 3),
    ("tilepipe.passes", 3),
    ("tilepipe.lowering", 4),
    ("tilepipe.semantics", 5),  # runs lowered kernels, compiles Ascend ones
    ("tilepipe.drivers", 6),
    ("tilepipe.fuzz", 6),
    ("tilepipe.schedule_sim", 6),
    ("tilepipe.language", 6),  # the Python frontend: builds tile IR, compiles and runs it
    ("tilepipe.autotuner", 6),  # TileLang's module names over tilepipe.language
    ("tilepipe.profiler", 6),
    ("tilepipe", 6),  # the package itself: the lazily imported public API
]
# Sibling groups of one layer that must not know each other (one target each).
SEPARATE = [
    ("tilepipe.passes.cuda", "tilepipe.passes.ascend"),
    ("tilepipe.lowering.nvvm", "tilepipe.lowering.ascend"),
    ("tilepipe.semantics.nvvm", "tilepipe.semantics.ascend"),
]


def layer_of(module: str) -> int:
    return next(layer for folder, layer in LAYERS if _in(module, folder))


def package_dirs() -> dict[str, Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {pkg: ROOT / d for pkg, d in config["tool"]["setuptools"]["package-dir"].items()}


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for pkg, folder in sorted(package_dirs().items(), key=lambda kv: -len(kv[0])):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if "ascendc_stub" in parts or parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.setdefault(".".join([pkg, *parts]), path)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = anchor + ("." + base if base else "")
                for alias in node.names:
                    if f"{base}.{alias.name}" in mods:
                        deps.add(f"{base}.{alias.name}")
                    elif base in mods:
                        deps.add(base)
            elif isinstance(node, ast.Import):
                deps |= {alias.name for alias in node.names if alias.name in mods}
        graph[name] = deps - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_sees_the_whole_package():
    graph = import_graph()
    assert "tilepipe.passes.cuda.thread_sync" in graph
    assert "tilepipe.dialects.tile" in graph["tilepipe.passes.cuda.thread_sync"]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_imports_flow_from_dialects_to_drivers():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {dep} (layer {layer_of(dep)})"
        for module, deps in sorted(import_graph().items())
        for dep in sorted(deps)
        if layer_of(dep) > layer_of(module)
    ]
    assert upward == []


def test_targets_do_not_know_each_other():
    crossing = [
        f"{module} imports {dep}"
        for module, deps in sorted(import_graph().items())
        for dep in sorted(deps)
        for a, b in SEPARATE
        if (_in(module, a) and _in(dep, b)) or (_in(module, b) and _in(dep, a))
    ]
    assert crossing == []


def test_a_cycle_and_an_upward_import_are_found():
    graph = {"a": {"b"}, "b": {"a"}, "c": set()}
    assert cycles(graph) == [["a", "b"]]
    assert layer_of("tilepipe.passes.analysis.liveness") < layer_of("tilepipe.lowering.nvvm.kernel")


def test_each_folder_is_one_layer():
    """Every module sits in a folder of the table, whose layer it takes: none directly
    in the package root, which holds only the lazily importing ``__init__`` and
    ``__main__`` (the root once mixed the ground floor and the drivers)."""
    unplaced = [
        module
        for module in modules()
        if module != "tilepipe"
        and not any(_in(module, folder) for folder, _ in LAYERS if folder != "tilepipe")
    ]
    assert unplaced == []
    root = sorted(p.name for p in (ROOT / "tilepipe").glob("*.py"))
    assert root == ["__init__.py", "__main__.py"]
