// RUN: tile-opt %s -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s

// Guarded epochs (index mode iteration).  A sync point whose ends share a branch stays
// inside it: set and wait are skipped together, so the ring stays balanced.  A point
// with an end outside the branch moves to the scf.if's boundary and runs in every
// iteration.  Points whose ends are in the two branches of one scf.if never both run
// in an iteration and need no same-iteration sync.
// Here x_ub's RAW into the add is implied by y_ub's (same iteration, the branch ran),
// but the one into the exp is not: it waits before the scf.if.
// CHECK-LABEL: func.func @guarded
// CHECK:      tile.copy<256> %x
// CHECK-NEXT: ascend.set_flag[MTE2, V] %[[X:[^ ]*]] {ascend.sync_point = "x_ub:raw"}
// CHECK-NEXT: ascend.wait_flag[MTE3, V] %[[SLOT:[^ ]*]] {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: ascend.wait_flag[MTE2, V] %[[X]] {ascend.sync_point = "x_ub:raw"}
// CHECK-NEXT: scf.if
// CHECK-NEXT:   tile.copy<256> %y
// CHECK-NEXT:   ascend.set_flag[MTE2, V] %{{.*}} {ascend.sync_point = "y_ub:raw"}
// CHECK-NEXT:   ascend.wait_flag[MTE2, V] %{{.*}} {ascend.sync_point = "y_ub:raw"}
// CHECK-NEXT:   tile.add<256>
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.exp<256>
// CHECK-NEXT: }
// CHECK-NEXT: ascend.set_flag[V, MTE3] %[[SLOT]] {ascend.sync_point = "z_ub:raw"}
// CHECK-NEXT: ascend.set_flag[V, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:war"}
func.func @guarded(%x: memref<4096xf16>, %y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    } else {
      tile.exp<256> %x_ub -> %z_ub : memref<256xf16, "ub"> -> memref<256xf16, "ub">
    }
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
  }
  func.return
}
