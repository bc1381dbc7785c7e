"""MLIR's textual pass pipelines, as ``mlir-opt --pass-pipeline`` takes them.

``builtin.module(func.func(pipeline-planning), thread-sync)`` nests passes under the
ops they anchor on; xDSL's ``-p`` takes a flat list of module passes.  Every tilepipe
pass is a module pass that visits each function, so a ``func.func(...)`` nest runs
the same passes as the flat list: :func:`normalize_pipeline` flattens the nests and
checks the brackets, so that a malformed pipeline is one usage message, not a parse
failure deep in xDSL.  Pass options (``{...}``) are kept as written, quotes included.
"""

from __future__ import annotations

from tilepipe.core.flows import presets

PRESETS = presets()

ANCHORS = ("builtin.module", "func.func", "any")
"""The ops a nest may anchor on: the module, and functions (tilepipe's passes visit
every function of the module, so a function nest is the flat list)."""


class PipelineSpecError(ValueError):
    """A malformed pipeline; the message says what and at which column."""


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str) -> PipelineSpecError:
        return PipelineSpecError(f"{message} at column {self.pos + 1}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_spaces(self) -> None:
        while self.peek().isspace():
            self.pos += 1

    def name(self) -> str:
        start = self.pos
        while self.peek() and (self.peek().isalnum() or self.peek() in "-_.:"):
            self.pos += 1
        if self.pos == start:
            found = f"'{self.peek()}'" if self.peek() else "the end"
            raise self.error(f"expected a pass name, found {found}")
        return self.text[start : self.pos]

    def options(self) -> str:
        """``{...}`` verbatim; braces and quotes must balance."""
        start = self.pos
        depth, quote = 0, ""
        while True:
            char = self.peek()
            if not char:
                self.pos = start
                raise self.error("unclosed '{' of pass options")
            self.pos += 1
            if quote:
                quote = "" if char == quote else quote
            elif char in "\"'":
                quote = char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return self.text[start : self.pos]

    def elements(self, closing: str) -> list[str]:
        """A comma-separated list up to ``closing`` ('' for the end of the text)."""
        passes: list[str] = []
        self.skip_spaces()
        if self.peek() == closing:
            return passes
        while True:
            self.skip_spaces()
            passes.extend(self.element())
            self.skip_spaces()
            if self.peek() == ",":
                self.pos += 1
                continue
            if self.peek() == closing:
                return passes
            if closing and not self.peek():
                raise self.error(f"expected ',' or '{closing}' (unclosed '(')")
            raise self.error(f"unexpected '{self.peek()}'")

    def element(self) -> list[str]:
        name = self.name()
        if name in PRESETS:  # a named flow (level), e.g. cuda:scheduled
            return PRESETS[name].split(",")
        options = self.options() if self.peek() == "{" else ""
        self.skip_spaces()
        if self.peek() != "(":
            return [name + options]
        if name not in ANCHORS:
            raise self.error(
                f"cannot nest passes under '{name}' (tilepipe's passes anchor on "
                f"{', '.join(ANCHORS)})"
            )
        if options:
            raise self.error(f"'{name}' is an op anchor and takes no options")
        self.pos += 1
        nested = self.elements(")")
        self.pos += 1
        return nested


def normalize_pipeline(spec: str) -> str:
    """The flat ``-p`` pipeline of ``spec``, which may use MLIR's nested syntax and
    name flows and their levels (``cuda``, ``cuda:scheduled``, ``ascend``: the presets
    of :mod:`tilepipe.core.flows`) among its passes."""
    reader = _Reader(spec)
    passes = reader.elements("")
    return ",".join(passes)


__all__ = ["ANCHORS", "PipelineSpecError", "normalize_pipeline"]
