// fuzz-2026-12/ascend_kernel_for_sm80.mlir: an Ascend kernel compiled with
// --target sm_80 reached upstream MLIR and aborted it (an assertion, no location).
// The kernel's tile.target and memory spaces are checked against --target before any
// pass runs: a located error.

// RUN: not tilepipe compile %s --target sm_80 2>&1 | filecheck %s
// RUN: sed 's/, tile.target = "ascend910b"//' %s > %t.mlir
// RUN: not tilepipe compile %t.mlir --target sm_80 2>&1 | filecheck %s --check-prefix=SPACE
// RUN: not tile-opt %t.mlir -p lower-to-nvvm -t ptx 2>&1 | filecheck %s --check-prefix=SPACE-OPT
// RUN: tilepipe compile %s --target ascend -q | filecheck %s --check-prefix=ASCEND

// CHECK-NOT: upstream
// CHECK: ascend_kernel_for_sm80.mlir:[[# @LINE + 6]]:1: error: 'func.func' op is a kernel for 'ascend910b' (tile.target, an Ascend target) and cannot be compiled for 'sm_80' (--target, a CUDA target)
// SPACE-NOT: upstream
// SPACE: error: 'memref.alloc' op result #0 is in memory space "ub", which target 'sm_80' does not have (it has "global", "shared", "fragment", "local")
// SPACE-OPT-NOT: upstream
// SPACE-OPT: error: 'memref.alloc' op result #0 is in memory space "ub", which target 'sm_80' does not have
// ASCEND: extern "C" __global__ __aicore__ void vadd(
func.func @vadd(%x: memref<4096xf16>, %y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
  }
  func.return
}
