// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// Fuzz regression (fuzz-2026-12): the copy into %T and the first guarded copy into %S
// (the same arena bytes) shared a group; thread-sync put a wait between them inside
// the guard, before the commit, with the count -1, and rejected its own output.  Waits
// now go only where the copy's group is committed on every path, and the arena-aware
// runs of async-copy commit %T's copy first.

// CHECK-LABEL: func.func @k
// CHECK-NOT:   wait_group -
// CHECK:       pipeline.async_copy<16x16> %A -> %T
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NOT:   wait_group -
func.func @k(%A: memref<160x16xf16>, %E: memref<160x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<16x16xf16, "shared">
  %F = memref.alloc() : memref<16x16xf32, "fragment">
  %T = memref.alloc() : memref<16x16xf16, "shared">
  tile.fill<16x16> %zero -> %F : f32 -> memref<16x16xf32, "fragment">
  tile.copy<16x16> %A -> %T : memref<160x16xf16> -> memref<16x16xf16, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 4 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<160x16xf16> -> memref<16x16xf16, "shared">
    tile.copy<16x16> %F -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<160x16xf32>
  }
  func.return
}
