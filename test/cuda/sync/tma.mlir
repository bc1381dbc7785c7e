// sm_90: pipelined global -> shared copies become bulk (TMA) copies completing on an
// mbarrier; consumers wait for the phase (so no block barrier for the RAW), and
// thread-sync adds the one barrier per iteration the WAR on the reused slot needs,
// after a proxy fence (the gemm reads generically what the next bulk copy overwrites
// through the async proxy).  tma-copy fences the mbarrier inits the same way.

// RUN: sed 's/"sm_80"/"sm_90"/' %examples/gemm.mlir | tile-opt - -p pipeline-planning,tma-copy | filecheck %s --check-prefix=PLANNED
// RUN: sed 's/"sm_80"/"sm_90"/' %examples/gemm.mlir | tile-opt - -p pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync | filecheck %s
// RUN: tile-opt %s --split-input-file --verify-diagnostics -p thread-sync

// PLANNED:      %tma_bars = memref.alloc() : memref<1xi64, "shared">
// PLANNED-NEXT: %[[G:.*]] = arith.constant 0 : index
// PLANNED-NEXT: pipeline.mbarrier_init %tma_bars[%[[G]]], arrivals = 1
// PLANNED-NEXT: pipeline.fence_proxy_async
// PLANNED-NEXT: pipeline.barrier
// PLANNED:      pipeline.for %ko = %c0 to %c16 step %c1 depth = 3 {
// PLANNED:        pipeline.bulk_copy<128x64> %A[%m0, %k0] -> %A_s, %tma_bars[%[[G]]] {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// PLANNED-NEXT:   pipeline.bulk_copy<64x128> %B[%k0, %n0] -> %B_s, %tma_bars[%[[G]]] {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// PLANNED-NEXT:   pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G]]], bytes = 32768 {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// PLANNED-NEXT:   pipeline.mbarrier_wait_parity %tma_bars[%[[G]]], %{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 3 : i64}
// PLANNED-NEXT:   tile.gemm<128x128x64> %A_s, %B_s -> %C_f {pipeline.stage = 2 : i64, pipeline.order = 4 : i64}

// CHECK-LABEL: func.func @gemm
// CHECK:         pipeline.mbarrier_init %tma_bars[%c0], arrivals = 1
// CHECK:         pipeline.mbarrier_init %tma_bars[%c1], arrivals = 1
// CHECK:         pipeline.mbarrier_init %tma_bars[%c2], arrivals = 1
// CHECK-NEXT:    pipeline.fence_proxy_async
// CHECK-NEXT:    pipeline.barrier
// CHECK:         scf.for
// CHECK:           pipeline.bulk_copy<128x64>
// CHECK:           pipeline.mbarrier_wait_parity
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:      pipeline.fence_proxy_async
// CHECK-NEXT:      pipeline.barrier
// CHECK-NEXT:    }
// CHECK-NOT:     pipeline.barrier
// CHECK-NOT:     pipeline.wait_group
// CHECK:         func.return

func.func @bulk_without_wait(%A: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  pipeline.bulk_copy<64x64> %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<1xi64, "shared">
  // expected-error @+1 {{touches bytes of a bulk copy that no mbarrier wait lands on every path}}
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}
