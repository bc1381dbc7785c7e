"""Every tool's and script's ``--help`` reads as plain text: it names the program as the
user starts it, describes it in whole sentences, and carries no reST markup (````x````)
or references to sections of a document the user does not have."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# (command, the program name its usage line must show)
HELP_COMMANDS = [
    (["tilepipe", "--help"], "tilepipe"),
    (["tilepipe", "compile", "--help"], "tilepipe compile"),
    (["tile-opt", "--help"], "tile-opt"),
    ([sys.executable, "-m", "tilepipe", "--help"], "tile-opt"),
    (["tile-run", "--help"], "tile-run"),
    (
        [sys.executable, "-m", "tilepipe.drivers.ascendc", "--help"],
        "python -m tilepipe.drivers.ascendc",
    ),
    ([sys.executable, "scripts/gpu_check.py", "--help"], "gpu_check.py"),
    ([sys.executable, "examples/num_stages_ir_diff/run.py", "--help"], "run.py"),
    *[
        ([sys.executable, f"bench/{path.name}", "--help"], path.name)
        for path in sorted((ROOT / "bench").glob("*.py"))
    ],
]


def description(help_text: str) -> str:
    """The paragraph after the usage lines, joined into one line."""
    paragraphs = re.split(r"\n\s*\n", help_text.strip())
    return " ".join(paragraphs[1].split())


def _test_id(value) -> str:
    return " ".join(Path(part).name for part in value) if isinstance(value, list) else value


@pytest.mark.parametrize("command, program", HELP_COMMANDS, ids=_test_id)
def test_help_is_plain_text(command, program):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith(f"usage: {program} "), text.splitlines()[0]
    assert "``" not in text and "§" not in text
    assert description(text).endswith((".", ")")), description(text)
