"""``tilepipe tune --executor ray``: the configurations spread over a Ray cluster give
the same table as the local process pool.  The test starts a two-CPU local Ray
instance; it is skipped (with the reason) where Ray is not installed (the optional
``ray`` extra) or cannot start."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilepipe.drivers.tune import best, format_table, tune
from tilepipe.drivers.tune_executors import ExecutorError, run_jobs

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm_tune.mlir"

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'tilepipe[ray]')")


def test_an_unreachable_cluster_is_a_clear_error():
    # Before the local instance starts: a connected process would use that one.
    with pytest.raises(ExecutorError, match="cannot reach the Ray cluster at '127.0.0.1:1'"):
        run_jobs([1], abs, "ray", address="127.0.0.1:1")


@pytest.fixture(scope="module")
def local_ray():
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except Exception as err:  # no shared memory, no ports...
        pytest.skip(f"a local Ray instance cannot start here: {err}")
    yield ray
    ray.shutdown()


def test_ray_and_the_local_pool_give_the_same_table(local_ray, tmp_path):
    kernels = [(str(EXAMPLE), EXAMPLE.read_text())]
    heard = []
    on_ray = tune(kernels, "sm_80", [2, 6], run_ptxas=False, executor="ray",
                  progress=lambda done, total: heard.append((done, total)))
    local = tune(kernels, "sm_80", [2, 6], run_ptxas=False, jobs=2)
    assert format_table(on_ray, best(on_ray)) == format_table(local, best(local))
    assert [o.text for o in on_ray] == [o.text for o in local]
    assert heard[0] == (0, 8) and heard[-1] == (8, 8)
    assert ray.is_initialized()  # a connection the caller made stays open

