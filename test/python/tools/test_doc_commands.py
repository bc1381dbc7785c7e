"""The commands README.md and docs/*.md show as runnable still run, and print what the
docs say they print.

Convention (also in docs/README.md):

* A runnable command sits in a fenced block whose info string is ``console``, on a line
  that starts with ``$ `` (a trailing backslash continues it on the next line).  Other
  blocks (``bash``, ``mlir``, unlabelled) are illustrations and are not run.
* The lines after a command, up to the next ``$ `` line or the end of the block, are
  what it prints: stdout and stderr together, as a terminal shows them.  A command
  shown without output is only required to succeed.
* A command exits 0 unless its line ends with ``# exits N``.
* Output is compared line by line after two normalizations, and only these: a timing
  (a number followed by ``ms``) matches any timing, and ``…`` matches any text: inside
  a line, any part of it (paths, numbers that vary); alone on a line, any number of
  lines.
* Commands run from the repository root with the venv's tools first on ``PATH``.  Mark
  runnable only commands that are quick (seconds) and need no GPU.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ELLIPSIS = "…"
TIMING = re.compile(r"\s*\b\d+(?:\.\d+)?\s*ms\b")
EXPECTED_STATUS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")


@dataclass(frozen=True)
class DocCommand:
    page: Path
    line: int  # 1-based line of the ``$ `` prompt
    command: str
    expected: tuple[str, ...]  # the output lines the doc shows
    status: int

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def console_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(line of the block's first content line, its lines) of every ``console`` block."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        fence = line.strip()
        if current is None and fence.startswith("```"):
            if fence[3:].strip() == "console":
                current, start = [], number + 1
            else:
                current = False  # another block: skip to its closing fence
        elif current is not None and fence == "```":
            if current is not False:
                blocks.append((start, current))
            current = None
        elif current is not None and current is not False:
            current.append(line)
    if current is not None:
        raise ValueError("a fenced block is not closed")
    return blocks


def doc_commands(page: Path) -> list[DocCommand]:
    commands = []
    for start, lines in console_blocks(page.read_text()):
        index = 0
        while index < len(lines):
            if not lines[index].startswith("$ "):
                raise ValueError(
                    f"{page.name}:{start + index}: console block text before any command"
                )
            line_number, command = start + index, lines[index][2:]
            while command.endswith("\\"):
                index += 1
                command = command[:-1] + "\n" + lines[index]
            index += 1
            output = []
            while index < len(lines) and not lines[index].startswith("$ "):
                output.append(lines[index])
                index += 1
            status = 0
            if match := EXPECTED_STATUS.search(command):
                status, command = int(match.group(1)), command[: match.start()]
            commands.append(DocCommand(page, line_number, command, tuple(output), status))
    return commands


ALL_COMMANDS = [command for page in PAGES for command in doc_commands(page)]


def normalized(lines) -> list[str]:
    result = [TIMING.sub(" <ms>", line).rstrip() for line in lines]
    while result and not result[-1]:
        result.pop()
    return result


def output_pattern(expected: list[str]) -> re.Pattern[str]:
    """The shown output as a regex: ``…`` alone on a line is any lines, else any text."""
    parts = []
    for line in expected:
        if line.strip() == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            pieces = (re.escape(piece) for piece in line.split(ELLIPSIS))
            parts.append("[^\n]*?".join(pieces) + "\n")
    return re.compile("".join(parts))


def test_the_docs_mark_commands_runnable():
    # The convention is in use: a parser that silently found nothing would test nothing.
    pages = {command.page.name for command in ALL_COMMANDS}
    assert {"README.md", "pipelining.md"} <= pages


@pytest.mark.parametrize("doc_command", ALL_COMMANDS, ids=lambda c: c.id)
def test_doc_command(doc_command: DocCommand):
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", doc_command.command],
        cwd=ROOT,
        # Unbuffered, so stdout and stderr interleave as a terminal shows them.
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    printed = result.stdout
    assert result.returncode == doc_command.status, (
        f"{doc_command.id}: `{doc_command.command}` exited {result.returncode}, "
        f"the doc expects {doc_command.status}:\n{printed}"
    )
    if not doc_command.expected:
        return
    actual = "".join(line + "\n" for line in normalized(printed.splitlines()))
    pattern = output_pattern(normalized(doc_command.expected))
    if not pattern.fullmatch(actual):
        pytest.fail(
            f"{doc_command.id}: `{doc_command.command}` printed\n{actual}\n"
            "but the doc shows\n" + "\n".join(doc_command.expected),
            pytrace=False,
        )


def test_output_patterns_follow_the_convention():
    shown = ["a 12.5 ms b", "path …/x.mlir", "…", "end"]
    pattern = output_pattern(normalized(shown))
    assert pattern.fullmatch("a <ms> b\npath /abs/x.mlir\nmore\nlines\nend\n")
    assert pattern.fullmatch("a <ms> b\npath /abs/x.mlir\nend\n")
    assert not pattern.fullmatch("a <ms> b\npath /abs/x.mlir\nend\nextra\n")
    assert normalized(["  pass   179.8 ms  x"]) == normalized(["  pass    60.5 ms  x"])


def heading_anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to -."""
    anchors, in_block = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            in_block = not in_block
        elif not in_block and (match := re.match(r"#+ (.*)", line)):
            text = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower())
            anchors.add(text.replace(" ", "-"))
    return anchors


def test_links_between_pages_resolve():
    broken = []
    for page in PAGES:
        # Code spans are not links (`operator[](uint64_t)` is C++).
        text = re.sub(r"`[^`\n]*`", "", page.read_text())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # an external address
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in heading_anchors(linked):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken
