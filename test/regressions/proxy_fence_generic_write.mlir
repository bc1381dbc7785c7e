// RUN: tile-opt %s -p "thread-sync{report=text}" -o %t.mlir 2>&1 | filecheck %s --check-prefix=REPORT
// RUN: filecheck %s --input-file %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %S/Inputs/proxy_fence_generic_reference.mlir --quiet
// RUN: sed "/pipeline.fence_proxy_async/d" %t.mlir > %t.nofence.mlir
// RUN: not tile-run %t.nofence.mlir --check-races --quiet 2>&1 | filecheck %s --check-prefix=RACE
// RUN: tile-opt %t.mlir -p thread-sync | filecheck %s --check-prefix=AGAIN

// The async proxy: %s is zero-filled and read back by every thread (generic
// proxy), then overwritten by a bulk copy (async proxy).  A barrier alone does not
// order the two proxies: thread-sync puts fence.proxy.async before the barrier (every
// thread fences its own accesses, the barrier orders the fences before thread 0
// issues the copy) and reports it; without the fence the detector reports the WAR.
// Running thread-sync again adds nothing.

// REPORT:      fence_proxy_async before 'pipeline.bulk_copy' at {{.*}}.mlir:43:3 (prologue/epilogue)
// REPORT-NEXT:   covers WAW tile.fill (line 41) -> pipeline.bulk_copy (line 43) on %s
// REPORT-NEXT:   covers WAR tile.copy (line 42) -> pipeline.bulk_copy (line 43) on %s
// REPORT-NEXT: barrier before 'pipeline.bulk_copy'

// CHECK-LABEL: func.func @generic_then_bulk
// CHECK:         tile.copy<64x64> %s -> %O
// CHECK-NEXT:    pipeline.fence_proxy_async
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    pipeline.bulk_copy<64x64> %A -> %s

// RACE:      race (WAR) on %s
// RACE:        a generic-proxy access, then an async-proxy one: no fence.proxy.async of the first's thread orders them

// AGAIN-COUNT-2: pipeline.fence_proxy_async
// AGAIN-NOT:     pipeline.fence_proxy_async

func.func @generic_then_bulk(%A: memref<64x64xf16>, %O: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  tile.fill<64x64> %zero -> %s : f16 -> memref<64x64xf16, "shared">
  tile.copy<64x64> %s -> %O : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  pipeline.bulk_copy<64x64> %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<1xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}
