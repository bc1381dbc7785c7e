"""``ptxas -v``: the check that a real assembler accepts tilepipe's PTX, and the
register / shared-memory figures it reports.

ptxas comes from the ``nvidia-cuda-nvcc`` wheel (``site-packages/nvidia/cu13/bin``), and
``nvdisasm`` (the SASS of an assembled cubin, for ``bench/bench_sass.py``) from the
``nvidia-cuda-nvdisasm`` wheel beside it: both are the ``ptx`` extra's pins.
``TILEPIPE_PTXAS`` / ``TILEPIPE_NVDISASM`` override the paths, and a tool on ``PATH`` is
the last resort.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

PTXAS_ENV = "TILEPIPE_PTXAS"
NVDISASM_ENV = "TILEPIPE_NVDISASM"
CUDA_WHEEL_BIN = "nvidia/cu13/bin"


class CudaToolNotFound(RuntimeError):
    pass


PtxasNotFound = CudaToolNotFound  # what the drivers catch when ptxas is missing


class PtxasError(RuntimeError):
    """ptxas rejected the PTX; ``message`` holds its error lines."""

    def __init__(self, arch: str, message: str):
        super().__init__(f"ptxas -arch={arch} rejected the PTX:\n{message}")
        self.message = message


@dataclass(frozen=True)
class PtxasReport:
    kernel: str
    arch: str
    registers: int
    shared_bytes: int  # static shared memory (dynamic shared memory is not counted)
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    barriers: int
    log: str


def find_cuda_tool(tool: str, env: str, wheel: str) -> Path:
    """``tool`` from the environment variable ``env``, else from the pinned CUDA wheel
    ``wheel`` in any site directory on ``sys.path`` (a venv layered over another
    through a ``.pth`` sees the other's wheels there), else from ``PATH``."""
    candidates: list[Path] = []
    if override := os.environ.get(env):
        candidates.append(Path(override))
    site_dirs = [sysconfig.get_paths()[key] for key in ("purelib", "platlib")]
    site_dirs += [entry for entry in sys.path if entry.endswith("site-packages")]
    candidates += [Path(site) / CUDA_WHEEL_BIN / tool for site in dict.fromkeys(site_dirs)]
    if on_path := shutil.which(tool):
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise CudaToolNotFound(
        f"{tool} not found: install the {wheel} wheel (pip install "
        f"'tilepipe[ptx]') or set {env}"
    )


def find_ptxas() -> Path:
    return find_cuda_tool("ptxas", PTXAS_ENV, "nvidia-cuda-nvcc")


def find_nvdisasm() -> Path:
    return find_cuda_tool("nvdisasm", NVDISASM_ENV, "nvidia-cuda-nvdisasm")


_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?")
_SMEM = re.compile(r"(\d+) bytes smem")
_FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")


def parse_ptxas_log(log: str, arch: str) -> list[PtxasReport]:
    """One report per entry function in a ``ptxas -v`` log."""
    reports: list[PtxasReport] = []
    parts = _ENTRY.split(log)
    for kernel, body in zip(parts[1::2], parts[2::2]):
        used = _USED.search(body)
        smem = _SMEM.search(body)
        frame = _FRAME.search(body)
        if used is None:
            continue
        reports.append(
            PtxasReport(
                kernel=kernel,
                arch=arch,
                registers=int(used.group(1)),
                barriers=int(used.group(2) or 0),
                shared_bytes=int(smem.group(1)) if smem else 0,
                stack_bytes=int(frame.group(1)) if frame else 0,
                spill_store_bytes=int(frame.group(2)) if frame else 0,
                spill_load_bytes=int(frame.group(3)) if frame else 0,
                log=log,
            )
        )
    return reports


def run_ptxas(ptx: str, arch: str, cubin: Path | None = None) -> list[PtxasReport]:
    """Assemble ``ptx`` for ``arch`` (e.g. ``sm_80``) and report per kernel; the
    cubin is kept at ``cubin`` when given."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory(prefix="tilepipe-ptxas-") as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx)
        output = cubin if cubin is not None else Path(tmp) / "kernel.cubin"
        result = subprocess.run(
            [str(ptxas), "-v", f"-arch={arch}", str(source), "-o", str(output)],
            capture_output=True,
            text=True,
        )
    log = result.stdout + result.stderr
    if result.returncode != 0:
        errors = [line for line in log.splitlines() if "error" in line] or [log]
        raise PtxasError(arch, "\n".join(errors))
    return parse_ptxas_log(log, arch)


def disassemble(cubin: Path) -> str:
    """The SASS of ``cubin`` (``nvdisasm -c``: code sections only)."""
    result = subprocess.run(
        [str(find_nvdisasm()), "-c", str(cubin)], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"nvdisasm failed on {cubin}:\n{result.stderr}")
    return result.stdout
