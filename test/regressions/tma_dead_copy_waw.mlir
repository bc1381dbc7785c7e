// Fuzz 2026-12 (tma_dead_copy_waw): a pipelined loop copies a tile into shared memory
// that nothing in the loop reads (the epilogue reads the last one).  As a bulk copy no
// mbarrier wait ordered iteration k's copy before iteration k+1's (WAW) or the epilogue
// read.  A copy that no wait of its own iteration can order stays a tile.copy, which
// async-copy and thread-sync handle as on sm_80.

// RUN: tile-opt %s -p pipeline-planning,tma-copy | filecheck %s
// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: tile-run %t --check-races --compare-with %s --quiet

// CHECK-LABEL: func.func @k
// CHECK-NOT:     pipeline.bulk_copy
// CHECK-NOT:     pipeline.mbarrier_init
// CHECK:         pipeline.for
// CHECK:           tile.copy<16x16> %A[%r, %c0] -> %S {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    }
func.func @k(%A: memref<64x16xf32>, %E: memref<16x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<64x16xf32> -> memref<16x16xf32, "shared">
  }
  tile.copy<16x16> %S -> %E : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  func.return
}
