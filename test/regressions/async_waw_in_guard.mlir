// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Fuzz regression (fuzz-findings2, seed 500112, reduced): two cp.async copies into
// the same bytes in one stage of a loop with a dynamic trip count.  The prologue's
// stage guard held both copies, so async-copy committed them as one group after the
// guard and thread-sync rejected the second copy ("touches bytes an async copy writes
// before that copy's group is committed on every path").  A guard's run of copies now
// ends where an unguarded run does: the guard is split between the copies, the first
// copy's group is committed between the halves and a wait lands it before the second.

// CHECK-LABEL: func.func @k
// CHECK:       scf.if %[[GO:.*]] {
// CHECK:         pipeline.async_copy<32x16> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %[[GO]] {
// CHECK:         pipeline.wait_group 0
// CHECK-NEXT:    pipeline.async_copy<32x16> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %[[GO]] {
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    tile.mul<32x16> %S, %S
// CHECK:       scf.for
// CHECK:         pipeline.async_copy<32x16> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:    pipeline.commit_group
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    pipeline.async_copy<32x16> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:    pipeline.commit_group
func.func @k(%A: memref<256x16xf32>, %B: memref<256x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %S = memref.alloc() : memref<32x16xf32, "shared">
  %T = memref.alloc() : memref<32x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 1] order = [0, 1, 2, 3] {
    %o = arith.muli %k, %c32 : index
    tile.copy<32x16> %A[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.copy<32x16> %A[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.mul<32x16> %S, %S -> %T : memref<32x16xf32, "shared">, memref<32x16xf32, "shared"> -> memref<32x16xf32, "shared">
    tile.copy<32x16> %T -> %B[%o, %c0] : memref<32x16xf32, "shared"> -> memref<256x16xf32>
  }
  func.return
}
