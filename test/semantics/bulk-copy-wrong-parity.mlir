// RUN: not tile-run %s --index-arg n=3 --check-races --quiet 2>&1 | filecheck %s
// Inputs/bulk_copy.mlir waiting on the wrong parity (always 1): the first wait on each
// slot returns at once, before the bulk copy landed (RAW), and the next copy into the
// slot is issued while the previous one may be in flight (WAW).

func.func @kernel(%A: memref<1088x32xf16>, %B: memref<32x32xf16>, %C: memref<64x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<2x64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  tile.copy<32x32> %B -> %B_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  pipeline.fence_proxy_async
  pipeline.barrier
  %has_first = arith.cmpi sgt, %n, %c0 : index
  scf.if %has_first {
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 4096 : memref<2xi64, "shared">
    pipeline.bulk_copy<64x32> %A[%c0, %c0] -> %A_s[%c0, %c0, %c0], %bars[%c0] : memref<1088x32xf16> -> memref<2x64x32xf16, "shared">, memref<2xi64, "shared">
  }
  scf.for %k = %c0 to %n step %c1 {
    %next = arith.addi %k, %c1 : index
    %has_next = arith.cmpi slt, %next, %n : index
    scf.if %has_next {
      %next_slot = arith.remui %next, %c2 : index
      %next_row = arith.muli %next, %c64 : index
      pipeline.mbarrier_arrive_expect_tx %bars[%next_slot], bytes = 4096 : memref<2xi64, "shared">
      pipeline.bulk_copy<64x32> %A[%next_row, %c0] -> %A_s[%next_slot, %c0, %c0], %bars[%next_slot] : memref<1088x32xf16> -> memref<2x64x32xf16, "shared">, memref<2xi64, "shared">
    }
    %slot = arith.remui %k, %c2 : index
    %use = arith.divui %k, %c2 : index
    %parity = arith.constant 1 : index
    pipeline.mbarrier_wait_parity %bars[%slot], %parity : memref<2xi64, "shared">
    tile.gemm<64x32x32> %A_s[%slot, %c0, %c0], %B_s -> %C_f : memref<2x64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
    pipeline.fence_proxy_async
    pipeline.barrier
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

// CHECK:      race (RAW) on %A_s[0, 0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.bulk_copy' at {{.*}}bulk-copy-wrong-parity.mlir:26:5
// CHECK-NEXT:   second: read by thread 0 in 'tile.gemm' at {{.*}}bulk-copy-wrong-parity.mlir:41:5 (k = 0)
// CHECK:      race (WAW) on %A_s[0, 0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.bulk_copy' at {{.*}}bulk-copy-wrong-parity.mlir:26:5
// CHECK-NEXT:   second: write by the async copy engine (thread 0) in 'pipeline.bulk_copy' at {{.*}}bulk-copy-wrong-parity.mlir:35:7 (k = 1)
// CHECK:      tile-run: 4 race(s) found
