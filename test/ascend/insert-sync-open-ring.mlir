// RUN: tile-opt %s -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s

// A flag whose set could come before the wait that consumes its id's previous set is
// replaced by pipe_barrier[ALL] before its consumer.  Here the UB tile is zeroed in a
// branch only the ragged last tile takes (as ascend-zero-boundary-tiles once did; fuzz
// seeds 300032, 300113, 300191 deadlocked the pipe simulator).  The WAR ring from the
// store of a slot into the next fill of that slot (MTE3 -> V) is set every iteration,
// but only the branch's fill -> copy flag orders the V pipe after the MTE2 pipe: in
// iterations that skip it, the vector pipe can run ahead and set the id twice.  Both
// rings of the fill become fences; the fill -> copy flag inside the branch stays (its
// ids are closed through the fences).
// CHECK-LABEL: func.func @guarded_fill
// CHECK-NOT:   ascend.set_flag[MTE3, V]
// CHECK-NOT:   ascend.set_flag[V, MTE2] %c
// CHECK:       pipeline.for
// CHECK:       ascend.pipe_barrier[ALL] {ascend.sync_point = "x_ub:war", ascend.core = "vector"}
// CHECK-NEXT:  ascend.wait_flag[MTE3, MTE2] %[[SLOT:.*]] {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT:  ascend.pipe_barrier[ALL] {ascend.sync_point = "x_ub:waw", ascend.core = "vector"}
// CHECK-NEXT:  scf.if %ragged {
// CHECK-NEXT:    tile.fill<256>
// CHECK-NEXT:    ascend.set_flag[V, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:waw"}
// CHECK-NEXT:    ascend.wait_flag[V, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:waw"}
// CHECK-NEXT:    tile.copy<256> %x[%off] -> %x_ub
// CHECK-NEXT:  } else {
// CHECK-NEXT:    tile.copy<256> %x[%off] -> %x_ub
// CHECK-NEXT:  }
// CHECK-NEXT:  ascend.set_flag[MTE2, MTE3] %[[SLOT]] {ascend.sync_point = "x_ub:raw"}
// CHECK-NEXT:  ascend.wait_flag[MTE2, MTE3] %[[SLOT]] {ascend.sync_point = "x_ub:raw"}
// CHECK-NEXT:  tile.copy<256> %x_ub -> %z[%off]
// CHECK-NEXT:  ascend.set_flag[MTE3, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT: }
// CHECK-NOT:   ascend.wait_flag[MTE3, V]
// CHECK-NOT:   ascend.wait_flag[V, MTE2]
func.func @guarded_fill(%x: memref<?xf16>, %z: memref<?xf16>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.000000e+00 : f16
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %end = arith.addi %off, %c256 : index
    %size = memref.dim %x, %c0 : memref<?xf16>
    %ragged = arith.cmpi sgt, %end, %size : index
    scf.if %ragged {
      tile.fill<256> %zero -> %x_ub : f16 -> memref<256xf16, "ub">
      tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    } else {
      tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    }
    tile.copy<256> %x_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
  }
  func.return
}
