// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet

// Fuzz regression (seed 712, sm_90): the cp.async into %s0, which nothing reads, shares
// its arena bytes with %s3, which a bulk copy (async proxy) then overwrites.  The
// cp.async's write is performed for its thread only when wait_group lands it, so the
// proxy fence that orders it before the bulk copy must follow that wait; thread-sync
// took tma-copy's fence (after the mbarrier init, before the wait) as enough, and the
// tile-level detector agreed.  Both now require a fence after the landing wait.

// CHECK-LABEL: func.func @fuzz
// CHECK:       pipeline.async_copy<8> %in1
// CHECK:       pipeline.wait_group 0
// CHECK-NEXT:  pipeline.fence_proxy_async
// CHECK-NEXT:  pipeline.barrier
// CHECK:       pipeline.bulk_copy<8>
func.func @fuzz(%in1: memref<8xbf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s0 = memref.alloc() : memref<8xbf16, "shared">
  %s2 = memref.alloc() : memref<8xbf16, "fragment">
  %s3 = memref.alloc() : memref<8xbf16, "shared">
  %s4 = memref.alloc() : memref<8xbf16, "local">
  %slot0 = arith.addi %c0, %c0 : index
  %ot_m = arith.muli %slot0, %c8 : index
  tile.copy<8> %in1[%ot_m] -> %s0 : memref<8xbf16> -> memref<8xbf16, "shared">
  pipeline.for %k0 = %c0 to %c1 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c8 : index
    tile.copy<8> %in1[%o0_m] -> %s2 : memref<8xbf16> -> memref<8xbf16, "fragment">
    tile.copy<8> %in1[%o0_m] -> %s3 : memref<8xbf16> -> memref<8xbf16, "shared">
    tile.div<8> %s2, %s3 -> %s4 : memref<8xbf16, "fragment">, memref<8xbf16, "shared"> -> memref<8xbf16, "local">
  }
  func.return
}
