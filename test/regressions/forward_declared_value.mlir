// fuzz-2026-12/forward_declared_value.mlir: a loop bound used before its definition
// (defined later in the function) was accepted by tile-opt, and tile-run failed with
// an internal KeyError.  Every driver now reports the use, located, with exit 1.

// RUN: tile-opt %s --verify-diagnostics
// RUN: tile-opt %s --verify-diagnostics -p pipeline-validate,pipeline-planning,inject-software-pipeline
// RUN: not tile-run %s 2>&1 | filecheck %s
// RUN: not tilepipe compile %s --no-ptxas 2>&1 | filecheck %s

// CHECK-NOT: internal error
// CHECK: forward_declared_value.mlir:[[# @LINE + 4]]:3: error: 'pipeline.for' op operand #1 (%c4) does not dominate this use
func.func @k(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pipeline.for' op operand #1 (%c4) does not dominate this use}}
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %S = memref.alloc() : memref<16xf32, "shared">
  }
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  func.return
}
