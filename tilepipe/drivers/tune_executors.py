"""Where ``tilepipe tune`` evaluates its configurations: this machine's process pool
(``--executor local``, the default) or a Ray cluster (``--executor ray``, the
optional ``ray`` extra).  Both return the outcomes in the order of the jobs, so the
table does not depend on where they ran, and report each finished job to a progress
callback."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

EXECUTORS = ("local", "ray")
RAY_INSTALL_HINT = "pip install 'tilepipe[ray]' (or: pip install ray==2.60.0)"

Progress = Callable[[int], None]  # called with the number of jobs finished so far


class ExecutorError(RuntimeError):
    """An executor that cannot run: Ray missing, a cluster out of reach."""


def run_local(jobs: Sequence, work: Callable[[Any], Any], workers: int, progress: Progress) -> list:
    """The jobs in a process pool of ``workers`` (in this process when 1)."""
    results: list = [None] * len(jobs)
    if workers <= 1:
        for index, job in enumerate(jobs):
            results[index] = work(job)
            progress(index + 1)
        return results
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(work, job): index for index, job in enumerate(jobs)}
        for done, future in enumerate(as_completed(futures), start=1):
            results[futures[future]] = future.result()
            progress(done)
    return results


CONNECT_TIMEOUT_S = 5.0


def _check_reachable(address: str) -> None:
    """Fail fast on a ``host:port`` (or ``ray://host:port``) nobody answers at: Ray
    itself retries an unreachable cluster for minutes."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", "local": Ray resolves those itself
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as err:
        raise ExecutorError(
            f"cannot reach the Ray cluster at '{address}': {err.strerror or err}") from None


def _connect_ray(address: str | None) -> tuple[Any, bool]:
    """The ray module, connected; True when this call started the connection (and
    so should close it)."""
    try:
        import ray
    except ImportError:
        raise ExecutorError(f"--executor ray needs Ray, which is not installed: {RAY_INSTALL_HINT}") from None
    if ray.is_initialized():
        return ray, False
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address:
        _check_reachable(address)
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    except Exception as err:  # Ray raises ConnectionError, RuntimeError, ValueError...
        where = f"the Ray cluster at '{address}'" if address else "a local Ray instance"
        message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ExecutorError(f"cannot connect to {where}: {message}") from None
    return ray, True


def run_ray(jobs: Sequence, work: Callable[[Any], Any], address: str | None, progress: Progress) -> list:
    """The jobs as Ray tasks, one CPU each: on the cluster at ``address``, the one
    this process is already connected to, or (neither) a local instance that lives
    for this call.  Ray schedules them; results come back in job order."""
    ray, connected_here = _connect_ray(address)
    try:
        remote = ray.remote(num_cpus=1)(work)
        refs = [remote.remote(job) for job in jobs]
        pending = list(refs)
        while pending:
            _, pending = ray.wait(pending, num_returns=1)
            progress(len(refs) - len(pending))
        return ray.get(refs)
    finally:
        if connected_here:
            ray.shutdown()


def run_jobs(
    jobs: Sequence, work: Callable[[Any], Any], executor: str = "local", workers: int = 1,
    address: str | None = None, progress: Progress | None = None,
) -> list:
    """``work(job)`` for every job, on ``executor``, in job order."""
    report = progress or (lambda done: None)
    if executor == "local":
        return run_local(jobs, work, workers, report)
    if executor == "ray":
        return run_ray(jobs, work, address, report) if jobs else []
    raise ExecutorError(f"unknown executor '{executor}' (choose from {', '.join(EXECUTORS)})")
