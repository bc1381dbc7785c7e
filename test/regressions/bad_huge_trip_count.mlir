// lowering-2026-12/bad_huge_trip_count.mlir: a loop of 2^63 - 1 iterations made
// tile-run run without end.  The interpreters have a stated work limit (loop
// iterations per run, docs/semantics.md); a loop that would go past it is an error at
// the loop before its first iteration: the tile-level interpreter, and the pipe
// simulator that --check-races runs on the compiled Ascend kernel.
// RUN: %python %S/Inputs/exit_status.py 1 tile-run %s --quiet 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-run %s --quiet --check-races 2>&1 | filecheck %s --check-prefix=SIM
// A smaller loop within a raised limit runs; past a lowered one it stops the same way.
// RUN: sed 's/9223372036854775807 : index/3 : index/' %s > %t.mlir
// RUN: tile-run %t.mlir --quiet --check-races --max-steps 3
// RUN: %python %S/Inputs/exit_status.py 1 tile-run %t.mlir --quiet --max-steps 2 2>&1 | filecheck %s --check-prefix=LOWERED
// RUN: not tile-run %t.mlir --max-steps -1 2>&1 | filecheck %s --check-prefix=OPTION

// CHECK-NOT: internal error
// CHECK: bad_huge_trip_count.mlir:[[# @LINE + 15]]:3: error: 'pipeline.for' op runs 9223372036854775807 iterations, which exceeds the interpreter's limit of 10000000 loop iterations per run; raise it with tile-run --max-steps N (max_steps=N in the API)
// CHECK-NOT: exit_status.py
// SIM-NOT: internal error
// SIM: bad_huge_trip_count.mlir:[[# @LINE + 12]]:3: error: 'scf.for' op runs 9223372036854775807 iterations, which exceeds the interpreter's limit of 10000000 loop iterations per run
// SIM-NOT: exit_status.py
// LOWERED: error: 'pipeline.for' op runs 3 iterations, which exceeds the interpreter's limit of 2 loop iterations per run
// LOWERED-NOT: exit_status.py
// OPTION: tile-run: error: argument --max-steps: must be >= 0, got -1
func.func @static_tail(%x: memref<1000xi32>, %z: memref<1000xi32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 9223372036854775807 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xi32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<1000xi32> -> memref<256xi32, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xi32, "ub"> -> memref<1000xi32>
  }
  func.return
}
