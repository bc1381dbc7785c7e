"""``tilepipe.compile`` and ``@tilepipe.jit``: a ``@T.prim_func`` as a callable kernel.

``compile(func, out_idx=[-1], target="sm_80")`` builds the tile IR for the
target, compiles it with :func:`tilepipe.compile_for` -- every verifier, the
pipeline checks, the shared-memory budget, sync insertion, the lowering and (for
CUDA) upstream's PTX -- and returns a :class:`JITKernel`.  Calling it with numpy
arrays runs the kernel in tilepipe's tile-level interpreter (there is no GPU
launch path yet): the parameters named by ``out_idx`` are allocated (zeros) and
returned, the others are inputs and are updated in place, as TileLang's kernels
update their tensors.

Compiles are cached per process on :meth:`PrimFunc.cache_key` (source, the
values of the names it uses, parameter shapes and dtypes) plus the target and
options, so a kernel of another shape is compiled anew.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tilepipe.language.program import PrimFunc
from tilepipe.language.values import DTYPES

NUMPY_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
                "bfloat16": np.float32, "int8": np.int8, "int16": np.int16,
                "int32": np.int32, "int64": np.int64, "bool": np.bool_}

_CACHE: dict[tuple, JITKernel] = {}
_CACHE_LOCK = threading.Lock()
cache_stats = {"hits": 0, "misses": 0}


class JITKernel:
    """A compiled kernel: call it with arrays; inspect its IR and code."""

    def __init__(self, func: PrimFunc, out_idx: Sequence[int], target: str, level: str | None,
                 options: dict[str, Any]):
        from tilepipe.drivers.api import compile_for

        self.func, self.target = func, target
        self.module = func.build(target)
        self.compilation = compile_for(
            self.module, target, level=level, name=func.source.file, **options
        )
        args = self.module.body.block.first_op.body.block.args  # type: ignore[union-attr]
        self.params = [a.name_hint or f"arg{i}" for i, a in enumerate(args)]
        count = len(self.params)
        self.out_idx = sorted({i % count for i in out_idx}) if out_idx else []
        for i in out_idx or []:
            if not -count <= i < count:
                raise ValueError(f"out_idx {i} is out of range for {count} parameters")

    # -- what TileLang's kernel object offers

    def mlir(self) -> str:
        """The tile-level IR the frontend built (with ``loc`` of the Python lines)."""
        return str(self.module)

    def get_kernel_source(self) -> str:
        """The PTX (CUDA targets) or AscendC source (Ascend) tilepipe produced."""
        return self.compilation.text

    @property
    def summary(self) -> str:
        """The per-pass account ``tilepipe compile`` prints."""
        return self.compilation.summary

    def scheduled(self) -> Any:
        """The scheduled level (pipelined, synchronized) of the kernel."""
        from tilepipe.drivers.api import compile_for

        return compile_for(self.module, self.target, level="scheduled").module

    def run(self, inputs: dict[str, np.ndarray], *, check_races: bool = False) -> dict[str, np.ndarray]:
        """Run by parameter name; ``check_races`` runs the scheduled kernel under the
        race detector (raising ``RaceError``) instead of the tile-level one.  On
        Ascend the scheduled kernel is the ascend level -- pipes and flags, which the
        tile interpreter does not run -- so it runs in the pipe simulator, whose
        races, deadlocks and flag errors are raised the same way."""
        from tilepipe.semantics import run_tile_kernel

        if check_races and self.compilation.level in ("ascend", "ascendc"):
            return self._run_ascend(inputs)
        module = self.scheduled() if check_races else self.module
        shapes = {name: value.shape for name, value in inputs.items()}
        return run_tile_kernel(module, inputs=inputs, shapes=shapes, check_races=check_races)

    def _run_ascend(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from tilepipe.drivers.api import compile_for
        from tilepipe.semantics.ascend.sim import run_ascend_kernel
        from tilepipe.semantics.tile.grid_runner import RaceError

        module = compile_for(self.module, self.target, level="ascend").module
        report = run_ascend_kernel(module, inputs)
        if not report.ok:
            raise RaceError(report.problems())  # type: ignore[arg-type]
        return report.outputs

    def __call__(self, *arrays: Any, check_races: bool = False) -> Any:
        expected = len(self.params) - len(self.out_idx)
        if len(arrays) != expected:
            raise TypeError(f"kernel {self.func.name} takes {expected} arrays "
                            f"({', '.join(self._inputs())}), got {len(arrays)}")
        given = iter(arrays)
        inputs: dict[str, np.ndarray] = {}
        originals: dict[str, Any] = {}
        for i, name in enumerate(self.params):
            spec = self._buffer_spec(i)
            if i in self.out_idx:
                shape = tuple(d if d > 0 else self._symbolic_size(inputs, i, k) for k, d in enumerate(spec[0]))
                inputs[name] = np.zeros(shape, NUMPY_DTYPES[spec[1]])
                continue
            value = next(given)
            originals[name] = value
            inputs[name] = np.asarray(_to_numpy(value), dtype=NUMPY_DTYPES[spec[1]])
        outputs = self.run(inputs, check_races=check_races)
        for name, value in originals.items():  # TileLang updates its tensors in place
            if isinstance(value, np.ndarray) and value.flags.writeable:
                np.copyto(value, outputs[name], casting="unsafe")
        results = [outputs[self.params[i]] for i in self.out_idx]
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    # -- helpers

    def _inputs(self) -> list[str]:
        return [n for i, n in enumerate(self.params) if i not in self.out_idx]

    def _buffer_spec(self, i: int) -> tuple[tuple[int, ...], str]:
        """Shape (-1: symbolic) and dtype of parameter ``i``, from the kernel's type."""
        arg = self.module.body.block.first_op.body.block.args[i]  # type: ignore[union-attr]
        element = str(arg.type.element_type)  # type: ignore[attr-defined]
        dtype = next(name for name, t in DTYPES.items() if str(t) == element)
        return tuple(arg.type.get_shape()), dtype  # type: ignore[attr-defined]

    def _symbolic_size(self, inputs: dict[str, np.ndarray], i: int, dim: int) -> int:
        """An output's symbolic size: the same symbol's size in an input."""
        from tilepipe.language import namespace as T

        symbol = self.func.param_specs[self.params[i]].shape[dim]
        for name, array in inputs.items():
            spec = self.func.param_specs.get(name)
            for k, d in enumerate(getattr(spec, "shape", ())):
                if isinstance(d, T.SymbolicDim) and d.name == symbol.name:
                    return array.shape[k]
        raise TypeError(f"the size {symbol.name} of output {self.params[i]} is not the size of any input")


def _to_numpy(value: Any) -> Any:
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        return value.detach().cpu().numpy()
    return value


def compile(  # noqa: A001 - TileLang's name
    func: PrimFunc, out_idx: Sequence[int] | int | None = None, target: str = "sm_80",
    *, level: str | None = None, **options: Any,
) -> JITKernel:
    """Compile a ``@T.prim_func`` for ``target`` (``sm_80``, ``sm_90``, ``sm_90a``,
    ``ascend910b``); ``level`` and ``options`` go to :func:`tilepipe.compile_for`.
    ``target="auto"``/``"cuda"`` mean ``sm_80``."""
    if not isinstance(func, PrimFunc):
        raise TypeError("tilepipe.compile takes a @T.prim_func kernel")
    target = {"auto": "sm_80", "cuda": "sm_80"}.get(target, target)
    outs = [out_idx] if isinstance(out_idx, int) else list(out_idx or [])
    key = (func.cache_key(), tuple(outs), target, level, tuple(sorted(options.items())))
    with _CACHE_LOCK:
        kernel = _CACHE.get(key)
        if kernel is not None:
            cache_stats["hits"] += 1
            return kernel
    cache_stats["misses"] += 1
    kernel = JITKernel(func, outs, target, level, options)
    with _CACHE_LOCK:
        _CACHE[key] = kernel
    return kernel


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


def jit(fn: Callable[..., PrimFunc] | None = None, *, out_idx: Sequence[int] | int | None = None,
        target: str = "sm_80", **options: Any) -> Any:
    """``@tilepipe.jit(out_idx=[-1])`` on a factory ``def matmul(M, N, K, ...)`` that
    returns a ``@T.prim_func``: calling the factory compiles (cached) and returns
    the kernel.  On a ``@T.prim_func`` itself, returns the compiled kernel."""
    def wrap(factory: Any) -> Any:
        if isinstance(factory, PrimFunc):
            return compile(factory, out_idx, target, **options)

        @functools.wraps(factory)
        def compiled(*args: Any, **kwargs: Any) -> JITKernel:
            return compile(factory(*args, **kwargs), out_idx, target, **options)

        return compiled

    return wrap if fn is None else wrap(fn)
