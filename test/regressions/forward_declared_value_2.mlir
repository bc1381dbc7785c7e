// fuzz-2026-12/forward_declared_value_2.mlir: a loop bound defined only inside the
// loop's own body gave the internal error "Forward declared values do not have an
// owner" (tile-opt exit 2, tile-run exit 4, a traceback from tilepipe compile).  It is
// a use of an undeclared value, located at the use.

// RUN: tile-opt %s --split-input-file --verify-diagnostics
// RUN: not tile-run %s 2>&1 | filecheck %s
// RUN: not tilepipe compile %s --no-ptxas 2>&1 | filecheck %s
// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s

// CHECK-NOT: internal error
// CHECK-NOT: Traceback
// CHECK: forward_declared_value_2.mlir:[[# @LINE + 4]]:28: error: use of undeclared SSA value %c4
func.func @value_crosses_stages(%ids: memref<4xindex>, %A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{use of undeclared SSA value %c4}}
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1, 1] order = [0, 1, 2] {
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  %c1 = arith.constant 1 : index
    %id = memref.load %ids[%k] : memref<4xindex>
    tile.copy<64x64> %A[%id, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// A use inside a region of a value defined after the region's op.
func.func @defined_after_region(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    // expected-error @+1 {{'memref.load' op operand #1 (%late) does not dominate this use}}
    %x = memref.load %A[%late] : memref<64xf32>
  }
  %late = arith.constant 3 : index
  func.return
}

// -----

// A function is isolated from above: it sees no value of the enclosing module.
%outside = arith.constant 0 : index
func.func @isolated(%A: memref<64xf32>) {
  // expected-error @+1 {{'memref.load' op operand #1 (%outside) is defined above an op isolated from above}}
  %x = memref.load %A[%outside] : memref<64xf32>
  func.return
}
