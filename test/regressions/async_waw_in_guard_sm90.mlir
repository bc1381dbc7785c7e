// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Neighbour of async_waw_in_guard.mlir on sm_90: %U's copy becomes a bulk copy, the
// two 8-byte-row copies into %S stay cp.async (rows below TMA's 16 bytes) and write
// the same bytes.  The stage guard is split between them as on sm_80.

// CHECK-LABEL: func.func @k
// CHECK:       scf.if %[[GO:.*]] {
// CHECK:         pipeline.bulk_copy<32x16> %A[%{{.*}}, %c0] -> %U
// CHECK:         pipeline.async_copy<32x2> %A[%{{.*}}, %c0] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %[[GO]] {
// CHECK:         pipeline.wait_group 0
// CHECK-NEXT:    pipeline.async_copy<32x2> %A[%{{.*}}, %c2] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
func.func @k(%A: memref<256x16xf32>, %B: memref<256x16xf32>, %C: memref<256x2xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %U = memref.alloc() : memref<32x16xf32, "shared">
  %S = memref.alloc() : memref<32x2xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 1, 1] order = [0, 1, 2, 3, 4] {
    %o = arith.muli %k, %c32 : index
    tile.copy<32x16> %A[%o, %c0] -> %U : memref<256x16xf32> -> memref<32x16xf32, "shared">
    tile.copy<32x2> %A[%o, %c0] -> %S : memref<256x16xf32> -> memref<32x2xf32, "shared">
    tile.copy<32x2> %A[%o, %c2] -> %S : memref<256x16xf32> -> memref<32x2xf32, "shared">
    tile.copy<32x16> %U -> %B[%o, %c0] : memref<32x16xf32, "shared"> -> memref<256x16xf32>
    tile.copy<32x2> %S -> %C[%o, %c0] : memref<32x2xf32, "shared"> -> memref<256x2xf32>
  }
  func.return
}
