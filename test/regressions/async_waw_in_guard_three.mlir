// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Neighbour of async_waw_in_guard.mlir: three copies into one buffer in one stage.
// The prologue guard is split before each later copy; each copy's group is committed
// and waited for before the next copy into the same bytes is issued.

// CHECK-LABEL: func.func @k
// CHECK:       scf.if %[[GO:.*]] {
// CHECK:         pipeline.async_copy<32x16> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %[[GO]] {
// CHECK:         pipeline.wait_group 0
// CHECK-NEXT:    pipeline.async_copy<32x16> %C[%{{.*}}, %c0] -> %S
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
func.func @k(%A: memref<256x16xf32>, %B: memref<256x16xf32>, %C: memref<256x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %S = memref.alloc() : memref<32x16xf32, "shared">
  %T = memref.alloc() : memref<32x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 0, 1] order = [0, 1, 2, 3, 4] {
    %o = arith.muli %k, %c32 : index
    tile.copy<32x16> %A[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.copy<32x16> %C[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.copy<32x16> %A[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.mul<32x16> %S, %S -> %T : memref<32x16xf32, "shared">, memref<32x16xf32, "shared"> -> memref<32x16xf32, "shared">
    tile.copy<32x16> %T -> %B[%o, %c0] : memref<32x16xf32, "shared"> -> memref<256x16xf32>
  }
  func.return
}
