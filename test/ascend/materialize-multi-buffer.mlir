// RUN: tile-opt %s --split-input-file -p ascend-materialize-multi-buffer | filecheck %s

// (storage, epoch) -> slot: a leading version dimension, and the epoch's slot
// `iteration mod versions` prepended to every access in the owner loop.
// CHECK-LABEL: func.func @ring
// CHECK:      %u = memref.alloc() {ascend.versions = 3 : i64, ascend.index_mode = "iteration"} : memref<3x64xf16, "ub">
// CHECK:      pipeline.for %[[I:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:.*]] num_stages = 3 {
// CHECK-NEXT:   %[[D:.*]] = arith.subi %[[I]], %[[LB]] : index
// CHECK-NEXT:   %[[N:.*]] = arith.divsi %[[D]], %[[STEP]] : index
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remsi %[[N]], %{{.*}} : index
// CHECK:        tile.copy<64> %x[%{{.*}}] -> %u[%[[SLOT]], %c0] : memref<1024xf16> -> memref<3x64xf16, "ub">
// CHECK-NEXT:   tile.exp<64> %u[%[[SLOT]], %c0] -> %u[%[[SLOT]], %c0]
// CHECK-NEXT:   tile.copy<64> %u[%[[SLOT]], %c0] -> %x[%{{.*}}]
func.func @ring(%x: memref<1024xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() {ascend.versions = 3 : i64, ascend.index_mode = "iteration"} : memref<64xf16, "ub">
  pipeline.for %i = %c2 to %c32 step %c2 num_stages = 3 {
    %off = arith.muli %i, %c64 : index
    tile.copy<64> %x[%off] -> %u : memref<1024xf16> -> memref<64xf16, "ub">
    tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %x[%off] : memref<64xf16, "ub"> -> memref<1024xf16>
  }
  func.return
}

// -----

// One version: nothing changes.
// CHECK-LABEL: func.func @single
// CHECK: %u = memref.alloc() {ascend.versions = 1 : i64} : memref<64xf16, "ub">
// CHECK: tile.copy<64> %x -> %u :
func.func @single(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = memref.alloc() {ascend.versions = 1 : i64} : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c1 step %c1 num_stages = 2 {
    tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
  }
  func.return
}

// -----

// Counter mode on a guarded epoch: the slot is `executed epochs mod versions`, from a
// scalar cell zeroed before the loop and read and incremented at the top of the branch.
// CHECK-LABEL: func.func @counter
// CHECK:      %u = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "counter"} : memref<2x64xf16, "ub">
// CHECK:      %[[CELL:.*]] = memref.alloca() : memref<index>
// CHECK-NEXT: memref.store %c0, %[[CELL]][] : memref<index>
// CHECK:      pipeline.for
// CHECK-NEXT:   scf.if %p {
// CHECK-NEXT:     %[[EPOCH:.*]] = memref.load %[[CELL]][] {ascend.epoch_counter} : memref<index>
// CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[EPOCH]], %c1 : index
// CHECK-NEXT:     memref.store %[[NEXT]], %[[CELL]][] : memref<index>
// CHECK-NEXT:     %[[SLOT:.*]] = arith.remsi %[[EPOCH]], %c2 : index
// CHECK-NEXT:     tile.copy<64> %x -> %u[%[[SLOT]], %c0]
// CHECK-NEXT:     tile.copy<64> %u[%[[SLOT]], %c0] -> %x
func.func @counter(%x: memref<64xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %u = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "counter"} : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    scf.if %p {
      tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
      tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
    }
  }
  func.return
}
