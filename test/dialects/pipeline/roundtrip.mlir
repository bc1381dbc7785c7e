// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @num_stages
func.func @num_stages(%A: memref<1024x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // CHECK: pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
  // CHECK-NEXT:   %m = arith.muli %k, %c64 : index
  // CHECK-NEXT:   tile.copy<64x64> %A[%m, %c0] -> %s
  // CHECK-NEXT: }
  pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
    %m = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%m, %c0] -> %s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

// TileLang-style explicit arrays; pure scalar ops take no slot.
// CHECK-LABEL: func.func @explicit_arrays
func.func @explicit_arrays(%A: memref<1024x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %f = memref.alloc() : memref<64x64xf16, "fragment">
  // CHECK: pipeline.for %k = %c0 to %c16 step %c1 stage = [0, 1] order = [0, 1] {
  pipeline.for %k = %c0 to %c16 step %c1 stage = [0, 1] order = [0, 1] {
    %m = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%m, %c0] -> %s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %s -> %f : memref<64x64xf16, "shared"> -> memref<64x64xf16, "fragment">
  }
  func.return
}

// -----

// The canonical form: a recorded depth and per-statement stage/order.
// CHECK-LABEL: func.func @canonical
func.func @canonical(%A: memref<1024x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %f = memref.alloc() : memref<64x64xf16, "fragment">
  // CHECK: pipeline.for %k = %c0 to %c16 step %c1 depth = 2 {
  // CHECK-NEXT: tile.copy<64x64> %A[%k, %c0] -> %s {pipeline.order = 0 : i64, pipeline.stage = 0 : i64}
  // CHECK-NEXT: tile.copy<64x64> %s -> %f {pipeline.order = 1 : i64, pipeline.stage = 1 : i64}
  pipeline.for %k = %c0 to %c16 step %c1 depth = 2 {
    tile.copy<64x64> %A[%k, %c0] -> %s {pipeline.order = 0 : i64, pipeline.stage = 0 : i64} : memref<1024x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %s -> %f {pipeline.order = 1 : i64, pipeline.stage = 1 : i64} : memref<64x64xf16, "shared"> -> memref<64x64xf16, "fragment">
  }
  func.return
}

// -----

// The warp-specialized form (sm_90a): a producer region and a consumer region, the
// roles' register budgets as properties.
// CHECK-LABEL: func.func @warp_specialized
func.func @warp_specialized(%A: memref<256x64xf16>, %bars: memref<2xi64, "shared">)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
  // CHECK-NEXT:   scf.for
  // CHECK:        pipeline.mbarrier_arrive_expect_tx %bars[%{{.*}}], bytes = 16
  // CHECK:      } consumer {
  // CHECK-NEXT:   scf.for
  // CHECK-NEXT:     pipeline.mbarrier_wait_parity %bars[%c0], %c0
  // CHECK-NEXT:     pipeline.mbarrier_arrive %bars[%c1], threads = 128
  // CHECK-NEXT:   }
  // CHECK-NEXT: }
  pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
    scf.for %i = %c0 to %c4 step %c1 {
      pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16 : memref<2xi64, "shared">
    }
  } consumer {
    scf.for %i = %c0 to %c4 step %c1 {
      pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
      pipeline.mbarrier_arrive %bars[%c1], threads = 128 : memref<2xi64, "shared">
    }
  }
  func.return
}
