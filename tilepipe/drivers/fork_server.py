"""A fork server for test suites that run tilepipe's tools many times (docs/api.md,
"lit").

Most of a ``tile-opt`` run in a lit test is Python importing xDSL, z3 and tilepipe;
the pass pipeline itself often takes less.  The server imports all of it once; a tool
then starts as a small client (stdlib only, ``python -S``) that hands the server its
arguments, working directory, environment and its stdin/stdout/stderr, and the server
forks a child that runs the tool's ``main`` on them and reports its exit status.  Each
run is a fresh fork of the same process, so no state passes from one run to the next.

A client runs the real tool instead when the server is not reachable, or when the
command sets ``PYTHONHASHSEED`` (a forked child keeps the server's hash seed).

    python -m tilepipe.drivers.fork_server SOCKET PARENT_PID

serves until the process ``PARENT_PID`` (lit) is gone, then removes the folder of
``SOCKET`` (where :mod:`~tilepipe.drivers.lit_support` puts the clients).
"""

from __future__ import annotations

import importlib
import io
import json
import os
import shutil
import signal
import socket
import sys
import traceback

# The tools served, as console-script entry points.
ENTRY_POINTS = {
    "tile-opt": "tilepipe.drivers.opt:main",
    "tile-run": "tilepipe.drivers.run:main",
    "tilepipe": "tilepipe.drivers.cli:main",
    "filecheck": "filecheck.main:main",
}

# The client, written next to the server's socket as each tool's executable.
CLIENT = '''#!{python} -S
# {tool}: run by tilepipe's fork server ({socket}), or {real} when it is not reachable.
import json, os, socket, sys

def run_served():
    if "PYTHONHASHSEED" in os.environ:
        return None
    try:
        server = socket.socket(socket.AF_UNIX)
        server.connect({socket!r})
    except OSError:
        return None
    request = json.dumps({{"tool": {tool!r}, "argv": [{tool!r}, *sys.argv[1:]],
                          "cwd": os.getcwd(), "env": dict(os.environ)}}).encode() + b"\\n"
    socket.send_fds(server, [request[:1]], [0, 1, 2])
    server.sendall(request[1:])
    reply = b""
    while not reply.endswith(b"\\n"):
        chunk = server.recv(64)
        if not chunk:
            sys.stderr.write("{tool}: the fork server ended without an exit status\\n")
            return 125
        reply += chunk
    return int(reply)

status = run_served()
if status is None:
    os.execv({real!r}, [{real!r}, *sys.argv[1:]])
sys.exit(status)
'''


def write_client(directory: str, tool: str, socket_path: str, real: str) -> str:
    """The client executable for ``tool`` in ``directory``; returns its path."""
    path = os.path.join(directory, tool)
    with open(path, "w") as file:
        file.write(CLIENT.format(python=sys.executable, tool=tool, socket=socket_path, real=real))
    os.chmod(path, 0o755)
    return path


def start(real_tools: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Start a server for this process (it ends when this process does) and write a
    client for each of ``real_tools`` (name -> the real executable) into a new
    folder; returns the folder (to put first on ``PATH``) and the clients."""
    import subprocess
    import tempfile

    directory = tempfile.mkdtemp(prefix="tilepipe-tools-")
    socket_path = os.path.join(directory, "socket")
    with open(os.path.join(directory, "server.log"), "w") as log:
        subprocess.Popen(
            [sys.executable, "-m", "tilepipe.drivers.fork_server", socket_path, str(os.getpid())],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
        )
    clients = {
        tool: write_client(directory, tool, socket_path, real)
        for tool, real in real_tools.items() if tool in ENTRY_POINTS
    }
    return directory, clients


def _preload() -> None:
    for entry in ENTRY_POINTS.values():
        try:
            importlib.import_module(entry.split(":")[0])
        except ImportError:
            pass  # a child imports it (and reports why it cannot) when asked
    from tilepipe.core.registry import get_all_passes

    for make in get_all_passes().values():
        make()  # imports the pass's module


def _receive(connection: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    while not data.endswith(b"\n"):
        chunk = connection.recv(1 << 16)
        if not chunk:
            raise ConnectionError("the client closed the connection")
        data += chunk
    return json.loads(data), fds


def _run_tool(request: dict, fds: list[int]) -> int:
    """In the forked child: take the client's stdio, directory and environment, run
    the tool, return its exit status."""
    for fd, target in zip(fds, (0, 1, 2)):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=False)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = request["argv"]
    module, name = ENTRY_POINTS[request["tool"]].split(":")
    try:
        status = getattr(importlib.import_module(module), name)()
    except SystemExit as exit:
        status = exit.code
    except BaseException:  # what the interpreter would print for an uncaught one
        traceback.print_exc()
        status = 1
    if status is None:
        return 0
    if not isinstance(status, int):
        print(status, file=sys.stderr)
        return 1
    return status


def serve(socket_path: str, parent_pid: int) -> None:
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(socket_path + ".new")
    os.rename(socket_path + ".new", socket_path)  # clients see a listening socket only
    listener.listen(64)
    listener.settimeout(1.0)
    while True:
        try:
            connection, _ = listener.accept()
        except TimeoutError:
            try:
                os.kill(parent_pid, 0)
            except ProcessLookupError:
                break  # lit is gone
            continue
        if os.fork() == 0:
            # The tool waits for its own subprocesses (ptxas): with SIGCHLD ignored
            # the kernel would reap them first and their exit status would be lost.
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            listener.close()
            connection.settimeout(None)
            status = 1
            try:
                request, fds = _receive(connection)
                status = _run_tool(request, fds)
            finally:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (OSError, ValueError):
                        pass
                try:
                    connection.sendall(f"{status}\n".encode())
                finally:
                    os._exit(0)
        connection.close()
    shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)  # clients, log


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]))
