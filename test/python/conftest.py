"""Shared by every pytest file of test/python/<area>/: the repository root, the
examples, the console scripts on PATH, and the helpers of this folder importable
(``pipeline_helpers``, ``nvvm_kernel_gen``, ``malformed_command_lines``)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The console scripts live next to the interpreter running the tests.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
