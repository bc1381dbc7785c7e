// Fuzz 2026-12 (tma_deadlock): a bulk copy, its consumer, then a second bulk copy in
// the same stage.  tma-copy armed one arrive_expect_tx for both copies after the second
// one, behind the consumer's wait: the wait could never complete (deadlock).  Now each
// wait has its own group armed before it, and the second copy, which nothing in its
// iteration reads, stays a tile.copy (cp.async, ordered by thread-sync).
// (%A and %E have 96 rows here so that n = 5 stays in bounds.)

// RUN: tile-opt %s -p pipeline-planning,tma-copy | filecheck %s
// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: tile-run %t --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// CHECK-LABEL: func.func @k
// CHECK:         %tma_bars = memref.alloc() : memref<1xi64, "shared">
// CHECK:         pipeline.for
// CHECK-NEXT:      %r = arith.muli
// CHECK-NEXT:      pipeline.bulk_copy<16x16> %A[%r, %c0] -> %S0, %tma_bars[%[[G:.*]]] {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:      pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G]]], bytes = 1024 {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:      pipeline.mbarrier_wait_parity %tma_bars[%[[G]]], %{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:      tile.copy<16x16> %S0 -> %E[%r, %c0] {pipeline.stage = 0 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:      tile.copy<16x16> %A[%r, %c0] -> %S1 {pipeline.stage = 0 : i64, pipeline.order = 4 : i64}
// CHECK-NEXT:    }
func.func @k(%A: memref<96x16xf32>, %E: memref<96x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S0 = memref.alloc() : memref<16x16xf32, "shared">
  %S1 = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0] order = [0, 1, 2] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S0 : memref<96x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S0 -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<96x16xf32>
    tile.copy<16x16> %A[%r, %c0] -> %S1 : memref<96x16xf32> -> memref<16x16xf32, "shared">
  }
  func.return
}
