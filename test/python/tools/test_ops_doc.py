"""docs/ops.md is generated from the dialect definitions and must be current."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_ops_doc_is_current():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_ops_doc.py"), "--check"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr


def test_ops_doc_covers_every_op():
    from tilepipe.core.registry import get_all_dialects

    text = (ROOT / "docs/ops.md").read_text()
    for name in ("tile", "pipeline", "ascend"):
        for op in get_all_dialects()[name]().operations:
            assert f"### `{op.name}`" in text
    assert "tile.exp" in text and "tile.reduce" in text
