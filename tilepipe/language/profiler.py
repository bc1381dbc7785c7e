"""TileLang's profiler on tilepipe: ``kernel.get_profiler()`` and ``do_bench``.

A call runs on the GPU where one is usable and in tilepipe's interpreter otherwise
(:mod:`.device`; ``kernel.last_device`` says which).  ``do_bench`` times whole
calls from Python -- uploads and downloads included on a GPU, the interpreter's
seconds without one -- so it says how long a call takes here, not what the kernel
alone costs on a GPU (``scripts/gpu_check.py`` measures that with CUDA events).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# A call through the interpreter takes seconds: at most this many timed runs.
MAX_TIMED_RUNS = 3


def do_bench(fn: Callable[[], Any], warmup: int = 25, rep: int = 100, **_options: Any) -> float:
    """Median wall time of ``fn()`` in milliseconds, over ``min(rep, 3)`` runs
    (``warmup`` and TileLang's timing backends -- CUPTI, CUDA events -- are not used)."""
    times = []
    for _ in range(max(1, min(rep, MAX_TIMED_RUNS))):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


class Profiler:
    """What ``JITKernel.get_profiler()`` returns: random inputs for the kernel,
    a check against a reference program, and :func:`do_bench`."""

    def __init__(self, kernel: Any, seed: int = 0):  # a tilepipe.language.jit.JITKernel
        self.kernel = kernel
        self.rng = np.random.default_rng(seed)

    def supply_inputs(self) -> list[Any]:
        """Random inputs of the kernel's shapes and dtypes: standard normal floats,
        small integers; torch tensors when torch is installed (the reference
        programs of TileLang's examples are written in torch)."""
        arrays = []
        for shape, dtype in self.kernel.input_specs():
            if any(d <= 0 for d in shape):
                raise TypeError(f"cannot supply an input of run-time shape {shape}: "
                                "call the kernel with your own arrays")
            if np.issubdtype(dtype, np.floating):
                arrays.append(self.rng.standard_normal(shape).astype(dtype))
            else:
                arrays.append(self.rng.integers(-4, 5, shape).astype(dtype))
        try:
            import torch
        except ImportError:
            return arrays
        return [torch.from_numpy(a) for a in arrays]

    def assert_allclose(self, reference_program: Callable[..., Any], rtol: float = 1e-2,
                        atol: float = 1e-2, max_mismatched_ratio: float = 0.01, **_options: Any) -> None:
        """Run the kernel and ``reference_program`` on the same random inputs and
        compare every output: at most ``max_mismatched_ratio`` of the elements may
        differ by more than ``atol + rtol * |expected|``."""
        inputs = self.supply_inputs()
        results = self.kernel(*inputs)
        expected = reference_program(*inputs)
        for got, want in zip(_as_list(results), _as_list(expected)):
            got, want = _numpy(got).astype(np.float64), _numpy(want).astype(np.float64)
            bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
            if bad.mean() > max_mismatched_ratio:
                raise AssertionError(
                    f"{int(bad.sum())} of {bad.size} elements differ beyond rtol={rtol}, "
                    f"atol={atol} (max difference {np.nanmax(np.abs(got - want)):.4g})")

    def do_bench(self, func: Callable[..., Any] | None = None, warmup: int = 25, rep: int = 100,
                 **options: Any) -> float:
        inputs = self.supply_inputs()
        target = func if func is not None else self.kernel
        return do_bench(lambda: target(*inputs), warmup, rep, **options)


def _as_list(value: Any) -> Sequence[Any]:
    return list(value) if isinstance(value, tuple | list) else [value]


def _numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().float().numpy()
    return np.asarray(value)
