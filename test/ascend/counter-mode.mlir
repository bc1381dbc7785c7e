// RUN: tile-opt %s -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer | filecheck %s
// RUN: tile-opt %s -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.mlir
// RUN: %python -m tilepipe.drivers.ascendc %t.mlir --syntax-check | filecheck %s --check-prefix=CPP

// The two index modes on a loop whose epochs are guarded (the branch runs in
// iterations i mod 3 != 1).  Counter mode (§3.5): a scalar cell counts the executed
// epochs; it is zeroed before the loop and read and incremented at the top of the
// branch, and both the slot and the ring ids are `epoch mod 2 (+ base)`.  The rings are
// primed before the loop and drained after it as in iteration mode: their sets and
// waits sit in the branch and are skipped together.
// CHECK-LABEL: func.func @counter
// CHECK:      %y_ub = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "counter"} : memref<2x256xf16, "ub">
// CHECK:      %[[CELL:.*]] = memref.alloca() : memref<index>
// CHECK-NEXT: memref.store %c0, %[[CELL]][] : memref<index>
// CHECK:      ascend.set_flag[V, MTE2] %c0 {ascend.sync_point = "y_ub:war"}
// CHECK-NEXT: ascend.set_flag[V, MTE2] %c1 {ascend.sync_point = "y_ub:war"}
// CHECK:      pipeline.for
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     %[[EPOCH:.*]] = memref.load %[[CELL]][] {ascend.epoch_counter} : memref<index>
// CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[EPOCH]], %c1 : index
// CHECK-NEXT:     memref.store %[[NEXT]], %[[CELL]][] : memref<index>
// CHECK-NEXT:     %[[SLOT:.*]] = arith.remsi %[[EPOCH]], %c2 : index
// CHECK-NEXT:     %[[ID:.*]] = arith.remsi %[[EPOCH]], %c2 : index
// CHECK-NEXT:     ascend.wait_flag[V, MTE2] %[[ID]] {ascend.sync_point = "y_ub:war"}
// CHECK-NEXT:     tile.copy<256> %y[%{{.*}}] -> %y_ub[%[[SLOT]], %c0]
// CHECK:          tile.exp<256> %y_ub[%[[SLOT]], %c0] -> %z_ub[%[[SLOT]], %c0]
// CHECK-NEXT:     ascend.set_flag[V, MTE3] %[[ID]] {ascend.sync_point = "z_ub:raw"}
// CHECK-NEXT:     ascend.set_flag[V, MTE2] %[[ID]] {ascend.sync_point = "y_ub:war"}
// CHECK:          ascend.set_flag[MTE3, V] %[[ID]] {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT:   }
// CHECK-NEXT: } {ascend.index_mode = "counter"}
// CHECK:      ascend.wait_flag[V, MTE2] %c0 {ascend.sync_point = "y_ub:war"}
// CHECK-NEXT: ascend.wait_flag[V, MTE2] %c1 {ascend.sync_point = "y_ub:war"}

// CPP-LABEL: void counter(GM_ADDR y, GM_ADDR z) {
// CPP:         int64_t epochs;
// CPP-NEXT:    epochs = 0;
// CPP:         for (int64_t i = 0; i < 16; i += 1) {
// CPP:           if (taken) {
// CPP-NEXT:        int64_t epoch = epochs;
// CPP-NEXT:        int64_t [[NEXT:.*]] = epoch + 1;
// CPP-NEXT:        epochs = [[NEXT]];
// CPP-NEXT:        int64_t [[SLOT:.*]] = epoch % 2;
// CPP-NEXT:        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>([[SLOT]]);
// CPP-NEXT:        AscendC::DataCopy(y_ub[[[SLOT]] * 256], y_gm[off], 256);
func.func @counter(%y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.exp<256> %y_ub -> %z_ub : memref<256xf16, "ub"> -> memref<256xf16, "ub">
      tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
    }
  } {ascend.index_mode = "counter"}
  func.return
}

// Iteration mode: the same kernel, the slot and the ids follow `i mod 2`, also across
// the skipped iterations (no counter).
// CHECK-LABEL: func.func @iteration
// CHECK-NOT:  memref.alloca
// CHECK:      pipeline.for %[[I:.*]] = %c0 to
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remsi %[[I]], %c2 : index
// CHECK-NEXT:   %[[ID:.*]] = arith.remsi %[[I]], %c2 : index
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     ascend.wait_flag[V, MTE2] %[[ID]] {ascend.sync_point = "y_ub:war"}
// CHECK-NEXT:     tile.copy<256> %y[%{{.*}}] -> %y_ub[%[[SLOT]], %c0]

// CPP-LABEL: void iteration(GM_ADDR y, GM_ADDR z) {
// CPP-NOT:     epochs
// CPP:         for (int64_t i = 0; i < 16; i += 1) {
// CPP-NEXT:      int64_t [[SLOT:.*]] = i % 2;
// CPP:           if (taken) {
// CPP-NEXT:        AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>([[SLOT]]);
func.func @iteration(%y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.exp<256> %y_ub -> %z_ub : memref<256xf16, "ub"> -> memref<256xf16, "ub">
      tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
    }
  } {ascend.index_mode = "iteration"}
  func.return
}
