"""A downstream project's lit suite configured by tilepipe.drivers.lit_support in two lines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CONFIG = """\
import tilepipe.drivers.lit_support
tilepipe.drivers.lit_support.configure(config, lit_config)
"""

KERNEL = """\
// RUN: %tile-opt %s -p '%{cuda:scheduled}' | FileCheck %s
// RUN: %tile-opt %s --pass-pipeline='builtin.module(func.func(%{cuda}))' | %filecheck %s --check-prefix=NVVM
// CHECK-LABEL: func.func @k
// CHECK: pipeline.wait_group 0
// NVVM-LABEL: gpu.func @k(
func.func @k(%A: memref<64x64xf16>, %B: memref<64x64xf16>) attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  return
}
"""


def run_suite(root: Path, check: str) -> subprocess.CompletedProcess:
    (root / "lit.cfg.py").write_text('config.name = "downstream"\n' + CONFIG)
    (root / "k.mlir").write_text(KERNEL.replace("// CHECK: pipeline.wait_group 0", check))
    return subprocess.run(
        [sys.executable, "-c", "from lit.main import main; main()", "-v", str(root)], capture_output=True, text=True
    )


def test_the_config_is_two_lines():
    assert len(CONFIG.splitlines()) == 2


def test_a_downstream_suite_passes(tmp_path):
    result = run_suite(tmp_path, "// CHECK: pipeline.wait_group 0")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed: 1" in result.stdout or "PASS: downstream :: k.mlir" in result.stdout


def test_a_wrong_check_fails(tmp_path):
    result = run_suite(tmp_path, "// CHECK: no.such.op")
    assert result.returncode == 1 and "FAIL: downstream :: k.mlir" in result.stdout
