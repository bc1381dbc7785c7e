"""What a user finds without reading the source: the public API in ``dir`` and
``help``, and a one-line explanation when the race detector runs on a kernel that has
no synchronization yet."""

from __future__ import annotations

import pydoc
import subprocess
import sys
from pathlib import Path

import tilepipe

ROOT = Path(__file__).resolve().parents[3]
API = ("compile_for", "run_pipeline", "pass_pipeline", "parse", "verify", "Compilation", "CompileError")


def test_dir_lists_the_public_api():
    assert set(API) <= set(dir(tilepipe))
    assert not {"Any", "TYPE_CHECKING", "annotations"} & set(dir(tilepipe))


def test_help_shows_the_public_api():
    text = pydoc.render_doc(tilepipe, renderer=pydoc.plaintext)
    assert all(name in text for name in API)
    assert "tilepipe.core.flows" in text


def test_the_package_is_typed():
    assert (ROOT / "tilepipe" / "py.typed").exists()


def _tile_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tilepipe.drivers.run", *args], capture_output=True, text=True
    )


def test_races_of_an_unsynchronized_kernel_come_with_a_hint():
    done = _tile_run(
        str(ROOT / "examples" / "gemm.mlir"), "--check-races", "--quiet", "--block", "0,0"
    )
    assert done.returncode == 3
    notes = [line for line in done.stderr.splitlines() if line.startswith("tile-run: note:")]
    assert len(notes) == 1
    assert "sequential by definition" in notes[0] and "-p cuda:scheduled" in notes[0]


def test_a_synchronized_kernel_gets_no_hint(tmp_path):
    """The compiled gemm, with a barrier deleted, races: the hint would mislead."""
    scheduled = subprocess.run(
        [sys.executable, "-m", "tilepipe.drivers.opt", str(ROOT / "examples" / "gemm.mlir"),
         "-p", "cuda:scheduled"],
        capture_output=True, text=True, check=True,
    ).stdout
    lines = scheduled.splitlines()
    barrier = next(i for i, line in enumerate(lines) if "pipeline.barrier" in line)
    kernel = tmp_path / "raced.mlir"
    kernel.write_text("\n".join(lines[:barrier] + lines[barrier + 1:]))
    done = _tile_run(str(kernel), "--check-races", "--quiet", "--block", "0,0")
    assert done.returncode == 3, done.stderr[-500:]
    assert "tile-run: note:" not in done.stderr
