"""Where a :class:`~tilepipe.language.jit.JITKernel` runs: launched on the GPU through
the CUDA driver (:mod:`tilepipe.drivers.cuda_launch`) when one is usable, else in
tilepipe's tile-level interpreter.

``TILEPIPE_DEVICE`` chooses:

* ``auto`` (the default): a CUDA kernel launches when :func:`cuda_device` finds a GPU
  that runs its target (one the GPU refuses runs in the interpreter after a warning,
  :func:`run_on_gpu`), every other call runs in the interpreter;
* ``cuda``: every call launches, and one that cannot (no usable GPU, an Ascend kernel,
  a kernel compiled short of PTX, arrays missing) is a :class:`DeviceError`;
* ``interpreter``: every call runs in the interpreter.

``check_races=True`` always runs the interpreter, whose race detector it asks for.

Arrays reach the GPU as the interpreter sees them: ``JITKernel.__call__`` has already
converted them to the parameters' dtypes and packed shapes, torch tensors (CUDA ones
too) copied through numpy; each is stored in its element type (bf16, which numpy lacks,
from float32 to its 16 bits, rounded to nearest even as the interpreter stores it) in a
device buffer of the launch's own, freed after it.  Handing torch's device pointers to
the kernel instead would skip two copies, but the conversions above would then have to
happen on the GPU as well.
"""

from __future__ import annotations

import os
import re
import threading
import warnings
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType, MemRefType

from tilepipe.drivers.cuda_driver import CudaDriver, CudaError, CudaUnavailable
from tilepipe.drivers.cuda_launch import KernelLaunch, launch_config
from tilepipe.semantics import argument_names
from tilepipe.semantics.tile.grid_runner import argument_shape

ENVIRONMENT_VARIABLE = "TILEPIPE_DEVICE"
SETTINGS = ("auto", "cuda", "interpreter")


class DeviceError(RuntimeError):
    """``TILEPIPE_DEVICE`` is not a known setting, or asks for a launch that this
    machine or kernel cannot do."""


class LaunchRefused(CudaError):
    """The GPU would not take the kernel, before anything ran: its parameters do not
    match the PTX, the driver rejects the PTX (one older than the PTX's ISA), has no
    tensor maps, or the GPU has too little shared memory."""


def device_setting() -> str:
    """``TILEPIPE_DEVICE``, read at each call (default ``auto``)."""
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "auto").strip().lower() or "auto"
    if setting not in SETTINGS:
        raise DeviceError(f"{ENVIRONMENT_VARIABLE}={os.environ[ENVIRONMENT_VARIABLE]!r}: "
                          f"expected one of {', '.join(SETTINGS)}")
    return setting


def required_capability(target: str) -> tuple[tuple[int, int], bool] | None:
    """The compute capability ``target`` needs and whether it needs exactly that one
    (an architecture-specific target, ``sm_90a``, runs on 9.0 only); None for a
    target that is not CUDA's."""
    match = re.fullmatch(r"sm_(\d+)(\d)(a?)", target)
    if match is None:
        return None
    return (int(match.group(1)), int(match.group(2))), bool(match.group(3))


def runs_target(capability: tuple[int, int], target: str) -> bool:
    """Whether a GPU of compute ``capability`` runs code compiled for ``target``
    (newer GPUs JIT-compile a portable target's PTX)."""
    required = required_capability(target)
    if required is None:
        return False
    needed, exact = required
    return capability == needed if exact else capability >= needed


# The driver is probed once per process: loading libcuda and cuInit cost tens of
# milliseconds, and the answer does not change while the process runs.
_PROBE_LOCK = threading.Lock()
_probed: tuple[CudaDriver | None, tuple[int, int] | None, str] | None = None


def _probe() -> tuple[CudaDriver | None, tuple[int, int] | None, str]:
    """(driver, compute capability, "") or (None, None, why there is none)."""
    global _probed
    with _PROBE_LOCK:
        if _probed is None:
            try:
                driver = CudaDriver()
                _probed = (driver, driver.compute_capability(), "")
            except (CudaUnavailable, CudaError, OSError, AttributeError) as err:
                # AttributeError: a libcuda too old to have a function the driver binds.
                _probed = (None, None, str(err))
        return _probed


def _unusable(target: str) -> str | None:
    """Why no GPU of this machine runs ``target``; None when one does."""
    driver, capability, reason = _probe()
    if driver is None:
        return f"no usable GPU ({reason})"
    if not runs_target(capability, target):
        major, minor = capability
        return f"the GPU (compute capability {major}.{minor}) does not run {target}"
    return None


def cuda_device(target: str = "sm_80") -> CudaDriver | None:
    """The driver of a usable GPU that runs ``target``: libcuda loads, ``cuInit``
    succeeds, the driver sees a GPU, and its compute capability is at least the
    target's (``sm_80``: 8.0, ``sm_90``: 9.0; ``sm_90a``: 9.0 exactly).  None
    otherwise.  Probed once per process."""
    return None if _unusable(target) is not None else _probe()[0]


def _not_launchable(kernel: Any, inputs: dict[str, np.ndarray], scalars: dict[str, int]) -> str | None:
    """Why this call of ``kernel`` cannot launch on the GPU; None when it can."""
    if required_capability(kernel.target) is None:
        return f"{kernel.target} is not a CUDA target"
    if kernel.compilation.level != "ptx":
        return f"the kernel was compiled to level {kernel.compilation.level!r}; a launch needs its PTX"
    func = kernel.module.body.block.first_op
    missing = [name for name, arg in zip(argument_names(func), func.body.block.args)
               if name not in (scalars if isinstance(arg.type, IndexType) else inputs)]
    if missing:
        return f"no value for {', '.join(missing)} (a launch needs every argument)"
    return _unusable(kernel.target)


def driver_for(kernel: Any, inputs: dict[str, np.ndarray], scalars: dict[str, int],
               check_races: bool = False) -> CudaDriver | None:
    """The driver to launch this call of ``kernel`` on, or None to interpret it, as
    ``TILEPIPE_DEVICE`` says; ``TILEPIPE_DEVICE=cuda`` and a call that cannot launch
    raise :class:`DeviceError`."""
    setting = device_setting()
    if setting == "interpreter" or check_races:
        return None
    reason = _not_launchable(kernel, inputs, scalars)
    if reason is None:
        return _probe()[0]
    if setting == "cuda":
        raise DeviceError(f"{ENVIRONMENT_VARIABLE}=cuda: cannot launch {kernel.func.name} "
                          f"on a GPU: {reason}")
    return None


def run_on_gpu(kernel: Any, inputs: dict[str, np.ndarray], scalars: dict[str, int],
               check_races: bool = False) -> dict[str, np.ndarray] | None:
    """This call of ``kernel`` launched where :func:`driver_for` finds a GPU: every
    array argument after the launch, or None for the caller to interpret it.

    With ``TILEPIPE_DEVICE=auto`` a kernel the GPU refuses (:class:`LaunchRefused`)
    runs in the interpreter after a ``RuntimeWarning`` that says why, so that a
    machine whose driver cannot take tilepipe's PTX computes as one without a GPU;
    with ``cuda`` the refusal is raised.  A kernel that fails once launched (a fault)
    is always raised: the interpreter would hide a miscompiled kernel."""
    driver = driver_for(kernel, inputs, scalars, check_races)
    if driver is None:
        return None
    try:
        return launch(kernel, inputs, scalars, driver)
    except LaunchRefused as err:
        if device_setting() == "cuda":
            raise
        warnings.warn(f"{kernel.func.name} runs in the interpreter: the GPU refused it: {err}",
                      RuntimeWarning, stacklevel=3)
        return None


def launch(kernel: Any, inputs: dict[str, np.ndarray], scalars: dict[str, int],
           driver: Any = None) -> dict[str, np.ndarray]:
    """Launch ``kernel`` (a ``JITKernel`` compiled to PTX) on ``driver`` (default:
    :func:`cuda_device`'s), its arrays ``inputs`` and integer parameters ``scalars``
    by parameter name; returns every array argument as it is after the launch, as
    the interpreter's ``run`` does.  Device memory is freed whatever happens.

    The grid is the kernel's ``tile.grid`` or its ``tile.grid_dims`` over these
    shapes and scalars; the block and dynamic shared memory are the compiled
    kernel's; the parameters are checked against the PTX entry before the launch.
    Raises :class:`LaunchRefused` for a kernel the GPU does not take, ``CudaError``
    for a failing launch, and the interpreter's ``KernelError`` for a wrong shape."""
    if driver is None:
        driver = cuda_device(kernel.target)
        if driver is None:
            raise DeviceError(f"cannot launch {kernel.func.name}: {_unusable(kernel.target)}")
    if kernel.compilation.level != "ptx":
        raise DeviceError(f"cannot launch {kernel.func.name}: compiled to level "
                          f"{kernel.compilation.level!r}, a launch needs its PTX")
    func = kernel.module.body.block.first_op
    shapes = {}
    for name, arg in zip(argument_names(func), func.body.block.args):
        if isinstance(arg.type, MemRefType):  # the interpreter's check, and its message
            shapes[name] = argument_shape(func, name, arg.type, None, inputs.get(name))
    compilation = kernel.compilation
    config = launch_config(func, compilation.module, shapes, scalars)
    with KernelLaunch(driver, func, compilation.text, config, shapes, scalars) as launched:
        try:
            launched.check_abi()
            launched.load(inputs)
        except CudaError as err:
            raise LaunchRefused(str(err)) from None
        launched.run()
        return launched.results()
