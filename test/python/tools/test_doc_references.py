"""Every module, file and name the documentation refers to exists.

The pages (README.md, docs/*.md) and the package's own sources (tilepipe/, dialects/,
passes/, lowering/, scripts/, bench/: docstrings and comments) name modules in three
ways, and each is checked against the tree:

* a dotted name, ``tilepipe.semantics.testing``, resolved through pyproject's
  ``package-dir`` (``tilepipe.dialects`` is ``dialects/``).  It may end in names
  inside the module (``tilepipe.drivers.compile.compile_kernel``, ``Class.method``):
  the first must be defined at the module's top level (a def, class, assignment or
  import; a package's lazily exported names count); the rest are not checked.  A
  dotted name the package's code spells as a string constant (an IR attribute such
  as ``tilepipe.swizzle``) is not a module reference;
  Inside a code span the folders' own names count too: ``passes.analysis.grid`` is
  ``tilepipe.passes.analysis.grid``; in a module's docstring, Sphinx's
  ``:mod:`.sibling``` and ``:mod:`sibling``` are modules of its own package;
* a path from the repository root, ``lowering/nvvm/copy.py``, ``passes/cuda/``,
  ``test/python/tools/test_api.py`` (a ``*`` in it must match something; a path
  written with ``...`` is an abbreviation, and one of asc-devkit's, which the Ascend
  pages cite, is another repository's: neither is checked);
* "`name` in `path.py`": the file defines the name (a def, class, assignment or
  field);
* a module's name from before the layout change (``nvvm_sync``, ``ascend_sim``,
  which were ``lowering/nvvm_sync.py``, ``tilepipe/semantics/ascend_sim.py``), which
  no longer names a module, unless it is also a def or class of the package.

A failure lists each reference as ``file:line: reference`` with what is wrong.
The scan is plain text (regular expressions, no tokenizer), so it takes well under a
second; in a .py file a reference in code counts as one in a comment.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SOURCE_FOLDERS = ["tilepipe", "dialects", "passes", "lowering", "scripts", "bench"]
PATH_ROOTS = [*SOURCE_FOLDERS, "test", "examples", "docs"]
# Paths in another repository that the pages cite (AscendC's asc-devkit), not in this one.
EXTERNAL_PATHS = ("docs/zh/", "examples/01_simd_cpp_api/")

# Flat modules of the layout before the per-target subpackages, by what replaced them.
RETIRED_MODULES = {
    "ascend_flag_blocks": "passes/ascend/flag_blocks.py",
    "ascend_flag_budget": "passes/ascend/flag_budget.py",
    "ascend_insert_sync": "passes/ascend/insert_sync.py",
    "ascend_issue": "tilepipe/semantics/ascend/issue.py",
    "ascend_layout": "tilepipe/semantics/ascend/layout.py",
    "ascend_materialize_multi_buffer": "passes/ascend/materialize_multi_buffer.py",
    "ascend_multi_buffer": "passes/ascend/multi_buffer.py",
    "ascend_pipeline": "lowering/ascend/pipeline.py",
    "ascend_prepare_multi_buffer": "passes/ascend/prepare_multi_buffer.py",
    "ascend_races": "tilepipe/semantics/ascend/races.py",
    "ascend_resolve_core": "passes/ascend/resolve_core.py",
    "ascend_sim": "tilepipe/semantics/ascend/sim.py",
    "ascend_sync_analysis": "passes/ascend/sync_analysis.py",
    "nvvm_access": "lowering/nvvm/access.py",
    "nvvm_boundary": "lowering/nvvm/boundary.py",
    "nvvm_banks": "tilepipe/semantics/nvvm/banks.py",
    "nvvm_collectives": "tilepipe/semantics/nvvm/collectives.py",
    "nvvm_combine": "lowering/nvvm/combine.py",
    "nvvm_copy": "lowering/nvvm/copy.py",
    "nvvm_elementwise": "lowering/nvvm/elementwise.py",
    "nvvm_emit": "lowering/nvvm/emit.py",
    "nvvm_gemm": "lowering/nvvm/gemm.py",
    "nvvm_induction": "lowering/nvvm/induction.py",
    "nvvm_interp": "tilepipe/semantics/nvvm/interp.py (its machine: execution.py)",
    "nvvm_kernel": "lowering/nvvm/kernel.py",
    "nvvm_launch": "lowering/nvvm/launch.py",
    "nvvm_layout": "lowering/nvvm/layout.py",
    "nvvm_races": "tilepipe/semantics/nvvm/races.py",
    "nvvm_reduce": "lowering/nvvm/reduce.py",
    "nvvm_registers": "lowering/nvvm/registers.py",
    "nvvm_slots": "lowering/nvvm/slots.py",
    "nvvm_swizzle": "lowering/nvvm/swizzle.py",
    "nvvm_sync": "lowering/nvvm/sync.py",
}

# Each pattern starts with a literal, so that scanning is fast; a match preceded by a
# name, a dot, a slash or a dash (xdsl/dialects/..., x.tilepipe) is not a reference.
NOT_AFTER = set("./-_") | set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
DOTTED = re.compile(r"tilepipe(?:\.[A-Za-z_]\w*)+(?![\w-])")
PATH = re.compile(r"(?:" + "|".join(PATH_ROOTS) + r")/[\w./*-]*[\w/*]")
RETIRED = re.compile(r"(?:ascend|nvvm)_\w+")
# In a code span, the folders' own names: `passes.analysis.grid` is tilepipe.passes....
FOLDER_DOTTED = re.compile(r"`(?::mod:`)?~?((?:passes|dialects|lowering)(?:\.[A-Za-z_]\w*)+)")
# "`run_driver` in `tilepipe/drivers/command_line.py`": the name is defined there.
NAME_IN_PATH = re.compile(r"`+([A-Za-z_]\w*)[\w.]*`+,? in `+([\w/]+\.py)`+")
# Sphinx's :mod:`.sibling` and :mod:`sibling` in a module's docstring: its package's.
MOD_ROLE = re.compile(r":mod:`~?(\.?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)`")
STRING_CONSTANT = re.compile(r"""["'](tilepipe\.[\w.]+)["']""")
TOP_LEVEL_DEF = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)", re.M)
ANY_DEF = re.compile(r"^\s*(?:async\s+def|def|class)\s+(\w+)", re.M)
TOP_LEVEL_ASSIGN = re.compile(r"^(\w+)\s*(?::[^=\n]*)?=", re.M)
FROM_IMPORT = re.compile(r"^from\s+\S+\s+import\s+(\([^)]*\)|[^\n]*)", re.M)
IMPORT = re.compile(r"^import\s+([^\n]*)", re.M)
LAZY_KEY = re.compile(r"""^\s+["'](\w+)["']\s*:""", re.M)


def package_dirs() -> dict[str, Path]:
    """Dotted package -> folder, from pyproject's [tool.setuptools.package-dir]."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapping = pyproject["tool"]["setuptools"].get("package-dir", {})
    return {name: ROOT / folder for name, folder in mapping.items()}


PACKAGE_DIRS = package_dirs()


@cache
def module_file(dotted: str) -> Path | None:
    """The file of module ``dotted`` (its __init__.py for a package), if it exists."""
    parts = dotted.split(".")
    for length in range(len(parts), 0, -1):
        prefix = ".".join(parts[:length])
        if prefix in PACKAGE_DIRS:
            base = PACKAGE_DIRS[prefix].joinpath(*parts[length:])
            break
    else:
        return None
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


@cache
def top_level_names(path: Path) -> frozenset[str]:
    text = path.read_text()
    names = set(TOP_LEVEL_DEF.findall(text)) | set(TOP_LEVEL_ASSIGN.findall(text))
    for imported in FROM_IMPORT.findall(text):
        for item in imported.strip("()").replace("\n", " ").split(","):
            if item.strip():
                names.add(item.split()[-1])  # `a as b` binds b
    for imported in IMPORT.findall(text):
        for item in imported.split(","):
            if item.strip():
                words = item.split()
                names.add(words[-1] if "as" in words else words[0].split(".")[0])
    if "__getattr__" in names:  # names served lazily from a table of string keys
        names |= set(LAZY_KEY.findall(text))
    return frozenset(names)


def defines(path: Path, name: str) -> bool:
    """Whether ``name`` is a def, class, assignment or field anywhere in the file."""
    pattern = rf"^\s*(?:(?:async\s+)?def|class)\s+{name}\b|^\s*{name}\s*[:=]|\bimport\b.*\b{name}\b"
    return re.search(pattern, path.read_text(), re.M) is not None


def source_files() -> list[Path]:
    return sorted(
        path
        for folder in SOURCE_FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    )


@cache
def scanned_files() -> tuple[tuple[Path, str], ...]:
    return tuple((path, path.read_text()) for path in [*PAGES, *source_files()])


@cache
def ir_names() -> frozenset[str]:
    """Dotted names the package's code spells as strings that are not modules:
    IR attribute names (``"tilepipe.swizzle"``)."""
    names = set()
    for path, text in scanned_files():
        if path.suffix == ".py":
            names |= {name for name in STRING_CONSTANT.findall(text) if not module_file(name)}
    return frozenset(names)


@cache
def defined_names() -> frozenset[str]:
    """Every def and class of the package, at any depth."""
    return frozenset(
        name for path, text in scanned_files() if path.suffix == ".py" for name in ANY_DEF.findall(text)
    )


def dotted_problem(name: str) -> str | None:
    if name in ir_names():
        return None
    parts = name.split(".")
    for length in range(len(parts), 0, -1):
        path = module_file(".".join(parts[:length]))
        if path is None:
            continue
        if length == len(parts):
            return None
        if parts[length] in top_level_names(path):
            return None
        module = ".".join(parts[:length])
        if length + 1 == len(parts):
            return f"no module {name}, and {module} defines no {parts[length]}"
        return f"no module {'.'.join(parts[: length + 1])}, and {module} defines no {parts[length]}"
    return "no such module"


def package_of(path: Path) -> str | None:
    """The dotted package a source file belongs to (None outside the packages)."""
    best = None
    for name, folder in PACKAGE_DIRS.items():
        if path.is_relative_to(folder) and (best is None or len(folder.parts) > len(best[1].parts)):
            best = (name, folder)
    if best is None:
        return None
    name, folder = best
    return ".".join([name, *path.parent.relative_to(folder).parts])


def path_problem(path: str) -> str | None:
    if "..." in path or "…" in path or path.startswith(EXTERNAL_PATHS):
        return None
    if "*" in path:
        return None if any(ROOT.glob(path)) else "matches no file"
    target = ROOT / path.rstrip("/")
    if path.endswith("/"):
        return None if target.is_dir() else "no such folder"
    return None if target.exists() else "no such file"


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def references(pattern: re.Pattern[str], text: str):
    for match in pattern.finditer(text):
        if match.start() == 0 or text[match.start() - 1] not in NOT_AFTER:
            yield match


def stale_references(files) -> list[str]:
    problems = []
    for path, text in files:
        where = path.relative_to(ROOT)
        for match in references(DOTTED, text):
            if problem := dotted_problem(match.group()):
                problems.append(f"{where}:{line_of(text, match.start())}: {match.group()} ({problem})")
        for match in FOLDER_DOTTED.finditer(text):
            if problem := dotted_problem("tilepipe." + match.group(1)):
                problems.append(f"{where}:{line_of(text, match.start(1))}: {match.group(1)} ({problem})")
        package = package_of(path) if path.suffix == ".py" else None
        for match in MOD_ROLE.finditer(text) if package else ():
            name = match.group(1)
            if name.startswith(("tilepipe.", "passes.", "dialects.", "lowering.")):
                continue  # absolute: checked above
            if problem := dotted_problem(package + "." + name.lstrip(".")):
                problems.append(f"{where}:{line_of(text, match.start(1))}: :mod:`{name}` ({problem})")
        for match in NAME_IN_PATH.finditer(text):
            name, file = match.groups()
            if (ROOT / file).is_file() and not defines(ROOT / file, name):
                problems.append(f"{where}:{line_of(text, match.start())}: {name} ({file} defines no {name})")
        for match in references(PATH, text):
            if text[match.end() : match.end() + 1] in ("{", "<"):
                continue  # a template (test/{area}/...), not a path
            if problem := path_problem(match.group()):
                problems.append(f"{where}:{line_of(text, match.start())}: {match.group()} ({problem})")
        for match in references(RETIRED, text):
            stem = match.group()
            if stem in RETIRED_MODULES and stem not in defined_names():
                problems.append(
                    f"{where}:{line_of(text, match.start())}: {match.group()} "
                    f"(a module before the layout change; now {RETIRED_MODULES[stem]})"
                )
    return problems


def test_the_pages_name_only_what_exists():
    problems = stale_references([(p, t) for p, t in scanned_files() if p.suffix == ".md"])
    assert not problems, "stale references in the docs:\n" + "\n".join(problems)


def test_the_sources_name_only_what_exists():
    problems = stale_references([(p, t) for p, t in scanned_files() if p.suffix == ".py"])
    assert not problems, "stale references in docstrings and comments:\n" + "\n".join(problems)


def test_the_checks_find_what_they_should():
    # A check that resolves nothing, or everything, would pass silently.
    assert module_file("tilepipe.dialects.tile") == ROOT / "dialects" / "tile.py"
    assert module_file("tilepipe.semantics") == ROOT / "tilepipe" / "semantics" / "__init__.py"
    assert dotted_problem("tilepipe.drivers.lit_support") is None
    assert dotted_problem("tilepipe.drivers.lit_support.configure") is None
    assert dotted_problem("tilepipe.compile_for") is None  # served lazily by tilepipe/__init__.py
    assert dotted_problem("tilepipe.semantics.execute") is None  # imported by the package
    assert dotted_problem("tilepipe.testing") is not None
    assert dotted_problem("tilepipe.lowering.nvvm_sync") is not None
    assert dotted_problem("tilepipe.drivers.lit_support.no_such_name") is not None
    assert path_problem("lowering/nvvm/copy.py") is None
    assert path_problem("passes/cuda/") is None
    assert path_problem("lowering/nvvm_copy.py") is not None
    assert path_problem("tilepipe/compile.py") is not None
    assert "tilepipe.swizzle" in ir_names()
    assert package_of(ROOT / "passes" / "cuda" / "hazards.py") == "tilepipe.passes.cuda"
    assert package_of(ROOT / "scripts" / "demo.sh") is None
    sample = [
        (ROOT / "README.md", "see `nvvm_sync` and `ascend_races` in\nlowering/nvvm_copy.py"),
        (ROOT / "passes" / "cuda" / "x.py", ":mod:`hazards`, :mod:`.nope`, `passes.cuda.nope`"),
    ]
    found = sorted(stale_references(sample))
    assert [line.split(" (")[0] for line in found] == [
        "README.md:1: nvvm_sync",
        "README.md:2: lowering/nvvm_copy.py",
        "passes/cuda/x.py:1: :mod:`.nope`",
        "passes/cuda/x.py:1: passes.cuda.nope",
    ], found
    assert not stale_references([(ROOT / "README.md", "`run_driver` in `tilepipe/drivers/command_line.py`")])
    assert stale_references([(ROOT / "README.md", "`run_driver` in `tilepipe/core/targets.py`")])
