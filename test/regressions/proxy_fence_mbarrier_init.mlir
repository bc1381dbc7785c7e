// RUN: tile-run %s --check-races --compare-with %S/Inputs/proxy_fence_reference.mlir --quiet
// RUN: sed "/^  pipeline.fence_proxy_async$/d" %s > %t.mlir
// (Line numbers below are those of %t.mlir: the fence line is gone.)
// RUN: not tile-run %t.mlir --check-races --quiet 2>&1 | filecheck %s

// The async proxy: mbarrier.init is a generic-proxy write and a bulk copy's
// complete_tx reaches the mbarrier through the async proxy; PTX orders the two only
// through fence.proxy.async by the initializing thread.  Without the fence (tma-copy
// emitted none before) the tile-level detector reports it, even though the barrier
// orders the init before thread 0 issues the copy.

// CHECK:      race (RAW) on %bars[0] in block (0):
// CHECK-NEXT:   first:  write by thread 0 in 'pipeline.mbarrier_init' at {{.*}}.mlir:23:3
// CHECK-NEXT:   second: read by thread 0 in 'pipeline.bulk_copy' at {{.*}}.mlir:25:3
// CHECK-NEXT:   a generic-proxy access, then an async-proxy one: no fence.proxy.async of the first's thread orders them
// CHECK:      tile-run: 1 race(s) found

func.func @init_then_bulk_copy(%A: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  pipeline.bulk_copy<64x64> %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<1xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}
