"""Shared by every pytest file of test/python/<area>/: the repository root, the
examples, the console scripts on PATH, the helpers of this folder importable
(``pipeline_helpers``, ``nvvm_kernel_gen``, ``malformed_command_lines``), and the
``ptxas_available`` fixture (skips a test when the CUDA wheel's ptxas is missing), and
the hypothesis profile: derandomized, so that a property test draws the same examples
on every run and machine (a failure reproduces, CI's time is stable);
``TILEPIPE_HYPOTHESIS=random`` draws new examples each run, for a hunt; and a fresh
``TILEPIPE_CACHE_DIR`` for ``tilepipe tune``'s cache."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("tilepipe", derandomize=True, database=None)
settings.register_profile("random")
settings.load_profile(
    "random" if os.environ.get("TILEPIPE_HYPOTHESIS") == "random" else "tilepipe"
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

sys.path.insert(0, str(Path(__file__).resolve().parent))

# tilepipe tune's cache and default calibration live in a directory of this run, not
# the user's (~/.cache/tilepipe): a test never answers from an earlier run's entries.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

os.environ["TILEPIPE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilepipe-test-cache-")
atexit.register(shutil.rmtree, os.environ["TILEPIPE_CACHE_DIR"], True)

# The console scripts live next to the interpreter running the tests; tests that run
# them as commands get them from a fork server of this process (as lit does; see
# docs/api.md), unless TILEPIPE_TEST_FORK_SERVER=0.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
if os.environ.get("TILEPIPE_TEST_FORK_SERVER", "1") != "0":
    import shutil

    from tilepipe.drivers.fork_server import ENTRY_POINTS, start

    _tools = {tool: shutil.which(tool) for tool in ENTRY_POINTS}
    _served, _ = start({tool: path for tool, path in _tools.items() if path})
    os.environ["PATH"] = _served + os.pathsep + os.environ["PATH"]


@pytest.fixture(scope="module")
def ptxas_available():
    from tilepipe.lowering.nvvm.ptxas import find_ptxas

    try:
        find_ptxas()
    except RuntimeError as err:
        pytest.skip(str(err))
