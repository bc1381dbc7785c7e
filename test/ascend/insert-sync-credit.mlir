// RUN: tile-opt %S/Inputs/cube_to_vector_handoff.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s
// RUN: sed 's/%%n = arith.constant 32/%%n = arith.constant 16/' %S/Inputs/cube_to_vector_handoff.mlir | tile-opt -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s --check-prefix=SHORT
// A cube -> vector hand-over every iteration with nothing flowing back: the vector
// core returns a credit (a cross-core flag, a counter) that the cube waits for 16
// iterations later, so no more than the counter's 16 sets are ever outstanding.
// The credit ring is primed with 16 sets and drained with 16 waits.

// CHECK-LABEL: func.func @handoff
// CHECK-COUNT-16: ascend.cross_core_set_flag[2, MTE2] %{{.*}} {ascend.sync_point = "W:credit", ascend.core = "vector"}
// CHECK:       pipeline.for
// CHECK:         ascend.cross_core_wait_flag[2, FIX] %{{.*}} {ascend.sync_point = "W:credit"}
// CHECK-NEXT:    tile.copy<16x16> %c_l0c -> %W
// CHECK-NEXT:    ascend.cross_core_set_flag[2, FIX] %{{.*}} {ascend.sync_point = "W:raw"}
// CHECK:         ascend.cross_core_wait_flag[2, MTE2] %{{.*}} {ascend.sync_point = "W:raw", ascend.core = "vector"}
// CHECK:         tile.copy<16x16> %W
// CHECK:         ascend.cross_core_set_flag[2, MTE2] %{{.*}} {ascend.sync_point = "W:credit", ascend.core = "vector"}
// CHECK-COUNT-16: ascend.cross_core_wait_flag[2, FIX] %{{.*}} {ascend.sync_point = "W:credit"}

// 16 iterations can never overflow the counter: no credit ring.
// SHORT-LABEL: func.func @handoff
// SHORT-NOT:   W:credit
