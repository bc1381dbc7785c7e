"""Every op parsed without a written location gets the file:line:col where its text
starts (what diagnostics point at).  The parser finds the line by bisecting the text's
line starts rather than counting newlines per op; these tests hold it to the lexer's
own answer and to the op's place in the text."""

from __future__ import annotations

import random

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.utils.lexer import Input, Span

from tilepipe.core.source import _LineStarts, parse_source


def test_line_starts_agree_with_the_lexer_everywhere():
    rng = random.Random(7)
    texts = ["", "\n", "x", "a\nb\n\nc", "\n\n\nx\n", "".join(rng.choice("ab \n") for _ in range(3000))]
    for text in texts:
        lines = _LineStarts(text)
        source = Input(text, "k.mlir")
        for start in range(len(text) + 1):
            for line_offset in (0, 9):
                span = Span(start, start, source, line_offset)
                assert lines.location(span) == span.get_location(), (text[:20], start)


def test_every_op_is_located_where_its_text_starts():
    # Ops at varying depths and columns, many lines down.
    body = []
    for i in range(200):
        body.append(f"{' ' * (i % 5)}%c{i} = arith.constant {i} : index")
    text = "func.func @f() {\n" + "\n".join(body) + "\n  func.return\n}\n"
    module = parse_source(text, "many.mlir", line_offset=3)
    lines = text.split("\n")
    constants = [op for op in module.walk() if op.name == "arith.constant"]
    assert len(constants) == 200
    for op in constants:
        loc = op.location
        assert isinstance(loc, FileLineColLoc) and loc.filename.data == "many.mlir"
        line = lines[loc.line.data - 3 - 1]
        assert line[loc.column.data - 1 :].startswith(f"%{op.result.name_hint} = arith.constant")
