"""``tilepipe.compile`` and ``@tilepipe.jit``: a ``@T.prim_func`` as a callable kernel.

``compile(func, out_idx=[-1], target="auto")`` builds the tile IR for the
target, compiles it with :func:`tilepipe.compile_for` -- every verifier, the
pipeline checks, the shared-memory budget, sync insertion, the lowering and (for
CUDA) upstream's PTX -- and returns a :class:`JITKernel`.  Calling it with numpy
arrays runs the kernel in tilepipe's tile-level interpreter, or launches a CUDA
kernel on the GPU where one is usable (:mod:`.device`): the parameters named by
``out_idx`` are allocated (zeros) and returned, the others are inputs and are
updated in place, as TileLang's kernels update their tensors.

Compiles are cached per process on :meth:`PrimFunc.cache_key` (source, the
values of the names it uses, parameter shapes and dtypes) plus the target and
options, so a kernel of another shape is compiled anew.
"""

from __future__ import annotations

import ast
import enum
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType

from tilepipe.language.eager import is_eager_kernel, specialize
from tilepipe.language.errors import LanguageError
from tilepipe.language.program import PrimFunc
from tilepipe.language.values import DTYPES

NUMPY_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
                "bfloat16": np.float32, "int8": np.int8, "int16": np.int16,
                "int32": np.int32, "int64": np.int64, "bool": np.bool_}

_CACHE: dict[tuple, JITKernel] = {}
_CACHE_LOCK = threading.Lock()
cache_stats = {"hits": 0, "misses": 0}


class JITKernel:
    """A compiled kernel: call it with arrays; inspect its IR and code.

    A call runs in the interpreter or launches on the GPU (:mod:`.device`,
    ``TILEPIPE_DEVICE``); ``last_device`` says where the last call ran:
    ``"cuda"`` or ``"interpreter"`` (None before the first)."""

    def __init__(self, func: PrimFunc, out_idx: Sequence[int], target: str, level: str | None,
                 options: dict[str, Any]):
        from tilepipe.drivers.api import compile_for

        self.func, self.target = func, target
        self.last_device: str | None = None
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

    def run(self, inputs: dict[str, np.ndarray], *, check_races: bool = False,
            scalars: dict[str, int] | None = None) -> dict[str, np.ndarray]:
        """Run by parameter name; ``check_races`` runs the scheduled kernel under the
        race detector (raising ``RaceError``) instead of the tile-level one.  On
        Ascend the scheduled kernel is the ascend level -- pipes and flags, which the
        tile interpreter does not run -- so it runs in the pipe simulator, whose
        races, deadlocks and flag errors are raised the same way.  Without it, a
        CUDA kernel launches on the GPU where there is one (:func:`.device.run_on_gpu`)."""
        from tilepipe.language.device import run_on_gpu
        from tilepipe.semantics import run_tile_kernel

        launched = run_on_gpu(self, inputs, scalars or {}, check_races)
        self.last_device = "interpreter" if launched is None else "cuda"
        if launched is not None:
            return launched
        if check_races and self.compilation.level in ("ascend", "ascendc"):
            return self._run_ascend(inputs, scalars)
        module = self.scheduled() if check_races else self.module
        shapes = {name: value.shape for name, value in inputs.items()}
        return run_tile_kernel(module, inputs=inputs, shapes=shapes, check_races=check_races,
                               index_args=scalars)

    def _run_ascend(self, inputs: dict[str, np.ndarray], scalars: dict[str, int] | None) -> dict[str, np.ndarray]:
        from tilepipe.drivers.api import compile_for
        from tilepipe.semantics.ascend.sim import run_ascend_kernel
        from tilepipe.semantics.tile.grid_runner import RaceError

        module = compile_for(self.module, self.target, level="ascend").module
        report = run_ascend_kernel(module, inputs, scalars)
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
        scalars: dict[str, int] = {}
        originals: dict[str, Any] = {}
        for i, name in enumerate(self.params):
            if self._is_scalar(i):
                value = next(given)
                if isinstance(value, bool) or not isinstance(value, int | np.integer):
                    raise TypeError(f"{name} is an integer parameter, got {value!r}")
                scalars[name] = int(value)
                continue
            spec = self._buffer_spec(i)
            if i in self.out_idx:
                shape = tuple(d if d > 0 else self._symbolic_size(inputs, i, k) for k, d in enumerate(spec[0]))
                inputs[name] = np.zeros(shape, NUMPY_DTYPES[spec[1]])
                continue
            value = next(given)
            originals[name] = value
            array = np.asarray(_to_numpy(value), dtype=NUMPY_DTYPES[spec[1]])
            if array.ndim != len(spec[0]) and all(d > 0 for d in spec[0]):
                array = self._packed(name, array, spec[0])
            inputs[name] = array
        outputs = self.run(inputs, check_races=check_races, scalars=scalars)
        for name, value in originals.items():  # TileLang updates its tensors in place
            if isinstance(value, np.ndarray) and value.flags.writeable:
                np.copyto(value, outputs[name].reshape(value.shape), casting="unsafe")
        results = _like_inputs([self._logical(self.params[i], outputs[self.params[i]])
                                for i in self.out_idx], originals)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def input_specs(self) -> list[tuple[tuple[int, ...], Any]]:
        """Shape (-1: run-time) and numpy dtype of each tensor input, in call order."""
        if any(self._is_scalar(i) for i in range(len(self.params))):
            raise TypeError(f"kernel {self.func.name} has integer parameters: call it yourself")
        specs = [self._buffer_spec(i) for i in range(len(self.params)) if i not in self.out_idx]
        return [(shape, NUMPY_DTYPES[dtype]) for shape, dtype in specs]

    def get_profiler(self, **_options: Any) -> Any:
        """TileLang's profiler: random inputs, ``assert_allclose(ref_program)`` and
        ``do_bench`` (:mod:`.profiler`: it times the interpreter)."""
        from tilepipe.language.profiler import Profiler

        return Profiler(self)

    # -- helpers

    def _packed(self, name: str, array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """An input of a tensor whose trailing dimensions the kernel packs into one
        (:mod:`.layouts`): the same elements, reshaped."""
        logical = tuple(getattr(self.func.param_specs.get(name), "shape", ()))
        if array.shape != logical:
            raise TypeError(f"{name} must have shape {logical}, got {array.shape}")
        return np.ascontiguousarray(array).reshape(shape)

    def _logical(self, name: str, array: np.ndarray) -> np.ndarray:
        logical = tuple(getattr(self.func.param_specs.get(name), "shape", ()))
        if len(logical) != array.ndim and all(isinstance(d, int) for d in logical):
            return array.reshape(logical)
        return array

    def _inputs(self) -> list[str]:
        return [n for i, n in enumerate(self.params) if i not in self.out_idx]

    def _is_scalar(self, i: int) -> bool:
        arg = self.module.body.block.first_op.body.block.args[i]  # type: ignore[union-attr]
        return isinstance(arg.type, IndexType)

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
    if _is_torch(value):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":  # numpy has no bf16: its values as f32
            value = value.float()
        return value.numpy()
    return value


def _is_torch(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _like_inputs(results: list[np.ndarray], originals: dict[str, Any]) -> list[Any]:
    """Torch tensors back when the kernel was called with torch tensors (on the
    first input's device), numpy arrays otherwise."""
    first = next((v for v in originals.values() if _is_torch(v)), None)
    if first is None:
        return results
    import torch

    return [torch.from_numpy(np.ascontiguousarray(r)).to(first.device) for r in results]


# TileLang's compile options that say how *its* toolchain builds and launches a
# kernel (execution backend, host target, NVCC flags, where to dump sources):
# accepted so that its programs run unchanged, and ignored -- tilepipe's flow is
# compile_for's, with its own options.  ``pass_configs`` is read by _options.
TILELANG_OPTIONS = frozenset({"execution_backend", "target_host", "verbose", "pass_configs",
                              "compile_flags", "debug_root_path", "mode"})


class PassConfigKey(str, enum.Enum):
    """The ``pass_configs`` keys of TileLang that mean something to tilepipe (the
    rest of TileLang's keys, e.g. ``"tl.enable_fast_math"``, are accepted and
    ignored): each turns a tilepipe option off."""

    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"  # compile_for(tensor_maps=False)
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"  # warp_specialize=False
    TL_DISABLE_WGMMA = "tl.disable_wgmma"  # warpgroup_mma=False
    TL_ENABLE_FAST_MATH = "tl.enable_fast_math"
    TL_DISABLE_FAST_MATH = "tl.disable_fast_math"
    TL_DISABLE_THREAD_STORAGE_SYNC = "tl.disable_thread_storage_sync"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DISABLE_DATA_RACE_CHECK = "tl.disable_data_race_check"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_ENABLE_ASYNC_COPY = "tl.enable_async_copy"
    TL_PTXAS_REGISTER_USAGE_LEVEL = "tl.ptxas_register_usage_level"
    TL_ENABLE_PTXAS_VERBOSE_OUTPUT = "tl.enable_ptxas_verbose_output"
    TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE = "tl.enable_aggressive_shared_memory_merge"
    TL_DISABLE_SHARED_MEMORY_REUSE = "tl.disable_shared_memory_reuse"
    TL_LAYOUT_VISUALIZATION_ENABLE = "tl.layout_visualization_enable"
    TL_LAYOUT_VISUALIZATION_FORMATS = "tl.layout_visualization_formats"
    # tilelang-ascend's: what they turn on, tilepipe's Ascend flow always does
    # (ascend-insert-sync, the arena plan, the cube/vector split by memory space).
    TL_ASCEND_AUTO_SYNC = "tl.ascend_auto_sync"
    TL_ASCEND_AUTO_CV_SYNC = "tl.ascend_auto_cv_sync"
    TL_ASCEND_AUTO_CV_COMBINE = "tl.ascend_auto_cv_combine"
    TL_ASCEND_MEMORY_PLANNING = "tl.ascend_memory_planning"


PASS_CONFIG_OPTIONS = {PassConfigKey.TL_DISABLE_TMA_LOWER.value: "tensor_maps",
                       PassConfigKey.TL_DISABLE_WARP_SPECIALIZED.value: "warp_specialize",
                       PassConfigKey.TL_DISABLE_WGMMA.value: "warpgroup_mma"}


def _options(options: dict[str, Any]) -> dict[str, Any]:
    """``compile_for``'s options from tilepipe's and TileLang's: TileLang's build
    options go, and the ``pass_configs`` that disable a feature turn it off."""
    result = {k: v for k, v in options.items() if k not in TILELANG_OPTIONS}
    for key, value in (options.get("pass_configs") or {}).items():
        option = PASS_CONFIG_OPTIONS.get(key.value if isinstance(key, enum.Enum) else str(key))
        if option is not None and value:
            result[option] = False
    return result


def cdiv(a: int, b: int) -> int:
    """``tilelang.cdiv``: ``ceil(a / b)`` of two ints, for the Python around kernels."""
    return -(-a // b)


def _target(target: Any) -> str:
    """TileLang's ``"cuda"`` means tilepipe's ``sm_80``; ``"auto"`` (and ``None``)
    stays ``"auto"`` until the kernel is known (:func:`resolve_target`)."""
    if target is None:
        return "auto"
    target = str(target)
    return {"cuda": "sm_80"}.get(target, target)


ASCEND_MARKERS = frozenset({"alloc_L1", "alloc_ub", "alloc_L0A", "alloc_L0B", "alloc_L0C",
                            "gemm_v0", "Scope"})


def resolve_target(func: PrimFunc, target: str) -> str:
    """``"auto"``: ``ascend910b`` for a tilelang-ascend kernel (``T.Kernel(...,
    is_npu=True)``, or Ascend buffers), else ``sm_80``."""
    if target != "auto":
        return target
    for node in ast.walk(func.tree):
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            npu = any(k.arg == "is_npu" and isinstance(k.value, ast.Constant) and k.value.value
                      for k in node.keywords)
            if called in ASCEND_MARKERS or (called == "Kernel" and npu):
                return "ascend910b"
    return "sm_80"


def compile(  # noqa: A001 - TileLang's name
    func: PrimFunc, out_idx: Sequence[int] | int | None = None, target: str | None = "auto",
    *, level: str | None = None, **options: Any,
) -> JITKernel:
    """Compile a ``@T.prim_func`` for ``target`` (``sm_80``, ``sm_90``, ``sm_90a``,
    ``ascend910b``); ``level`` and ``options`` go to :func:`tilepipe.compile_for`.
    ``"cuda"`` means ``sm_80``; ``"auto"`` (the default) ``ascend910b`` for a
    tilelang-ascend kernel and ``sm_80`` otherwise; TileLang's own build options
    (:data:`TILELANG_OPTIONS`) are accepted and ignored."""
    if not isinstance(func, PrimFunc):
        raise TypeError("tilepipe.compile takes a @T.prim_func kernel")
    target = resolve_target(func, _target(target))
    options = _options(options)
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


class KernelFactory:
    """``@tilepipe.jit(out_idx=...)`` on a factory ``def matmul(M, N, K, ...)`` that
    returns a ``@T.prim_func``: calling it (or ``.compile(...)``) compiles the
    kernel for those arguments (cached) and returns it."""

    def __init__(self, factory: Callable[..., PrimFunc], out_idx: Any, target: str,
                 options: dict[str, Any]):
        functools.update_wrapper(self, factory)
        self.factory, self.out_idx, self.target, self.options = factory, out_idx, target, options

    def compile(self, *args: Any, **kwargs: Any) -> JITKernel:
        func = self.factory(*args, **kwargs)
        if not isinstance(func, PrimFunc):
            raise TypeError(f"@tilepipe.jit factory {self.factory.__name__} returned "
                            f"{type(func).__name__}, not a @T.prim_func")
        return compile(func, self.out_idx, self.target, **self.options)

    __call__ = compile

    def get_kernel_source(self, *args: Any, **kwargs: Any) -> str:
        return self.compile(*args, **kwargs).get_kernel_source()


class EagerJIT:
    """``@tilepipe.jit`` on an eager kernel (:mod:`.eager`): ``.compile(**sizes_and_params)``
    gives a :class:`JITKernel`; calling it with tensors compiles (cached) and runs it,
    returning its ``T.empty`` tensors."""

    def __init__(self, fn: Callable[..., Any], target: str, options: dict[str, Any]):
        functools.update_wrapper(self, fn)
        self.fn, self.target, self.options = fn, target, options

    def compile(self, *args: Any, **kwargs: Any) -> JITKernel:
        func, _ = specialize(self.fn, args, kwargs)
        return compile(func, func.output_indices(), self.target, **self.options)

    def get_kernel_source(self, *args: Any, **kwargs: Any) -> str:
        return self.compile(*args, **kwargs).get_kernel_source()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        func, tensors = specialize(self.fn, args, kwargs)
        absent = [n for n in func.eager.tensor_params if n not in tensors]
        if absent:
            raise LanguageError(func.source.location(func.tree),
                                f"{func.name} called without tensors for {', '.join(absent)} "
                                "(use .compile(...) to compile without running)")
        kernel = compile(func, func.output_indices(), self.target, **self.options)
        return kernel(*(tensors[n] for n in func.eager.tensor_params))


def jit(fn: Callable[..., Any] | None = None, *, out_idx: Sequence[int] | int | None = None,
        target: str | None = "auto", **options: Any) -> Any:
    """TileLang's ``@tilelang.jit``, in both its styles:

    * on a factory that returns a ``@T.prim_func`` (``out_idx`` names the outputs):
      calling it compiles (cached) and returns the kernel (:class:`KernelFactory`);
    * on an eager kernel, whose body holds the ``with T.Kernel`` block and whose
      outputs are ``T.empty`` tensors it returns: ``.compile(**sizes)`` returns the
      kernel and calling it with tensors runs it (:class:`~.eager.EagerJIT`);
    * on a ``@T.prim_func`` itself: the compiled kernel."""
    target = _target(target)
    options = _options(options)

    def wrap(definition: Any) -> Any:
        if isinstance(definition, PrimFunc):
            return compile(definition, out_idx, target, **options)
        if is_eager_kernel(definition):
            if out_idx is not None:
                raise TypeError(f"@tilepipe.jit kernel {definition.__name__} declares its outputs "
                                "with T.empty and returns them; out_idx is for factories")
            return EagerJIT(definition, target, options)
        return KernelFactory(definition, out_idx, target, options)

    return wrap if fn is None else wrap(fn)
