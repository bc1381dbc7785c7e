"""Compiling never forks: the upstream hand-off runs in the caller's process.

A host with threads (PyTorch, JAX) must not be forked -- the child inherits locks
that other threads hold -- and Windows cannot fork at all.  The upstream hand-off used
to run in a forked child on every compile; now it runs in-process unless isolation
is asked for, and isolation spawns a fresh interpreter instead.  Every ``os.fork``
(and ``multiprocessing``'s "fork" start method, which calls it) runs the hooks of
``os.register_at_fork``; this file counts them.
"""

from __future__ import annotations

import os

import pytest

import tilepipe
from conftest import EXAMPLES
from tilepipe.drivers.compile import compile_module, parse_kernel

GEMM = (EXAMPLES / "gemm.mlir").read_text()

_forks = 0


def _count_fork() -> None:
    global _forks
    _forks += 1


# Registered once, when pytest imports this file: the hooks cannot be unregistered.
os.register_at_fork(before=_count_fork)


def _compile(level: str, **options) -> str:
    result = compile_module(parse_kernel(GEMM, "gemm.mlir"), "sm_80", level, run_ptxas=False, **options)
    assert result.output is not None
    return result.output


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_the_counter_sees_a_fork():
    """The hook counts (so that the tests below count something): a child that
    exits at once, before it could touch anything the parent's threads hold."""
    before = _forks
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    assert _forks == before + 1


def test_compiling_the_gemm_forks_no_process():
    before = _forks
    ptx = tilepipe.compile_for(GEMM, "sm_80").text
    assert ".entry gemm" in ptx
    assert "gpu.module" in _compile("nvvm")
    assert ".entry gemm" in _compile("ptx")
    assert _forks == before


def test_isolated_upstream_spawns_rather_than_forks():
    """``isolate_upstream`` runs the hand-off in a child all the same, started by
    "spawn" (a fresh interpreter, fork+exec without Python's fork hooks)."""
    before = _forks
    isolated = tilepipe.compile_for(GEMM, "sm_80", isolate_upstream=True).text
    assert isolated == tilepipe.compile_for(GEMM, "sm_80").text
    assert ".entry gemm" in _compile("ptx", isolate_upstream=True)
    assert _forks == before
