"""cuBLAS's GEMM through ctypes, the library figure ``gpu_check.py`` times beside
tilepipe's kernels (docs/gpu_check.md)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from tilepipe.drivers.cuda_driver import CudaDriver, CudaError

_c = ctypes
_PTR = _c.c_void_p
# cublas_api.h, library_types.h
CUBLAS_OP_N = 0
CUDA_R_16F, CUDA_R_32F = 2, 0
CUBLAS_COMPUTE_32F = 68
CUBLAS_GEMM_DEFAULT = -1


def _load_cublas() -> ctypes.CDLL | None:
    import glob
    import site

    roots = [*site.getsitepackages(), site.getusersitepackages()]
    candidates = [p for r in roots for p in sorted(glob.glob(f"{r}/nvidia/*/lib/libcublas.so*"))]
    candidates += ["libcublas.so", "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"]
    for candidate in candidates:
        lt = Path(candidate).with_name(Path(candidate).name.replace("libcublas", "libcublasLt"))
        try:
            if lt.is_file():  # a wheel's libcublas finds its libcublasLt only if loaded
                ctypes.CDLL(str(lt), mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(candidate)
        except OSError:
            continue
    return None


def cublas_gemm(driver: CudaDriver, a: np.ndarray, b: np.ndarray, repeat: int) -> dict | None:
    """cublasGemmEx, f16 in, f32 out and compute: the row-major C = A@B as C^T = B^T A^T."""
    cublas = _load_cublas()
    if cublas is None:
        return None
    handle = _PTR()
    if cublas.cublasCreate_v2(_c.byref(handle)) != 0:
        return None
    (m, k), n = a.shape, b.shape[1]
    a_dev, b_dev = driver.upload(a.astype(np.float16)), driver.upload(b.astype(np.float16))
    c_dev = driver.upload(np.zeros((m, n), np.float32))
    alpha, beta = _c.c_float(1.0), _c.c_float(0.0)

    def run() -> None:
        status = cublas.cublasGemmEx(
            handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, _c.byref(alpha), _PTR(b_dev), CUDA_R_16F, n,
            _PTR(a_dev), CUDA_R_16F, k, _c.byref(beta), _PTR(c_dev), CUDA_R_32F, n,
            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT,
        )
        if status != 0:
            raise CudaError(f"cublasGemmEx failed with status {status}")

    try:
        ms = driver.milliseconds_per_call(run, repeat)
        c = driver.download(c_dev, np.zeros((m, n), np.float32))
    finally:
        for pointer in (a_dev, b_dev, c_dev):
            driver.free(pointer)
        cublas.cublasDestroy_v2(handle)
    return {"name": "cuBLAS cublasGemmEx f16->f32", "ms": ms, "result": c}
