// fuzz-2026-12/scf_for_bad_terminator.mlir: lines of a kernel shuffled so that an
// scf.for ends with the function's func.return.  tile-opt gave a located error, but
// tile-run said "internal error" (exit 4) and tilepipe compile printed a traceback.
// Every driver gives the same located error with exit 1.

// RUN: tile-opt %s --verify-diagnostics
// RUN: not tile-run %s 2>&1 | filecheck %s
// RUN: not tilepipe compile %s --target ascend 2>&1 | filecheck %s
// RUN: not tilepipe compile %s --target sm_80 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: scf_for_bad_terminator.mlir:20:3: error: 'scf.for' terminates with operation func.return instead of scf.yield
    tile.copy<128x256> %X[%c0, %c0] -> %X_ub[%slot, %c0, %c0] : memref<1024x256xf32, "gm"> -> memref<2x128x256xf32, "ub">
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %X_ub = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x128x256xf32, "ub">
  // expected-error @+1 {{terminates with operation func.return instead of scf.yield}}
  scf.for %k = %c0 to %c8 step %c1 {
    %slot = arith.remui %k, %c2 : index
func.func @ub_over_budget(%X: memref<1024x256xf32, "gm">) attributes {tile.target = "ascend910b"} {
    tile.exp<128x256> %X_ub[%slot, %c0, %c0] -> %X_ub[%slot, %c0, %c0] : memref<2x128x256xf32, "ub"> -> memref<2x128x256xf32, "ub">
    tile.copy<128x256> %X_ub[%slot, %c0, %c0] -> %X[%c0, %c0] : memref<2x128x256xf32, "ub"> -> memref<1024x256xf32, "gm">
  }
  func.return
}
