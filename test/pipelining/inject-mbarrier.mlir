// RUN: tile-opt %s --split-input-file -p pipeline-planning,inject-software-pipeline | filecheck %s

// A TMA-style loop arriving on one mbarrier, depth 2: the array grows to 2 slots,
// its initialization is replicated per slot, iteration k uses slot
// ((k - lb) / step) mod 2 and waits for parity (((k - lb) / step) / 2 + p0) mod 2.

// CHECK-LABEL: func.func @bulk_copy_ring
// CHECK:       %[[BARS:.*]] = memref.alloc() : memref<2xi64, "shared">
// CHECK-NEXT:  pipeline.mbarrier_init %[[BARS]][%c0], arrivals = 1
// CHECK-NEXT:  pipeline.mbarrier_init %[[BARS]][%c1], arrivals = 1
// CHECK:       pipeline.bulk_copy<64x64> %A[%c0, %c0] -> %S[%c0, %c0, %c0], %[[BARS]][%c0]
// CHECK-NEXT:  pipeline.mbarrier_arrive_expect_tx %[[BARS]][%c0], bytes = 16384
// CHECK:       scf.for %[[K:.*]] = %c1 to %c8 step %c1 {
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remsi %[[K]], %c2
// CHECK-NEXT:    pipeline.bulk_copy<64x64> %A[%[[K]], %c0] -> %S[%[[SLOT]], %c0, %c0], %[[BARS]][%[[SLOT]]]
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %[[BARS]][%[[SLOT]]], bytes = 16384
// CHECK-NEXT:    %[[PREV:.*]] = arith.subi %[[K]], %c1
// CHECK-NEXT:    %[[PSLOT:.*]] = arith.remsi %[[PREV]], %c2
// CHECK-NEXT:    %[[ROUND:.*]] = arith.divsi %[[PREV]], %c2
// CHECK-NEXT:    %[[PARITY:.*]] = arith.remsi %[[ROUND]], %c2
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %[[BARS]][%[[PSLOT]]], %[[PARITY]]
// CHECK-NEXT:    tile.copy<64x64> %S[%[[PSLOT]], %c0, %c0] -> %C[%[[PREV]], %c0]
// CHECK-NEXT:  }
// The last iteration (k = 7): slot 1, round 3, parity 1.
// CHECK:       pipeline.mbarrier_wait_parity %[[BARS]][%c1], %c1
func.func @bulk_copy_ring(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 stage = [0, 0, 1, 1] order = [0, 1, 2, 3] {
    pipeline.bulk_copy<64x64> %A[%k, %c0] -> %S, %bars[%c0] : memref<256x64xf32> -> memref<64x64xf32, "shared">, memref<1xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
    pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// The user's initial parity is kept as an offset: waiting for parity 1 at k = lb
// flips every computed parity.

// CHECK-LABEL: func.func @initial_parity
// CHECK:       scf.for
// CHECK:         %[[ROUND:.*]] = arith.divsi %{{.*}}, %c2
// CHECK-NEXT:    %[[CYCLE:.*]] = arith.remsi %[[ROUND]], %c2
// CHECK-NEXT:    %[[SHIFTED:.*]] = arith.addi %[[CYCLE]], %c1
// CHECK-NEXT:    %[[PARITY:.*]] = arith.remsi %[[SHIFTED]], %c2
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %{{.*}}, %[[PARITY]]
func.func @initial_parity(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 stage = [0, 0, 1, 1] order = [0, 1, 2, 3] {
    pipeline.bulk_copy<64x64> %A[%k, %c0] -> %S, %bars[%c0] : memref<256x64xf32> -> memref<64x64xf32, "shared">, memref<1xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
    pipeline.mbarrier_wait_parity %bars[%c0], %c1 : memref<1xi64, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}
