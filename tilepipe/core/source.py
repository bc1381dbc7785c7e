"""Reading and parsing kernel text, the same way in every driver.

``tile-opt``, ``tile-run``, ``tilepipe compile`` and the AscendC printer all read a
kernel through :func:`read_source` and :func:`parse_source`, so bad input gets the same
located diagnostic (an :class:`~tilepipe.core.diagnostics.InputError`) whichever tool reads it:

* bytes that are not UTF-8 are an error at the line and column of the first bad byte;
* every parse error points at its token and says what was wrong (xDSL has a few
  messages that are empty or start mid-sentence, e.g. ``" in block definition"``);
* regions nested deeper than :data:`MAX_REGION_DEPTH` are an error at the region that
  goes too deep: the parser, the verifier, the printer and the passes are recursive
  Python, and a stated limit is better than a ``RecursionError`` somewhere later;
* every operand must be visible at its use (xDSL resolves a forward reference from
  outside a region to a value defined inside it, and keeps placeholders it could not
  resolve): checked after parsing, before anything looks at an operand's owner;
* a location alias may be used before its definition, as upstream MLIR prints them
  (``loc(#loc3)`` ... ``#loc3 = loc("k.mlir":12:3)`` at the end of the module), which
  xDSL's parser alone rejects (``undefined symbol alias``).
"""

from __future__ import annotations

import bisect
import re
from argparse import ArgumentTypeError
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, LocationAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue, UnresolvedOperand
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.frontend import Frontend
from xdsl.utils.lexer import Location, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tilepipe.core.diagnostics import (
    Diagnostic,
    InputError,
    SourceLocation,
    diagnostic_of_exception,
    verify_module,
)

MAX_REGION_DEPTH = 64
"""Deepest region nesting tilepipe accepts (a kernel needs a handful)."""


# Module-like containers (their bodies do not count towards the nesting limit).
_MODULE_SPELLINGS = (
    "builtin.module", "module", '"builtin.module"', "gpu.module", '"gpu.module"'
)


# A top-level location alias definition, `#loc3 = loc(`: upstream prints the ones its
# ops use after the module (MLIR's AsmPrinter defers location aliases to the end).
_LOCATION_ALIAS_DEFINITION = re.compile(r"^(#[A-Za-z_][\w$]*)[ \t]*=[ \t]*(?=loc\()", re.MULTILINE)


def location_alias_definitions(text: str) -> dict[str, int]:
    """Each location alias defined once at the top level of ``text``, with the offset
    of its ``loc(...)`` value.  A name defined twice is left out: the parser then
    reports the redefinition where it meets it."""
    offsets: dict[str, int] = {}
    twice: set[str] = set()
    for match in _LOCATION_ALIAS_DEFINITION.finditer(text):
        if match[1] in offsets:
            twice.add(match[1])
        offsets[match[1]] = match.end()
    return {name: offset for name, offset in offsets.items() if name not in twice}


class _LineStarts:
    """Where each line of a text starts: a token's line is then a bisection.  (xDSL's
    ``Span.get_location`` counts the newlines before the token, which over every op of
    a file is quadratic in its length: a third of a second for a 300 KB dump.)"""

    def __init__(self, text: str):
        self.starts = [0]
        position = text.find("\n")
        while position >= 0:
            self.starts.append(position + 1)
            position = text.find("\n", position + 1)

    def location(self, span: Span) -> Location:
        """What ``span.get_location()`` returns."""
        line = bisect.bisect_right(self.starts, span.start) - 1
        return Location(
            span.input.name, line + 1 + span.line_offset, span.start - self.starts[line] + 1
        )


class LocatingParser(Parser):
    """A parser that gives every op without a written location the file:line:col
    where its text starts, bounds the region nesting, remembers where undeclared
    values were used and reads a location alias used before its definition."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._lines = _LineStarts(text)
        # Location aliases not read yet (name -> offset of the value), and those read
        # ahead of their definition, which the module's alias list then skips.
        self._later_locations = location_alias_definitions(text)
        self._read_ahead: set[str] = set()
        # Where the token after the last location written in the text starts: an op
        # whose text ends there has its own location (loc(unknown) included).
        self._after_location = -1
        self._file_name = name
        self._line_offset = line_offset
        self._region_depth = 0
        self._module_region_next = False
        self.failed_op_location = None
        # Placeholder -> (name, span) of its first use, for "use of undeclared value".
        self.forward_uses: dict[ForwardDeclaredValue, tuple[str, Span]] = {}

    def parse_operation(self) -> Operation:
        location = self._lines.location(self._current_token.span)
        # A module's body does not count towards the nesting limit: the printer makes
        # the implicit module of the input explicit, lower-to-nvvm adds a gpu.module,
        # and what tilepipe prints must parse back.
        if self._current_token.text in _MODULE_SPELLINGS:
            self._module_region_next = True
        try:
            op = super().parse_operation()
        except DiagnosticException:
            # Remember the innermost op whose construction failed a constraint.
            if self.failed_op_location is None:
                self.failed_op_location = location
            raise
        if self._after_location != self._current_token.span.start:
            op.location = FileLineColLoc(
                StringAttr(self._file_name),
                IntAttr(location.line + self._line_offset),
                IntAttr(location.col),
            )
        return op

    def parse_optional_region(self, arguments=None) -> Region | None:
        counted = not self._module_region_next
        self._module_region_next = False
        if counted and self._current_token.kind == MLIRTokenKind.L_BRACE:
            if self._region_depth >= MAX_REGION_DEPTH:
                self.raise_error(
                    f"regions nested deeper than {MAX_REGION_DEPTH} levels "
                    "(tilepipe's limit)"
                )
        self._region_depth += counted
        try:
            return super().parse_optional_region(arguments)
        finally:
            self._region_depth -= counted

    def parse_optional_location(self) -> LocationAttr | None:
        location = super().parse_optional_location()
        if location is not None:
            self._after_location = self._current_token.span.start
        return location

    def _parse_location(self) -> LocationAttr:
        token = self._current_token
        if (
            token.kind == MLIRTokenKind.HASH_IDENT
            and token.text not in self.attribute_aliases
            and token.text in self._later_locations
        ):
            self._read_location_ahead(token.text)
        return super()._parse_location()

    def _read_location_ahead(self, alias: str) -> None:
        """Read ``alias``'s definition where it stands (later in the text) and come
        back.  An alias naming another one (``fused[#loc1, #loc2]``) reads that one
        the same way; the name leaves the table first, so a cycle ends as an
        undefined alias rather than a recursion."""
        offset = self._later_locations.pop(alias)
        here = self._current_token.span.start
        self._resume_from(offset)
        location = self.parse_optional_location()
        assert location is not None  # the table holds offsets of `loc(`
        self._resume_from(here)
        self.attribute_aliases[alias] = location
        self._read_ahead.add(alias)

    def _parse_alias_def(self) -> None:
        name = self._current_token.text
        if name in self._read_ahead:
            # Its value was read at its first use: skip the definition.
            self._read_ahead.discard(name)
            del self.attribute_aliases[name]
        super()._parse_alias_def()

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as err:
            if not err.msg.startswith("values used but not defined"):
                raise
            # xDSL reports values never defined at the end of the input, all at once;
            # MLIR reports the first use of one, where it is written.
            undefined = [
                (span.start, name, span)
                for value, (name, span) in self.forward_uses.items()
                if name in self.forward_ssa_references
            ]
            if not undefined:
                raise
            _, name, span = min(undefined, key=lambda use: use[0])
            raise ParseError(span, f"use of undeclared SSA value %{name}") from None

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        value = super().resolve_operand(operand, type)
        if isinstance(value, ForwardDeclaredValue):
            self.forward_uses.setdefault(value, (operand.operand_name, operand.span))
        return value


def _location(name: str, span: Span, line_offset: int) -> SourceLocation:
    loc = span.get_location()
    return SourceLocation(name, loc.line + line_offset, loc.col)


def parse_error_message(err: ParseError) -> str:
    """A message that says what was wrong, never an empty or headless one."""
    message = err.msg.strip()
    if message and not err.msg.startswith(" "):
        return message
    token = err.span.text
    found = f"unexpected '{token}'" if token else "unexpected end of input"
    return f"{found} {message}" if message else found


def decode_source(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; a bad byte is an error at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        # Columns count characters, as the parser's do.
        column = len(data[line_start : err.start].decode("utf-8", "replace")) + 1
        raise InputError(
            Diagnostic(
                "error",
                f"invalid UTF-8 byte 0x{data[err.start]:02x} (the input must be UTF-8 text)",
                SourceLocation(name, line, column),
            )
        ) from None


def read_source(path: str | Path, stdin=None) -> str:
    """The text of ``path`` ('-' reads ``stdin``); unreadable files and bad bytes are
    :class:`InputError`."""
    name = str(path)
    try:
        if name == "-":
            import sys

            stream = stdin or sys.stdin
            data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
            return data if isinstance(data, str) else decode_source(data, "<stdin>")
        data = Path(name).read_bytes()
    except OSError as err:
        raise InputError(
            Diagnostic("error", f"cannot read '{name}': {err.strerror or err}")
        ) from None
    return decode_source(data, name)


def undeclared_or_invisible_use(
    module: Operation, forward_uses: dict[ForwardDeclaredValue, tuple[str, Span]],
    name: str, line_offset: int = 0,
) -> Diagnostic | None:
    """The first use of a value that is undeclared or not visible where it is used
    (defined later in the block, inside another op's region, or above an op isolated
    from above), as MLIR's parser and dominance verifier would report it."""
    from tilepipe.core.diagnostics import op_diagnostic

    position = {op: index for index, op in enumerate(module.walk())}
    dominators: dict[Region, dict[Block, set[Block]]] = {}  # per region, when asked
    for op in module.walk():
        for number, operand in enumerate(op.operands):
            if isinstance(operand, ForwardDeclaredValue):
                if operand in forward_uses:
                    value_name, span = forward_uses[operand]
                    return Diagnostic(
                        "error",
                        f"use of undeclared SSA value %{value_name}",
                        _location(name, span, line_offset),
                    )
                return op_diagnostic(op, "error", f"operand #{number} is undeclared")
            problem = _visibility_problem(operand, op, position, dominators)
            if problem is not None:
                name_hint = f" (%{operand.name_hint})" if operand.name_hint else ""
                return op_diagnostic(op, "error", f"operand #{number}{name_hint} {problem}")
    return None


def _visibility_problem(
    value: SSAValue,
    user: Operation,
    position: dict[Operation, int],
    dominators: dict[Region, dict[Block, set[Block]]],
) -> str | None:
    if isinstance(value, OpResult):
        block, definer = value.op.parent_block(), value.op
    elif isinstance(value, BlockArgument):
        block, definer = value.block, None
    else:
        return None
    # Walk up from the user to the op that sits in the defining block, through the
    # regions that enclose the use.
    ancestor = user
    while ancestor.parent_block() is not block:
        if block is not None and ancestor.parent_region() is block.parent:
            # Another block of the defining region (a CFG, as the llvm level has).
            region = block.parent
            if region not in dominators:
                dominators[region] = _dominators(region)
            if block in dominators[region][ancestor.parent_block()]:
                return None
            return "does not dominate this use"
        parent = ancestor.parent_op()
        if parent is None:
            return "is used outside the region that defines it"
        if parent.has_trait(IsolatedFromAbove):
            return "is defined above an op isolated from above"
        ancestor = parent
    if definer is not None and not position[definer] < position[ancestor]:
        return "does not dominate this use"
    return None


def _dominators(region: Region) -> dict[Block, set[Block]]:
    """Each block of ``region`` to the blocks that dominate it (the entry block
    dominates all; iterated to the fixed point, as the regions are small)."""
    blocks = list(region.blocks)
    predecessors: dict[Block, list[Block]] = {block: [] for block in blocks}
    for block in blocks:
        terminator = block.last_op
        for successor in terminator.successors if terminator is not None else ():
            predecessors[successor].append(block)
    everything = set(blocks)
    dominators = {block: set(everything) for block in blocks}
    dominators[blocks[0]] = {blocks[0]}
    changed = True
    while changed:
        changed = False
        for block in blocks[1:]:
            incoming = [dominators[p] for p in predecessors[block]]
            # An unreachable block is dominated by every block, as in MLIR.
            new = set.intersection(*incoming) | {block} if incoming else set(everything)
            if new != dominators[block]:
                dominators[block], changed = new, True
    return dominators


def redefined_symbol(module: Operation) -> Diagnostic | None:
    """A second definition of a symbol in one symbol table, at the second definition
    (xDSL's verifier reports it on the table, which has no place in the text)."""
    from xdsl.traits import SymbolTable

    from tilepipe.core.diagnostics import op_diagnostic, op_location

    for table in module.walk():
        if not table.has_trait(SymbolTable) or not table.regions:
            continue
        seen: dict[str, Operation] = {}
        for block in table.regions[0].blocks:
            for op in block.ops:
                symbol = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if not isinstance(symbol, StringAttr):
                    continue
                if symbol.data in seen:
                    first = op_location(seen[symbol.data])
                    return op_diagnostic(
                        op, "error",
                        f"redefinition of symbol named '{symbol.data}' (first defined at {first})",
                    )
                seen[symbol.data] = op
    return None


def public_declaration(module: Operation) -> Diagnostic | None:
    """A function declaration without ``private`` (or ``nested``) visibility, which
    upstream's symbol verifier rejects and xDSL's accepts: reported at the function,
    in upstream's words, before any upstream step sees it."""
    from xdsl.dialects.func import FuncOp

    from tilepipe.core.diagnostics import op_diagnostic

    for op in module.walk():
        if not isinstance(op, FuncOp) or not op.is_declaration:
            continue
        visibility = op.sym_visibility.data if op.sym_visibility is not None else "public"
        if visibility == "public":
            return op_diagnostic(op, "error", "symbol declaration cannot have public visibility")
    return None


def functions_with_one_block(module: Operation) -> Diagnostic | None:
    """tilepipe's passes and lowerings work on kernels whose body is one block; a
    kernel declaration or a kernel with a CFG is reported before any of them runs
    (MLIR accepts both, so the parser and the verifier do not).  Host functions
    (:func:`~tilepipe.dialects.kernel_attrs.is_kernel`) may have any shape."""
    from xdsl.dialects.func import FuncOp

    from tilepipe.dialects.kernel_attrs import is_kernel
    from tilepipe.core.diagnostics import op_diagnostic

    for op in module.walk():
        if isinstance(op, FuncOp) and is_kernel(op) and len(op.body.blocks) != 1:
            what = "is a declaration" if op.is_declaration else "has several blocks"
            return op_diagnostic(
                op, "error", f"{what}: tilepipe compiles functions whose body is one block"
            )
    return None


def parse_source(
    text: str,
    name: str,
    ctx: Context | None = None,
    *,
    line_offset: int = 0,
    implicit_module: bool = True,
    verify: bool = True,
) -> ModuleOp:
    """Parse ``text`` with op locations, check that every operand is visible at its
    use and (``verify``) verify every op; any failure is a located :class:`InputError`."""
    if ctx is None:
        from tilepipe.core.registry import make_context

        ctx = make_context()
    try:
        # The parser lexes its first token when built: a bad first token is a
        # parse error too.
        parser = LocatingParser(ctx, text, name, line_offset)
        module = parser.parse_module(implicit_module)
    except ParseError as err:
        raise InputError(
            Diagnostic(
                "error", parse_error_message(err), _location(name, err.span, line_offset)
            )
        ) from None
    except DiagnosticException as err:
        # A constraint that failed while the parser built an op.
        loc = parser.failed_op_location or parser._current_token.span.get_location()
        raise InputError(
            Diagnostic(
                "error",
                diagnostic_of_exception(err).message,
                SourceLocation(name, loc.line + line_offset, loc.col),
            )
        ) from None
    if not isinstance(module.location, FileLineColLoc):
        # The implicit module spans the whole text: its errors point at the start.
        module.location = FileLineColLoc(StringAttr(name), IntAttr(1 + line_offset), IntAttr(1))
    diagnostic = undeclared_or_invisible_use(module, parser.forward_uses, name, line_offset)
    if diagnostic is None:
        diagnostic = redefined_symbol(module)
    if diagnostic is None:
        diagnostic = public_declaration(module)
    if diagnostic is None and verify:
        diagnostic = verify_module(module)
    if diagnostic is not None:
        raise InputError(diagnostic)
    return module


@dataclass(frozen=True)
class TilepipeFrontend(Frontend):
    """``xdsl-opt -f tilepipe``: MLIR text read as tile-opt reads it, with tilepipe's
    ``gpu`` and ``vector`` dialects (upstream 22.1.8's ops where xDSL's differ) in
    place of xDSL's, so that the stock ``xdsl-opt`` reads every level tilepipe prints.

    A frontend, not a dialect of the ``xdsl.universe`` entry point: the multiverse
    holds one definition per dialect name, and tilepipe's ``gpu.func`` (upstream's:
    ``gpu.kernel`` attribute, workgroup attributions, known sizes as properties) is
    another op than xDSL's (``kernel`` property, ``gpu.known_block_size``
    attributes), which xDSL's own passes and WGSL backend build and match by class.
    Swapping xDSL's dialect for every ``xdsl-opt`` user would break those; asking
    for tilepipe's reading breaks nothing.  Ops get ``file:line:col`` locations."""

    name = "tilepipe"

    no_implicit_module: bool = False

    def parse(self, ctx: Context, input: IO[bytes], input_name: str = "input") -> ModuleOp:
        from xdsl.universe import Universe

        from tilepipe.core.registry import register_dialects

        context = Context(allow_unregistered=ctx.allow_unregistered)
        register_dialects(context, Universe.get_multiverse().all_dialects)
        parser = LocatingParser(context, input.read().decode(), input_name)
        return parser.parse_module(not self.no_implicit_module)


__all__ = [
    "index_assignment",
    "shape_assignment",
    "MAX_REGION_DEPTH",
    "LocatingParser",
    "TilepipeFrontend",
    "decode_source",
    "parse_error_message",
    "parse_source",
    "read_source",
    "undeclared_or_invisible_use",
]


def index_assignment(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError
        return name.lstrip("%"), int(value, 0)
    except ValueError:
        raise ArgumentTypeError(f"expected NAME=INTEGER, got '{text}'") from None


def shape_assignment(text: str) -> tuple[str, tuple[int, ...]]:
    name, sep, dims = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name.lstrip("%"), tuple(int(d) for d in dims.split("x"))
    except ValueError:
        raise ArgumentTypeError(
            f"expected NAME=D0xD1..., e.g. A=1000x77, got '{text}'"
        ) from None


def parse_assignments(spec: str | None, what: str) -> dict[str, int]:
    """``"n=4,m=2"`` -> ``{"n": 4, "m": 2}`` (index arguments, tile parameters: ``what``
    names them in the error); a malformed item raises ValueError."""
    values: dict[str, int] = {}
    for item in (spec or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip().lstrip("-").isdigit():
            raise ValueError(f"{what} are NAME=INT, got '{item.strip()}'")
        values[name.strip()] = int(value)
    return values
