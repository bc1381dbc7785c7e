#!/usr/bin/env bash
# TileLang 0.1.15's sm_90a GEMM as a yardstick for tilepipe's (docs/nvvm.md, "TileLang's
# sm_90a GEMM"): lower it to CUDA source in a scratch venv, compile it with nvcc from
# the registry's CUDA wheels and the CUTLASS headers TileLang's wheel ships, and count
# its SASS loops with bench/bench_sass.py --cubin.  No GPU is needed.
#
#   bash bench/peer/tilelang_sm90a.sh [SCRATCH_DIR]      (default /tmp/tilelang-peer)
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
# block_M block_N num_stages threads (TileLang adds a producer warpgroup to these)
for config in "128 128 3 256" "128 256 3 256" "128 256 4 256"; do
  set -- $config
  name="gemm_${1}x${2}_s${3}_t${4}"
  PYTHONPATH="$scratch/stub" "$scratch/venv/bin/python" "$here/tilelang_gemm_sm90a.py" \
    "$1" "$2" "$3" "$4" "$scratch/out/$name.cu" 2>/dev/null
  # TileLang's own nvcc flags (tilelang/contrib/nvcc.py, jit/adapter/libgen.py).
  "$cuda/bin/nvcc" -gencode arch=compute_90a,code=sm_90a -std=c++20 -O3 -lineinfo \
    --use_fast_math -cubin -I"$tilelang/src" -I"$tilelang/3rdparty/cutlass/include" \
    -I"$cuda/include" -I"$cuda/cccl" -Xptxas -v "$scratch/out/$name.cu" \
    -o "$scratch/out/$name.cubin" 2>&1 | grep -E "registers|spill" | sed "s/^/$name: /"
  (cd "$root" && .venv/bin/python bench/bench_sass.py --cubin "$scratch/out/$name.cubin")
done
