// RUN: tile-opt %S/Inputs/inner_loop.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s
// An inner loop of the pipelined loop body, possibly empty: sync with the code
// around it sits at its boundary (the wait before it, the set after it); sites that
// conflict inside it are separated by pipe_barrier[ALL] fences, in the loop's cyclic
// order: the fence before the copy out also separates the add of one inner
// iteration from the copy in of the next, so the copy in needs none.  The fences
// also order x_ub's copy in (before the loop) before the add, and the add before the
// next copy in: x_ub needs no flag; only the WAW of its copies in, when the inner
// loop does not run (m - i <= 0), keeps a barrier.
// CHECK-LABEL: func.func @inner_loop
// CHECK:      ascend.pipe_barrier[MTE2] {ascend.sync_point = "x_ub:waw", ascend.core = "vector"}
// CHECK-NEXT: tile.copy<64> %x
// CHECK-NOT:  flag
// CHECK:      scf.for
// CHECK-NOT:    pipe_barrier
// CHECK:        tile.copy<64> %y[%{{.*}}] -> %y_ub
// CHECK-NEXT:   ascend.pipe_barrier[ALL] {ascend.sync_point = "y_ub:fence", ascend.core = "vector"}
// CHECK-NEXT:   tile.add<64>
// CHECK-NEXT:   ascend.pipe_barrier[ALL] {ascend.sync_point = "z_ub:fence", ascend.core = "vector"}
// CHECK-NEXT:   tile.copy<64> %z_ub
// CHECK-NEXT: }
// CHECK-NOT:  flag
