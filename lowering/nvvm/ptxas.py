"""``ptxas -v``: the check that a real assembler accepts tilepipe's PTX, and the
register / shared-memory figures it reports.

ptxas comes from the ``nvidia-cuda-nvcc`` wheel (``site-packages/nvidia/cu13/bin``);
``TILEPIPE_PTXAS`` overrides the path, and a ``ptxas`` on ``PATH`` is the last resort.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

PTXAS_ENV = "TILEPIPE_PTXAS"


class PtxasNotFound(RuntimeError):
    pass


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


def find_ptxas() -> Path:
    candidates: list[Path] = []
    if env := os.environ.get(PTXAS_ENV):
        candidates.append(Path(env))
    for key in ("purelib", "platlib"):
        candidates.append(Path(sysconfig.get_paths()[key]) / "nvidia/cu13/bin/ptxas")
    if on_path := shutil.which("ptxas"):
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise PtxasNotFound(
        "ptxas not found: install the nvidia-cuda-nvcc wheel (pip install "
        f"'tilepipe[ptx]') or set {PTXAS_ENV}"
    )


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


def run_ptxas(ptx: str, arch: str) -> list[PtxasReport]:
    """Assemble ``ptx`` for ``arch`` (e.g. ``sm_80``) and report per kernel."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory(prefix="tilepipe-ptxas-") as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx)
        result = subprocess.run(
            [str(ptxas), "-v", f"-arch={arch}", str(source), "-o", str(Path(tmp) / "kernel.cubin")],
            capture_output=True,
            text=True,
        )
    log = result.stdout + result.stderr
    if result.returncode != 0:
        errors = [line for line in log.splitlines() if "error" in line] or [log]
        raise PtxasError(arch, "\n".join(errors))
    return parse_ptxas_log(log, arch)
