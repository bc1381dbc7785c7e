#!/usr/bin/env bash
# TileLang 0.1.15's GEMMs as yardsticks for tilepipe's (docs/nvvm.md, "Machine code per
# k-iteration"): the sm_80 GEMMs bench/bench_sass.py compares with, and the warp-
# specialized sm_90a GEMM a Hopper path will be held to.  Each is lowered to CUDA
# source in a scratch venv, compiled with nvcc from the registry's CUDA wheels and the
# CUTLASS headers TileLang's wheel ships, and counted with bench/bench_sass.py --cubin.
# No GPU is needed.
#
#   bash bench/peer/tilelang.sh [SCRATCH_DIR]      (default /tmp/tilelang-peer)
#
# Nothing here is installed into tilepipe's venv.  TileLang imports torch (and
# apache-tvm-ffi imports it when present) for tensor interop, which lowering to CUDA
# source does not use; the scratch venv gets a stand-in module instead of the
# multi-gigabyte torch wheel.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=${1:-/tmp/tilelang-peer}
mkdir -p "$scratch/stub/torch" "$scratch/out"
if [ ! -x "$scratch/venv/bin/python" ]; then
  python3 -m venv "$scratch/venv"
  "$scratch/venv/bin/pip" install -q --no-deps "tilelang==0.1.15"
  "$scratch/venv/bin/pip" install -q "apache-tvm-ffi>=0.1.11,<0.1.13" cloudpickle ml-dtypes \
    numpy psutil tqdm typing-extensions "z3-solver>=4.13.0,<4.15.5" \
    "nvidia-cuda-nvcc==13.5.37" nvidia-cuda-cccl
fi
cat > "$scratch/stub/torch/__init__.py" <<'PY'
"""A stand-in for torch in the scratch venv: classes on demand, no CUDA."""
__version__ = "0.0.0"
_made = {}


class cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "cuda":
        return cuda
    return _made.setdefault(name, type(name, (), {}))
PY
site=$("$scratch/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
tilelang=$site/tilelang
cuda=$site/nvidia/cu13
count() {  # name arch hmma-per-iteration: compile out/NAME.cu and count its SASS
  # TileLang's own nvcc flags (tilelang/contrib/nvcc.py, jit/adapter/libgen.py).
  "$cuda/bin/nvcc" -gencode "arch=compute_${2#sm_},code=$2" -std=c++20 -O3 -lineinfo \
    --use_fast_math -cubin -I"$tilelang/src" -I"$tilelang/3rdparty/cutlass/include" \
    -I"$cuda/include" -I"$cuda/cccl" -Xptxas -v "$scratch/out/$1.cu" \
    -o "$scratch/out/$1.cubin" 2>&1 | grep -E "registers|spill" | sed "s/^/$1: /"
  (cd "$root" && .venv/bin/python bench/bench_sass.py --cubin "$scratch/out/$1.cubin" \
    --hmma-per-iteration "$3")
}
lower() {  # script name arch args...: TileLang lowers the kernel to out/NAME.cu
  local script=$1 name=$2
  shift 2
  PYTHONPATH="$scratch/stub" "$scratch/venv/bin/python" "$here/$script" "$@" \
    "$scratch/out/$name.cu" 2>/dev/null
}
# examples/gemm.mlir's shapes (1024^3, f32 C, 128 threads), as bench_sass.py's rows; the
# HMMA a k-iteration issues per thread: 4 warps x 64x64 = 32 m16n8 blocks per k-step.
lower tilelang_gemm.py gemm_sm80_k64_s3 sm_80 1024 128 128 64 3 128 float32
count gemm_sm80_k64_s3 sm_80 128
for stages in 1 2 3 4; do
  lower tilelang_gemm.py "gemm_sm80_k32_s$stages" sm_80 1024 128 128 32 "$stages" 128 float32
  count "gemm_sm80_k32_s$stages" sm_80 64
done
# sm_90a: block_M block_N num_stages threads (TileLang adds a producer warpgroup).
for config in "128 128 3" "128 256 3" "128 256 4"; do
  set -- $config
  lower tilelang_gemm.py "gemm_sm90a_${1}x${2}_s${3}" sm_90a 4096 "$1" "$2" 64 "$3" 256 float16
  count "gemm_sm90a_${1}x${2}_s${3}" sm_90a 0
done
# Flash attention as examples/flash_attention.mlir (num_stages 2, 128 threads): on sm_80
# two 64x64x64 gemms over 4 warps, 2 x 8 m16n8 blocks x 4 k-steps per thread.
for arch in sm_80 sm_90a; do
  lower tilelang_flash.py "flash_${arch}_s2" "$arch" 2 128
  count "flash_${arch}_s2" "$arch" 64
done
echo "TileLang's lowering of examples/gemm.mlir's GEMM to CUDA source (sm_80, no nvcc):"
PYTHONPATH="$scratch/stub" "$scratch/venv/bin/python" "$here/tilelang_gemm.py" --time 2>/dev/null
