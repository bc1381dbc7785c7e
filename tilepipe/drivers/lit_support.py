"""lit configuration for projects that test with tilepipe (docs/api.md).

A downstream ``lit.cfg.py`` needs two lines::

    import tilepipe.drivers.lit_support
    tilepipe.drivers.lit_support.configure(config, lit_config)

and its ``.mlir`` tests can then use ``%tile-opt``, ``%tile-run``, ``%tilepipe``,
``%filecheck`` (and plain ``FileCheck``, as upstream MLIR's tests spell it) and the
pipeline presets of :func:`tilepipe.core.flows.presets`, one per flow and level:
``%{cuda}`` (to the ``lower-to-nvvm`` level), ``%{cuda:scheduled}`` (to sync
insertion), ``%{ascend}``, ...; quote them in RUN lines (``-p '%{cuda}'``), since the
options some presets carry hold braces.  tilepipe's own ``lit.cfg.py`` uses the same
function.
"""

from __future__ import annotations

import os
import shutil
import sys

TOOLS = ("tile-opt", "tile-run", "tilepipe")


def _tool(name: str, lit_config) -> str:
    # PATH first (the environment the suite is run from), then next to the Python
    # running lit (a virtual environment that is not activated).
    beside = os.path.join(os.path.dirname(sys.executable), name)
    found = shutil.which(name) or (beside if os.access(beside, os.X_OK) else None)
    if found is None and lit_config is not None:
        lit_config.fatal(f"{name} not found (pip install tilepipe)")
    return found or name


def substitutions(lit_config=None, tools: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The substitutions :func:`configure` adds, in the order lit must apply them
    (longer names first: ``%tile-opt`` before ``%tile``-anything); ``tools`` overrides
    where a tool is (the fork server's clients)."""
    from tilepipe.core.flows import presets

    tools = tools or {}
    filecheck = tools.get("filecheck") or _tool("filecheck", lit_config)
    return [
        *((f"%{tool}", tools.get(tool) or _tool(tool, lit_config)) for tool in TOOLS),
        ("%filecheck", filecheck),
        *((f"%{{{name}}}", spec) for name, spec in presets().items()),
        ("%python", _tool("python3", lit_config)),
    ]


def configure(config, lit_config=None, *, suffixes=(".mlir",), fork_server=False) -> None:
    """Make ``config`` a tilepipe test suite: shell tests over ``suffixes``, the
    substitutions above, and the environment the tools need.  ``fork_server``: the
    tools (and filecheck) start as clients of a fork server that has imported
    everything once (:mod:`tilepipe.drivers.fork_server`), several times faster for
    short runs."""
    import lit.formats

    if getattr(config, "test_format", None) is None:
        config.test_format = lit.formats.ShTest()
    if not getattr(config, "suffixes", None):
        config.suffixes = list(suffixes)
    config.environment["PATH"] = os.environ.get("PATH", "")
    for var in ("PYTHONPATH", "HOME", "TILEPIPE_PTXAS"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    clients = _start_fork_server(config, lit_config) if fork_server else {}
    config.substitutions.extend(substitutions(lit_config, clients))
    if shutil.which("FileCheck") is None:
        # Upstream MLIR's tests say FileCheck; the Python port is filecheck.
        config.substitutions.append(
            ("FileCheck", clients.get("filecheck") or _tool("filecheck", lit_config))
        )


def _start_fork_server(config, lit_config) -> dict[str, str]:
    """Start the server for this lit run; put its clients first on the tests' PATH
    and return where they are."""
    from tilepipe.drivers import fork_server

    directory, clients = fork_server.start(
        {tool: _tool(tool, lit_config) for tool in fork_server.ENTRY_POINTS}
    )
    config.environment["PATH"] = directory + os.pathsep + config.environment["PATH"]
    return clients


__all__ = ["configure", "substitutions"]
