"""The lit suite's fork server (tilepipe/drivers/fork_server.py): a served tool behaves
as the tool run on its own -- arguments, working directory, stdin, stdout, stderr and
exit status -- and a client without a server runs the real tool."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES
from tilepipe.drivers.fork_server import write_client


def real(tool: str) -> str:
    """The console script itself (on PATH, conftest puts its own server's clients
    first)."""
    return str(Path(sys.executable).parent / tool)


@pytest.fixture
def served(tmp_path):
    """A running server and a ``tile-opt`` client of it; the server ends with the test."""
    socket_path = str(tmp_path / "socket")
    server = subprocess.Popen(
        [sys.executable, "-m", "tilepipe.drivers.fork_server", socket_path, str(os.getpid())],
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not os.path.exists(socket_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert os.path.exists(socket_path), "the server did not start"
    yield write_client(str(tmp_path), "tile-opt", socket_path, real("tile-opt")), server
    server.kill()
    server.wait()


def _run(client, *args, **kwargs):
    return subprocess.run([client, *args], capture_output=True, text=True, **kwargs)


def test_a_served_run_is_the_tools_run(served, tmp_path):
    client, _ = served
    kernel = (EXAMPLES / "gemm.mlir").read_text()
    own = subprocess.run([real("tile-opt"), "-", "-p", "pipeline-planning"], input=kernel,
                         capture_output=True, text=True)
    run = _run(client, "-", "-p", "pipeline-planning", input=kernel)
    assert (run.returncode, run.stdout, run.stderr) == (own.returncode, own.stdout, own.stderr)
    # The working directory resolves relative paths, and -o writes there.
    (tmp_path / "k.mlir").write_text(kernel)
    written = _run(client, "k.mlir", "-o", "out.mlir", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "out.mlir").read_text().strip()


def test_exit_status_and_diagnostics_come_back(served, tmp_path):
    client, _ = served
    (tmp_path / "bad.mlir").write_text("func.func @f() {\n  %x = arith.addi %y, %y : index\n}\n")
    run = _run(client, str(tmp_path / "bad.mlir"))
    assert run.returncode == 1 and "bad.mlir:" in run.stderr and "error:" in run.stderr
    usage = _run(client, "--no-such-flag")
    assert usage.returncode == 1 and usage.stderr.count("\n") == 1 and "unrecognized" in usage.stderr


def test_without_a_server_the_client_runs_the_tool(served):
    client, server = served
    server.kill()
    server.wait()
    os.unlink(client.replace("tile-opt", "socket"))
    run = _run(client, str(EXAMPLES / "gemm.mlir"), "-p", "pipeline-validate")
    assert run.returncode == 0 and "func.func @gemm" in run.stdout


def test_a_served_tool_sees_its_subprocesses_exit_status(served, tmp_path):
    """The server ignores SIGCHLD (the kernel reaps its children); a served tool must
    not, or a failing ptxas would read as exit status 0 and the compile as accepted."""
    _, _ = served
    client = write_client(str(tmp_path), "tilepipe", str(tmp_path / "socket"), real("tilepipe"))
    failing = tmp_path / "ptxas"
    failing.write_text("#!/bin/sh\necho 'ptxas fatal : out of registers' >&2\nexit 3\n")
    failing.chmod(0o755)
    command = [str(EXAMPLES / "gemm.mlir"), "--target", "sm_80", "-q", "-o", str(tmp_path / "g.ptx")]
    env = {**os.environ, "TILEPIPE_PTXAS": str(failing)}
    own = subprocess.run([real("tilepipe"), "compile", *command], capture_output=True, text=True,
                         env=env)
    run = _run(client, "compile", *command, env=env)
    assert own.returncode != 0 and "out of registers" in own.stderr
    assert (run.returncode, run.stderr) == (own.returncode, own.stderr)
