"""The CUDA driver API through ctypes (``libcuda.so.1``), no extra package.

What launching tilepipe's PTX needs (``scripts/gpu_check.py``, and
``tilepipe.language`` where a GPU is present): device queries, PTX loading with the
JIT's error log, memory, tensor maps, kernel launches and event timing, on device 0's
primary context (the context the CUDA runtime uses, so cuBLAS and torch share it and
its default stream).
"""

from __future__ import annotations

import ctypes
import numpy as np

from tilepipe.dialects.tensor_maps import TENSOR_MAP_ENCODING

# CUDA driver API constants (cuda.h).
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
JIT_LOG_BYTES = 16384
# Tensor maps: cuda.h's CUtensorMap* values, shared with the host launchers.
ENCODING = TENSOR_MAP_ENCODING
TENSOR_MAP_BYTES, TENSOR_MAP_ALIGNMENT = ENCODING.map_bytes, ENCODING.map_alignment


class CudaUnavailable(Exception):
    """No driver library, no GPU, or one too old: nothing to launch on."""


class CudaError(Exception):
    """A driver call failed, or a kernel could not be loaded or launched with its
    arguments (the message says which and why)."""


# --------------------------------------------------------------------------- driver

_c = ctypes
_PTR = _c.c_void_p
_SIGNATURES = {
    "cuInit": [_c.c_uint],
    "cuDriverGetVersion": [_c.POINTER(_c.c_int)],
    "cuDeviceGetCount": [_c.POINTER(_c.c_int)],
    "cuDeviceGet": [_c.POINTER(_c.c_int), _c.c_int],
    "cuDeviceGetName": [_c.c_char_p, _c.c_int, _c.c_int],
    "cuDeviceGetAttribute": [_c.POINTER(_c.c_int), _c.c_int, _c.c_int],
    "cuDevicePrimaryCtxRetain": [_c.POINTER(_PTR), _c.c_int],
    "cuCtxSetCurrent": [_PTR],
    "cuCtxSynchronize": [],
    "cuGetErrorName": [_c.c_int, _c.POINTER(_c.c_char_p)],
    "cuModuleLoadDataEx": [_c.POINTER(_PTR), _c.c_char_p, _c.c_uint, _c.POINTER(_c.c_int), _c.POINTER(_PTR)],
    "cuModuleUnload": [_PTR],
    "cuModuleGetFunction": [_c.POINTER(_PTR), _PTR, _c.c_char_p],
    "cuFuncSetAttribute": [_PTR, _c.c_int, _c.c_int],
    "cuMemAlloc_v2": [_c.POINTER(_c.c_uint64), _c.c_size_t],
    "cuMemFree_v2": [_c.c_uint64],
    "cuMemcpyHtoD_v2": [_c.c_uint64, _PTR, _c.c_size_t],
    "cuMemcpyDtoH_v2": [_PTR, _c.c_uint64, _c.c_size_t],
    "cuLaunchKernel": [_PTR] + [_c.c_uint] * 7 + [_PTR, _c.POINTER(_PTR), _c.POINTER(_PTR)],
    "cuEventCreate": [_c.POINTER(_PTR), _c.c_uint],
    "cuEventRecord": [_PTR, _PTR],
    "cuEventSynchronize": [_PTR],
    "cuEventElapsedTime": [_c.POINTER(_c.c_float), _PTR, _PTR],
    "cuEventDestroy_v2": [_PTR],
}
# Drivers before CUDA 12 have no tensor maps; kernels without maps do not need them.
_OPTIONAL_SIGNATURES = {
    "cuTensorMapEncodeTiled": [
        _PTR, _c.c_int, _c.c_uint32, _PTR, _c.POINTER(_c.c_uint64), _c.POINTER(_c.c_uint64),
        _c.POINTER(_c.c_uint32), _c.POINTER(_c.c_uint32), _c.c_int, _c.c_int, _c.c_int, _c.c_int,
    ],
}


class TensorMapValue:
    """A ``CUtensorMap``: 128 bytes at a 64-byte aligned host address (the encoder
    requires it), passed to a launch by value like any other parameter."""

    def __init__(self) -> None:
        self._storage = (_c.c_ubyte * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGNMENT))()
        skip = -_c.addressof(self._storage) % TENSOR_MAP_ALIGNMENT
        self.value = (_c.c_ubyte * TENSOR_MAP_BYTES).from_buffer(self._storage, skip)


def encode_tensor_map(
    lib, pointer: int, shape, element_type: str, element_bytes: int, box, swizzle: int
) -> TensorMapValue:
    """``cuTensorMapEncodeTiled`` for a row-major array at device address ``pointer``
    (``shape`` and ``box`` outermost first, as tilepipe.tensor_maps records them; the
    driver takes them innermost first, with the byte strides of the outer dimensions),
    zero fill out of bounds, L2 promotion of 128-byte lines."""
    if element_type not in ENCODING.data_types or swizzle not in ENCODING.swizzles:
        raise CudaError(f"no tensor map for {element_type} elements with swizzle {swizzle}")
    rank = len(shape)
    strides = [element_bytes]
    for extent in reversed(shape[1:]):
        strides.append(strides[-1] * extent)
    dims = (_c.c_uint64 * rank)(*reversed(shape))
    byte_strides = (_c.c_uint64 * max(rank - 1, 1))(*strides[1:])
    box_dims = (_c.c_uint32 * rank)(*reversed(box))
    element_strides = (_c.c_uint32 * rank)(*([1] * rank))
    encoded = TensorMapValue()
    result = lib.cuTensorMapEncodeTiled(
        _c.cast(_c.pointer(encoded.value), _PTR), ENCODING.data_types[element_type], rank,
        _PTR(pointer), dims, byte_strides, box_dims, element_strides,
        ENCODING.interleave, ENCODING.swizzles[swizzle],
        ENCODING.l2_promotion, ENCODING.oob_fill,
    )
    if result != 0:
        raise CudaError(
            f"cuTensorMapEncodeTiled rejected shape {list(shape)}, box {list(box)}, "
            f"swizzle {swizzle} (CUresult {result})"
        )
    return encoded


class CudaDriver:
    """The few driver API calls a launch needs, on device 0's primary context."""

    def __init__(self, library: str = "libcuda.so.1"):
        try:
            self.lib = ctypes.CDLL(library)
        except OSError as err:
            raise CudaUnavailable(f"cannot load {library}: {err}") from None
        for name, argtypes in _SIGNATURES.items():
            function = getattr(self.lib, name)
            function.argtypes, function.restype = argtypes, _c.c_int
        for name, argtypes in _OPTIONAL_SIGNATURES.items():
            if hasattr(self.lib, name):
                function = getattr(self.lib, name)
                function.argtypes, function.restype = argtypes, _c.c_int
        if (result := self.lib.cuInit(0)) != 0:
            raise CudaUnavailable(f"cuInit failed with {self.error_name(result)}")
        count = _c.c_int()
        self.call("cuDeviceGetCount", _c.byref(count))
        if count.value == 0:
            raise CudaUnavailable("the driver sees no GPU")
        device = _c.c_int()
        self.call("cuDeviceGet", _c.byref(device), 0)
        self.device = device.value
        self.context = _PTR()
        self.call("cuDevicePrimaryCtxRetain", _c.byref(self.context), self.device)
        self.call("cuCtxSetCurrent", self.context)

    def error_name(self, result: int) -> str:
        name = _c.c_char_p()
        if self.lib.cuGetErrorName(result, _c.byref(name)) != 0 or not name.value:
            return f"CUresult {result}"
        return name.value.decode()

    def call(self, name: str, *args) -> None:
        if (result := getattr(self.lib, name)(*args)) != 0:
            raise CudaError(f"{name} failed with {self.error_name(result)}")

    def attribute(self, attribute: int) -> int:
        value = _c.c_int()
        self.call("cuDeviceGetAttribute", _c.byref(value), attribute, self.device)
        return value.value

    def compute_capability(self) -> tuple[int, int]:
        return (self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))

    def describe(self) -> dict[str, object]:
        name = _c.create_string_buffer(256)
        self.call("cuDeviceGetName", name, 256, self.device)
        version = _c.c_int()
        self.call("cuDriverGetVersion", _c.byref(version))
        major, minor = self.compute_capability()
        return {
            "name": name.value.decode(),
            "compute_capability": f"{major}.{minor}",
            "driver": f"{version.value // 1000}.{version.value % 1000 // 10}",
        }

    def load_ptx(self, ptx: str) -> _PTR:
        """JIT-compile ``ptx``; a rejection reports the JIT's error log."""
        log = _c.create_string_buffer(JIT_LOG_BYTES)
        options = (_c.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        values = (_PTR * 2)(_c.cast(log, _PTR), _PTR(JIT_LOG_BYTES))
        module = _PTR()
        result = self.lib.cuModuleLoadDataEx(_c.byref(module), ptx.encode() + b"\0", 2, options, values)
        if result != 0:
            raise CudaError(
                f"cuModuleLoadDataEx rejected the PTX ({self.error_name(result)}):\n"
                + (log.value.decode(errors="replace").strip() or "(empty JIT log)")
            )
        return module

    def function(self, module: _PTR, name: str) -> _PTR:
        function = _PTR()
        self.call("cuModuleGetFunction", _c.byref(function), module, name.encode())
        return function

    def upload(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        pointer = _c.c_uint64()
        self.call("cuMemAlloc_v2", _c.byref(pointer), max(array.nbytes, 1))
        self.call("cuMemcpyHtoD_v2", pointer.value, array.ctypes.data_as(_PTR), array.nbytes)
        return pointer.value

    def tensor_map(
        self, pointer: int, shape, element_type: str, element_bytes: int, box, swizzle: int
    ) -> TensorMapValue:
        if not hasattr(self.lib, "cuTensorMapEncodeTiled"):
            raise CudaError("the driver has no cuTensorMapEncodeTiled (CUDA 12 or later)")
        return encode_tensor_map(
            self.lib, pointer, shape, element_type, element_bytes, box, swizzle
        )

    def download(self, pointer: int, like: np.ndarray) -> np.ndarray:
        out = np.empty_like(like)
        self.call("cuMemcpyDtoH_v2", out.ctypes.data_as(_PTR), pointer, out.nbytes)
        return out

    # Releasing ignores errors: after a faulting kernel the context is unusable, and
    # the fault, reported by cuCtxSynchronize, is the error worth reporting.

    def free(self, pointer: int) -> None:
        self.lib.cuMemFree_v2(pointer)

    def unload(self, module: _PTR) -> None:
        self.lib.cuModuleUnload(module)

    def launch(self, function: _PTR, grid, threads: int, shared_bytes: int, arguments) -> None:
        grid = tuple(grid) + (1,) * (3 - len(grid))
        values = [a.value if isinstance(a, TensorMapValue) else a for a in arguments]
        params = (_PTR * len(values))(*(_c.cast(_c.pointer(v), _PTR) for v in values))
        self.call("cuLaunchKernel", function, *grid, threads, 1, 1, shared_bytes, None, params, None)

    def milliseconds_per_call(self, run, repeat: int, warmup: int = 3) -> float:
        """Mean time of ``run()`` over ``repeat`` calls, by events on the default stream."""
        for _ in range(warmup):
            run()
        start, stop = _PTR(), _PTR()
        self.call("cuEventCreate", _c.byref(start), 0)
        self.call("cuEventCreate", _c.byref(stop), 0)
        try:
            self.call("cuEventRecord", start, None)
            for _ in range(repeat):
                run()
            self.call("cuEventRecord", stop, None)
            self.call("cuEventSynchronize", stop)
            elapsed = _c.c_float()
            self.call("cuEventElapsedTime", _c.byref(elapsed), start, stop)
        finally:
            self.lib.cuEventDestroy_v2(start)
            self.lib.cuEventDestroy_v2(stop)
        return elapsed.value / repeat
