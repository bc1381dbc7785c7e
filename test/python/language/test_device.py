"""Where a compiled kernel runs (tilepipe/language/device.py): in the interpreter
without a GPU or with ``TILEPIPE_DEVICE=interpreter``, a clear error for
``TILEPIPE_DEVICE=cuda`` without one; and, with a stand-in driver that records what a
launch hands the CUDA driver, the parameters the real PTX declares, the grid, block
and dynamic shared memory the compilation gives, tensor maps by value, integer
parameters as i64, bf16 as its 16 bits, and every buffer freed.  On a machine with a
GPU, the GEMM example launched and compared with numpy."""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T
from tilepipe.drivers.compile import compile_kernel
from tilepipe.drivers.cuda_driver import CudaError, TensorMapValue
from tilepipe.drivers.kernel_abi import PtxParam, check_abi, ptx_parameters
from tilepipe.language import device
from tilepipe.language.device import DeviceError, cuda_device, launch, runs_target
from tilepipe.semantics.memory import round_f32_to_bf16_bits

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "python"
NO_GPU = cuda_device("sm_80") is None


def _gemm_example():
    spec = importlib.util.spec_from_file_location("tl_example_gemm_device", EXAMPLES / "gemm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gemm(target: str, size: int = 256):
    return tilepipe.compile(_gemm_example().matmul(size, size, size), out_idx=[-1], target=target)


def _prefix_scale(dtype: str = "float32"):
    """B = 2 A on the first ``rows`` rows, 0 below: a kernel with an integer parameter."""

    @T.prim_func
    def prefix_scale(A: T.Tensor((64, 32), dtype), B: T.Tensor((64, 32), dtype), rows: T.int32):
        with T.Kernel(4, threads=128) as bx:
            a = T.alloc_fragment((16, 32), dtype)
            T.copy(A[bx * 16, 0], a)
            for i, j in T.Parallel(16, 32):
                a[i, j] = T.if_then_else(bx * 16 + i < rows, a[i, j] * 2.0, 0.0)
            T.copy(a, B[bx * 16, 0])

    return prefix_scale


class RecordingDriver:
    """Stands in for tilepipe.drivers.cuda_driver.CudaDriver: device memory is host
    arrays by address; it records every upload, launch (grid, threads, shared bytes,
    the parameter values) and download.  ``on_launch(memory, parameters)`` plays the
    kernel, if given."""

    def __init__(self, on_launch=None, fail_launch: bool = False, reject_ptx: bool = False):
        self.memory: dict[int, np.ndarray] = {}
        self.uploads: list[np.ndarray] = []
        self.launches: list[dict] = []
        self.downloads: list[int] = []
        self.tensor_maps: list[tuple] = []
        self.loaded: list[str] = []
        self.on_launch, self.fail_launch, self.reject_ptx = on_launch, fail_launch, reject_ptx

    def upload(self, array: np.ndarray) -> int:
        address = 0x7F0000000000 + 0x1000000 * len(self.uploads)
        self.uploads.append(np.array(array))
        self.memory[address] = np.array(array)
        return address

    def tensor_map(self, pointer, shape, element_type, element_bytes, box, swizzle):
        self.tensor_maps.append((pointer, tuple(shape), element_type, element_bytes, tuple(box), swizzle))
        return TensorMapValue()

    def load_ptx(self, ptx: str) -> str:
        if self.reject_ptx:  # as a driver older than the PTX's ISA version does
            raise CudaError("cuModuleLoadDataEx rejected the PTX (CUDA_ERROR_UNSUPPORTED_PTX_VERSION)")
        self.loaded.append(ptx)
        return "module"

    def function(self, module, name: str) -> str:
        return name

    def attribute(self, attribute: int) -> int:
        return 227 * 1024  # an H100's opt-in shared memory per block

    def call(self, name: str, *args) -> None:
        assert name in ("cuFuncSetAttribute", "cuCtxSynchronize")

    def launch(self, function, grid, threads, shared_bytes, parameters) -> None:
        self.launches.append({"kernel": function, "grid": tuple(grid), "threads": threads,
                              "shared_bytes": shared_bytes, "parameters": list(parameters)})
        if self.fail_launch:
            raise CudaError("cuLaunchKernel failed with CUDA_ERROR_INVALID_VALUE")
        if self.on_launch is not None:
            self.on_launch(self.memory, parameters)

    def download(self, pointer: int, like: np.ndarray) -> np.ndarray:
        stored = self.memory[pointer]
        assert (stored.shape, stored.dtype) == (like.shape, like.dtype)
        self.downloads.append(pointer)
        return stored.copy()

    def free(self, pointer: int) -> None:
        del self.memory[pointer]

    def unload(self, module) -> None:
        self.loaded.pop()


def _named(kernel, parameters) -> list[tuple[str, object]]:
    """The launch's parameter values under the names the kernel ABI gives them."""
    from tilepipe.drivers.kernel_abi import kernel_arguments, tensor_map_parameters

    func = kernel.module.body.block.first_op
    maps = tensor_map_parameters(kernel.compilation.module, func.sym_name.data)
    shapes = {n: tuple(a.type.get_shape()) for n, a in zip(kernel.params, func.body.block.args)
              if hasattr(a.type, "get_shape")}
    names = [name for name, _ in kernel_arguments(func, dict.fromkeys(shapes, 0), shapes,
                                                 dict.fromkeys(kernel.params, 0), maps)]
    assert len(names) == len(parameters)
    return list(zip(names, parameters))


def _multiply(memory, parameters) -> None:
    """The GEMM's effect: C = A @ B on the aligned pointers of the three descriptors."""
    a, b, c = (memory[parameters[k].value] for k in (1, 8, 15))
    c[...] = a.astype(np.float32) @ b.astype(np.float32)


# ---------------------------------------------------------------- choosing the device


@pytest.mark.parametrize("capability, target, runs", [
    ((8, 0), "sm_80", True), ((8, 9), "sm_80", True), ((7, 5), "sm_80", False),
    ((8, 9), "sm_90", False), ((9, 0), "sm_90", True), ((10, 0), "sm_90", True),
    ((9, 0), "sm_90a", True), ((10, 0), "sm_90a", False), ((12, 0), "sm_90a", False),
    ((9, 0), "ascend910b", False),
])
def test_a_gpu_runs_the_targets_its_compute_capability_reaches(capability, target, runs):
    assert runs_target(capability, target) == runs


def test_the_interpreter_setting_runs_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("TILEPIPE_DEVICE", "interpreter")
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    assert kernel.last_device is None
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    np.testing.assert_array_equal(kernel(x, 64), 2 * x)
    assert kernel.last_device == "interpreter"


@pytest.mark.skipif(not NO_GPU, reason="a GPU is present: auto launches on it")
def test_without_a_gpu_auto_runs_in_the_interpreter(monkeypatch):
    monkeypatch.delenv("TILEPIPE_DEVICE", raising=False)
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    x = np.ones((64, 32), np.float32)
    assert kernel(x, 16).sum() == 2 * 16 * 32 and kernel.last_device == "interpreter"


@pytest.mark.skipif(not NO_GPU, reason="a GPU is present")
def test_forcing_cuda_without_a_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TILEPIPE_DEVICE", "cuda")
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    x = np.ones((64, 32), np.float32)
    with pytest.raises(DeviceError, match=r"^TILEPIPE_DEVICE=cuda: cannot launch prefix_scale on a "
                                          r"GPU: no usable GPU \(cannot load libcuda"):
        kernel(x, 3)
    # The race detector is the interpreter's, whatever TILEPIPE_DEVICE says.
    assert kernel(x, 3, check_races=True).sum() == 2 * 3 * 32
    assert kernel.last_device == "interpreter"
    with pytest.raises(DeviceError, match="no value for B, rows"):
        kernel.run({"A": x})


def test_an_unknown_setting_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("TILEPIPE_DEVICE", "tpu")
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    with pytest.raises(DeviceError, match="TILEPIPE_DEVICE='tpu': expected one of auto, cuda, interpreter"):
        kernel(np.ones((64, 32), np.float32), 3)


def test_a_kernel_compiled_short_of_ptx_is_not_launched(monkeypatch):
    monkeypatch.setenv("TILEPIPE_DEVICE", "cuda")
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80", level="nvvm")
    with pytest.raises(DeviceError, match="compiled to level 'nvvm'; a launch needs its PTX"):
        kernel(np.ones((64, 32), np.float32), 3)
    with pytest.raises(DeviceError, match="compiled to level 'nvvm', a launch needs its PTX"):
        launch(kernel, {}, {}, RecordingDriver())


# ---------------------------------------------------------------- the launch


def test_a_gemm_launch_matches_the_ptx_and_the_compilation():
    kernel = _gemm("sm_80")
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (256, 256)).astype(np.float16)
    b = rng.uniform(-1, 1, (256, 256)).astype(np.float16)
    driver = RecordingDriver(_multiply)
    outputs = launch(kernel, {"A": a, "B": b, "C": np.zeros((256, 256), np.float32)}, {}, driver)

    (launched,) = driver.launches
    ptx = kernel.get_kernel_source()
    named = _named(kernel, launched["parameters"])
    check_abi(named, ptx_parameters(ptx, "gemm"), "gemm")  # 21 parameters, 3 descriptors
    assert [name for name, _ in named[:7]] == [
        "A.allocated", "A.aligned", "A.offset", "A.sizes[0]", "A.sizes[1]", "A.strides[0]", "A.strides[1]"]
    assert [v.value for _, v in named[2:7]] == [0, 256, 256, 256, 1]
    # The grid is T.Kernel's (ceildiv(N, 128), ceildiv(M, 128)); the block and the
    # dynamic shared memory are what the compiler records for the kernel.
    reported = compile_kernel(kernel.mlir(), "gemm.py", "sm_80", run_ptxas=False)
    assert launched["grid"] == (2, 2) and launched["threads"] == 128
    assert launched["shared_bytes"] == reported.dynamic_shared_bytes["gemm"] > 48 * 1024
    assert driver.loaded == [] and driver.memory == {}  # unloaded, freed
    assert [u.dtype for u in driver.uploads] == [np.float16, np.float16, np.float32]
    np.testing.assert_array_equal(driver.uploads[0], a)
    assert len(driver.downloads) == 3
    np.testing.assert_allclose(outputs["C"], a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(outputs["A"], a)


def test_on_sm90a_the_tensor_maps_are_passed_by_value():
    kernel = _gemm("sm_90a")
    x = np.ones((256, 256), np.float16)
    driver = RecordingDriver(_multiply)
    outputs = launch(kernel, {"A": x, "B": x, "C": np.zeros((256, 256), np.float32)}, {}, driver)
    (launched,) = driver.launches
    named = _named(kernel, launched["parameters"])
    params = ptx_parameters(kernel.get_kernel_source(), "gemm")
    check_abi(named, params, "gemm")
    assert params[-2:] == [PtxParam(1024, False)] * 2  # .param .align 64 .b8 [128]
    assert [name for name, _ in named[-2:]] == ["A.tensor_map", "B.tensor_map"]
    assert all(isinstance(value, TensorMapValue) for _, value in named[-2:])
    a_pointer, b_pointer = named[1][1].value, named[8][1].value
    assert [m[:3] for m in driver.tensor_maps] == [(a_pointer, (256, 256), "f16"), (b_pointer, (256, 256), "f16")]
    assert launched["threads"] == 256  # the producer warpgroup beside tile.threads
    np.testing.assert_array_equal(outputs["C"], np.full((256, 256), 256, np.float32))


def test_integer_parameters_are_passed_as_i64():
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    driver = RecordingDriver()
    x = np.ones((64, 32), np.float32)
    launch(kernel, {"A": x, "B": np.zeros_like(x)}, {"rows": 21}, driver)
    named = _named(kernel, driver.launches[0]["parameters"])
    check_abi(named, ptx_parameters(kernel.get_kernel_source(), "prefix_scale"), "prefix_scale")
    assert named[-1][0] == "rows" and isinstance(named[-1][1], ctypes.c_int64)
    assert named[-1][1].value == 21 and driver.launches[0]["grid"] == (4,)


def test_bf16_arrays_are_uploaded_as_their_bits():
    kernel = tilepipe.compile(_prefix_scale("bfloat16"), out_idx=[1], target="sm_80")
    x = np.random.default_rng(1).standard_normal((64, 32)).astype(np.float32)
    bits = round_f32_to_bf16_bits(x)

    def copy(memory, parameters):  # B = A, bit for bit
        memory[parameters[8].value][...] = memory[parameters[1].value]

    driver = RecordingDriver(copy)
    outputs = launch(kernel, {"A": x, "B": np.zeros_like(x)}, {"rows": 64}, driver)
    assert driver.uploads[0].dtype == np.uint16
    np.testing.assert_array_equal(driver.uploads[0], bits)
    assert outputs["B"].dtype == np.float32
    np.testing.assert_array_equal(round_f32_to_bf16_bits(outputs["B"]), bits)


def test_a_failing_launch_frees_the_device_memory():
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    driver = RecordingDriver(fail_launch=True)
    x = np.ones((64, 32), np.float32)
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE"):
        launch(kernel, {"A": x, "B": x}, {"rows": 1}, driver)
    assert driver.memory == {} and driver.loaded == []


def test_a_wrong_shape_is_the_interpreters_error():
    from tilepipe.semantics import KernelError

    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    driver = RecordingDriver()
    with pytest.raises(KernelError, match=r"input 'A' has shape \(32, 32\)"):
        launch(kernel, {"A": np.ones((32, 32), np.float32), "B": np.ones((64, 32), np.float32)},
               {"rows": 1}, driver)
    assert driver.uploads == []


def test_a_call_launches_where_the_process_found_a_gpu(monkeypatch):
    """The hook in JITKernel.run: with a driver found (here the stand-in, as the
    per-process probe's answer), a call of the kernel launches and says so."""
    driver = RecordingDriver(_multiply)
    monkeypatch.setattr(device, "_probed", (driver, (9, 0), ""))
    monkeypatch.delenv("TILEPIPE_DEVICE", raising=False)
    kernel = _gemm("sm_80")
    x = np.ones((256, 256), np.float16)
    np.testing.assert_array_equal(kernel(x, x), np.full((256, 256), 256, np.float32))
    assert kernel.last_device == "cuda" and len(driver.launches) == 1
    monkeypatch.setenv("TILEPIPE_DEVICE", "interpreter")
    assert kernel(x, x)[0, 0] == 256 and kernel.last_device == "interpreter"
    assert len(driver.launches) == 1


def test_a_kernel_the_gpu_refuses_runs_in_the_interpreter_unless_cuda_is_forced(monkeypatch):
    driver = RecordingDriver(reject_ptx=True)
    monkeypatch.setattr(device, "_probed", (driver, (8, 0), ""))
    monkeypatch.setenv("TILEPIPE_DEVICE", "auto")
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target="sm_80")
    x = np.ones((64, 32), np.float32)
    with pytest.warns(RuntimeWarning, match="prefix_scale runs in the interpreter: the GPU refused "
                                            "it: cuModuleLoadDataEx rejected the PTX"):
        assert kernel(x, 8).sum() == 2 * 8 * 32
    assert kernel.last_device == "interpreter" and driver.memory == {} and not driver.launches
    monkeypatch.setenv("TILEPIPE_DEVICE", "cuda")
    with pytest.raises(device.LaunchRefused, match="UNSUPPORTED_PTX_VERSION"):
        kernel(x, 8)
    # Failing once launched is never hidden by the interpreter.
    monkeypatch.setattr(device, "_probed", (RecordingDriver(fail_launch=True), (8, 0), ""))
    monkeypatch.setenv("TILEPIPE_DEVICE", "auto")
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_VALUE"):
        kernel(x, 8)


# ---------------------------------------------------------------- a real GPU


@pytest.mark.skipif(NO_GPU, reason="no usable GPU (libcuda, a device of compute capability 8.0 or newer)")
def test_the_gemm_example_on_the_gpu_equals_numpy(monkeypatch):
    monkeypatch.delenv("TILEPIPE_DEVICE", raising=False)
    kernel = _gemm("sm_80", 512)
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (512, 512)).astype(np.float16)
    b = rng.uniform(-1, 1, (512, 512)).astype(np.float16)
    c = kernel(a, b)
    assert kernel.last_device == "cuda"
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
