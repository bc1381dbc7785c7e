// Fuzz 2026-12 (tma_order_tma_bars): valid input (num_stages only).  The validator
// inside inject-software-pipeline rejected tma-copy's own bulk copies ("write-after-write
// on %tma_bars"): their mbarrier arrivals were modelled as ordinary writes.  Arrivals on
// one phase commute, so they never depend on each other.

// RUN: tile-opt %s -p pipeline-validate,pipeline-planning,tma-copy | filecheck %s
// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: tile-run %t --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// %Sx feeds the shared -> fragment copy and becomes a bulk copy; %Sbt is never read
// and stays a tile.copy.
// CHECK-LABEL: func.func @kern
// CHECK:         pipeline.for
// CHECK:           tile.copy<32x16> %A[%rt4, %c0] -> %Sbt {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// CHECK:           pipeline.bulk_copy<32x32> %X[%row5, %c0] -> %Sx, %tma_bars[%[[G:.*]]] {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:      pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G]]], bytes = 4096 {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:      pipeline.mbarrier_wait_parity %tma_bars[%[[G]]], %{{.*}} {pipeline.stage = 3 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:      tile.copy<32x32> %Sx -> %T0 {pipeline.stage = 3 : i64, pipeline.order = 4 : i64}
func.func @kern(%A: memref<320x16xf16>, %B: memref<160x32xf16>, %X: memref<320x32xf32>, %C: memref<32x32xf32>, %D: memref<32x32xf32>, %E: memref<320x32xf32>, %H: memref<32x32xf16>, %Vout: memref<32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %Sbt = memref.alloc() : memref<32x16xf16, "shared">
  %Sx = memref.alloc() : memref<32x32xf32, "shared">
  %T0 = memref.alloc() : memref<32x32xf32, "fragment">
  pipeline.for %k0 = %c1 to %n step %c1 num_stages = 4 {
    %rt4 = arith.muli %k0, %c0 : index
    tile.copy<32x16> %A[%rt4, %c0] -> %Sbt : memref<320x16xf16> -> memref<32x16xf16, "shared">
    %row5 = arith.muli %k0, %c32 : index
    tile.copy<32x32> %X[%row5, %c0] -> %Sx : memref<320x32xf32> -> memref<32x32xf32, "shared">
    tile.copy<32x32> %Sx -> %T0 : memref<32x32xf32, "shared"> -> memref<32x32xf32, "fragment">
  }
  func.return
}
