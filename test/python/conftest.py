"""Shared by every pytest file of test/python/<area>/: the repository root, the
examples, the console scripts on PATH, the helpers of this folder importable
(``pipeline_helpers``, ``nvvm_kernel_gen``, ``malformed_command_lines``), and the
``ptxas_available`` fixture (skips a test when the CUDA wheel's ptxas is missing)."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The console scripts live next to the interpreter running the tests.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]


@pytest.fixture(scope="module")
def ptxas_available():
    from tilepipe.lowering.nvvm.ptxas import find_ptxas

    try:
        find_ptxas()
    except RuntimeError as err:
        pytest.skip(str(err))
