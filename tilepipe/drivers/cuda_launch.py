"""One compiled CUDA kernel launched through the driver (:mod:`.cuda_driver`): its
launch configuration (grid, block, dynamic shared memory, tensor maps) read from the
tile-level kernel and its nvvm-level compilation, and :class:`KernelLaunch`, which
uploads the arrays, packs the parameters (:mod:`.kernel_abi`), loads the PTX, launches
and downloads.  ``scripts/gpu_check.py`` and ``tilepipe.language`` (where a GPU is
present) launch through it (docs/gpu_check.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.func import FuncOp

from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.drivers.cuda_driver import (
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    CudaError,
)
from tilepipe.drivers.kernel_abi import (
    argument_shapes,
    check_abi,
    kernel_arguments,
    ptx_parameters,
    tensor_map_parameters,
)
from tilepipe.drivers.tune_evaluate import launched_threads
from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid
from tilepipe.semantics import argument_names
from tilepipe.semantics.memory import element_format

STATIC_SHARED_LIMIT = 48 * 1024  # above it, a kernel must opt in to more shared memory


def launch_grid(
    func: FuncOp, shapes: dict[str, tuple[int, ...]] | None = None,
    index_args: dict[str, int] | None = None,
) -> tuple[int, ...]:
    """The grid ``func`` is launched on: its ``tile.grid``, or its ``tile.grid_dims``
    over the launch's argument shapes and index arguments."""
    try:
        return evaluate_grid(func, index_args, shapes)
    except GridEvaluationError as err:
        raise CudaError(f"{err} (at {err.op.name})") from None


def dynamic_shared_bytes(module: Any, kernel: str) -> int:
    """The dynamic shared memory ``lower-to-nvvm`` recorded on ``kernel`` of the
    nvvm-level ``module`` (0: none)."""
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR

    for op in module.walk() if module is not None else ():
        if op.name == "gpu.func" and op.attributes["sym_name"].data == kernel:
            recorded = op.attributes.get(DYNAMIC_SHARED_ATTR)
            return recorded.value.data if isinstance(recorded, IntegerAttr) else 0
    return 0


@dataclass(frozen=True)
class LaunchConfig:
    """How one kernel is launched: grid (padded to 3 by the driver), threads per block
    (x only), dynamic shared bytes, and the tensor maps it takes after its arguments."""

    kernel: str
    grid: tuple[int, ...]
    threads: int
    shared_bytes: int
    tensor_maps: list


def launch_config(
    func: FuncOp, nvvm_module: Any, shapes: dict[str, tuple[int, ...]] | None = None,
    index_args: dict[str, int] | None = None,
) -> LaunchConfig:
    """The launch of tile-level ``func`` compiled to ``nvvm_module``: the grid over
    ``shapes`` and ``index_args``, the compiled kernel's block (a warp-specialized
    kernel's producer warpgroup included), its dynamic shared memory and maps."""
    kernel = func.sym_name.data
    return LaunchConfig(
        kernel,
        launch_grid(func, shapes, index_args),
        launched_threads(nvvm_module, kernel, kernel_launch_shape(func)[1]),
        dynamic_shared_bytes(nvvm_module, kernel),
        tensor_map_parameters(nvvm_module, kernel),
    )


class KernelLaunch:
    """One kernel on one driver, as a context manager: on exit the module is unloaded
    and every device buffer freed, after an error too.

    ``check_abi()`` compares the packed parameters with the PTX entry before anything
    touches the GPU; ``load(arrays)`` uploads every memref argument (stored in its
    element type: bf16 as its 16 bits), encodes the tensor maps and loads the PTX;
    ``run()`` launches (asynchronously); ``results()`` waits and downloads every
    memref argument, in the dtype tilepipe's interpreter gives it."""

    def __init__(self, driver: Any, func: FuncOp, ptx: str, config: LaunchConfig,
                 shapes: dict[str, tuple[int, ...]] | None = None,
                 index_args: dict[str, int] | None = None):
        self.driver, self.func, self.ptx, self.config = driver, func, ptx, config
        self.shapes, self.index_args = shapes or {}, index_args or {}
        self.sizes = argument_shapes(func, self.shapes)  # every memref argument's
        types = dict(zip(argument_names(func), (a.type for a in func.body.block.args)))
        self.formats = {n: element_format(types[n].element_type) for n in self.sizes}
        self.pointers: dict[str, int] = {}
        self.values: list = []
        self.parameters = 0
        self.module = self.function = None

    def check_abi(self) -> None:
        arguments = kernel_arguments(self.func, dict.fromkeys(self.sizes, 0), self.shapes,
                                     self.index_args, self.config.tensor_maps)
        check_abi(arguments, ptx_parameters(self.ptx, self.config.kernel), self.config.kernel)

    def load(self, arrays: dict[str, np.ndarray]) -> None:
        for name in self.sizes:
            self.pointers[name] = self.driver.upload(self.formats[name].to_storage(arrays[name]))
        arguments = kernel_arguments(self.func, self.pointers, self.shapes, self.index_args,
                                     self.config.tensor_maps, self.driver.tensor_map)
        self.values, self.parameters = [value for _, value in arguments], len(arguments)
        self.module = self.driver.load_ptx(self.ptx)
        self.function = self.driver.function(self.module, self.config.kernel)
        shared = self.config.shared_bytes
        if shared > STATIC_SHARED_LIMIT:
            limit = self.driver.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            if shared > limit:
                raise CudaError(f"needs {shared} B of dynamic shared memory, the GPU allows {limit} B")
            self.driver.call("cuFuncSetAttribute", self.function,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)

    def run(self) -> None:
        config = self.config
        self.driver.launch(self.function, config.grid, config.threads, config.shared_bytes, self.values)

    def results(self) -> dict[str, np.ndarray]:
        self.driver.call("cuCtxSynchronize")
        return {
            name: fmt.from_storage(self.driver.download(
                self.pointers[name], np.empty(self.sizes[name], fmt.storage)))
            for name, fmt in self.formats.items()
        }

    def __enter__(self) -> KernelLaunch:
        return self

    def __exit__(self, *_exception: object) -> None:
        if self.module is not None:
            self.driver.unload(self.module)
        for pointer in self.pointers.values():
            self.driver.free(pointer)
        self.pointers.clear()
