"""Errors of the Python frontend, located at the user's Python source.

A :class:`LanguageError` is a :class:`tilepipe.CompileError` (so one ``except``
catches both kinds) whose single diagnostic names ``file:line:col`` of the
statement or call that is wrong, and says what to write instead.  The frontend
raises nothing else for bad programs: a Python traceback from inside tilepipe
would point at tilepipe, not at the kernel the user has to fix.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

from tilepipe.core.diagnostics import Diagnostic, SourceLocation
from tilepipe.drivers.compile import CompileError


@dataclass(frozen=True)
class PySource:
    """Where a function's source lies: the file, and the line and column offset
    that turn a position in its (dedented) AST into one in the file."""

    file: str
    first_line: int
    indent: int

    def location(self, node: ast.AST | None) -> SourceLocation:
        if node is None or not hasattr(node, "lineno"):
            return SourceLocation(self.file, self.first_line, 1)
        return SourceLocation(
            self.file,
            node.lineno + self.first_line - 1,
            node.col_offset + self.indent + 1,
        )

    def loc_attr(self, node: ast.AST | None) -> FileLineColLoc:
        where = self.location(node)
        return FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.column))


class LanguageError(CompileError):
    """A program the frontend cannot compile, located at the user's Python line."""

    def __init__(self, location: SourceLocation | None, message: str):
        super().__init__([Diagnostic("error", message, location)])
        self.location = location
        self.message = message


class FrontendError(Exception):
    """Raised by the builder helpers, which do not know the source position; the
    AST walker turns it into a :class:`LanguageError` at the statement it was
    building."""


@functools.lru_cache(maxsize=256)
def read_function(fn: Callable[..., Any]) -> tuple[str, PySource, ast.FunctionDef]:
    """``fn``'s source text, where it lies, and its ``def`` as an AST (a kernel's, or
    a helper's the frontend inlines)."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as err:
        raise LanguageError(None, f"cannot read the source of {fn.__name__}: {err}") from None
    text = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())  # what dedent removes
    node = ast.parse(textwrap.dedent(text)).body[0]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return text, PySource(file, first_line, indent), node

