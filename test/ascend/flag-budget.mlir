// RUN: tile-opt %s --split-input-file -p ascend-flag-budget | filecheck %s
// RUN: tile-opt %s --split-input-file -p 'ascend-flag-budget{report=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// The chapter's §4.5 arithmetic: four sync points (acquire_A, acquire_B, release_A,
// release_B) on one hard event, each a ring of `depth` event ids (iter mod depth + base).

// Depth 2: 4 x 2 = 8 ids fit the 8 slots exactly.
// REPORT-LABEL: ascend-flag-budget: @depth2 on ascend910b (8 ids per hard event, 32 lock slots, 16 cross-core flags)
// REPORT-NEXT:   MTE2_V: blocks acquire_A=2, acquire_B=2, release_A=2, release_B=2
// REPORT-NEXT:     demand 8 ids -> fits in 8 slots; no spill (0 slots spare)
// REPORT-NEXT:   lock pool: 0 of 32 slots; cross-core flags: 0 of 16
// CHECK-LABEL: func.func @depth2
// CHECK-NOT: get_buf
// CHECK: %[[V:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[V]], %{{.*}} : index
// CHECK: ascend.set_flag[MTE2, V] %[[V]] {ascend.sync_point = "acquire_A"}
// CHECK-NEXT: ascend.set_flag[MTE2, V] %[[B]] {ascend.sync_point = "acquire_B"}
// CHECK-NOT: get_buf
// CHECK: func.return
func.func @depth2() attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = arith.remui %i, %c2 : index
    %acquire_b = arith.addi %v, %c2 : index
    %release_a = arith.addi %v, %c4 : index
    %release_b = arith.addi %v, %c6 : index
    ascend.set_flag[MTE2, V] %v {ascend.sync_point = "acquire_A"}
    ascend.set_flag[MTE2, V] %acquire_b {ascend.sync_point = "acquire_B"}
    ascend.wait_flag[MTE2, V] %v {ascend.sync_point = "acquire_A"}
    ascend.wait_flag[MTE2, V] %acquire_b {ascend.sync_point = "acquire_B"}
    ascend.set_flag[MTE2, V] %release_a {ascend.sync_point = "release_A"}
    ascend.set_flag[MTE2, V] %release_b {ascend.sync_point = "release_B"}
    ascend.wait_flag[MTE2, V] %release_a {ascend.sync_point = "release_A"}
    ascend.wait_flag[MTE2, V] %release_b {ascend.sync_point = "release_B"}
  }
  func.return
}

// -----

// Depth 3: 4 x 3 = 12 ids; the knapsack keeps 6 of 8 slots (acquire_A, acquire_B; the
// earliest of the equally full pairs), release_A and release_B spill to the lock pool:
// the set becomes a non-blocking lock on the producer pipe, the wait a blocking lock on
// the consumer pipe, one slot per version.
// REPORT-LABEL: ascend-flag-budget: @depth3
// REPORT-NEXT:   MTE2_V: blocks acquire_A=3, acquire_B=3, release_A=3, release_B=3
// REPORT-NEXT:     demand 12 ids -> exceeds 8 slots: 0/1 knapsack keeps 6/8 slots as set/wait flags
// REPORT-NEXT:     kept    : acquire_A ids [0, 3), acquire_B ids [3, 6)
// REPORT-NEXT:     spilled : release_A slots [0, 3), release_B slots [3, 6) -> lock pool (blocking)
// REPORT-NEXT:   lock pool: 6 of 32 slots; cross-core flags: 0 of 16
// CHECK-LABEL: func.func @depth3
// CHECK: %[[V:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: ascend.set_flag[MTE2, V] %[[V]] {ascend.sync_point = "acquire_A"}
// CHECK: ascend.set_flag[MTE2, V] %[[B:.*]] {ascend.sync_point = "acquire_B"}
// CHECK: ascend.wait_flag[MTE2, V] %[[V]] {ascend.sync_point = "acquire_A"}
// CHECK: ascend.wait_flag[MTE2, V] %[[B]] {ascend.sync_point = "acquire_B"}
// CHECK-NEXT: ascend.get_buf[MTE2] %[[V]] non_block {ascend.sync_point = "release_A", ascend.core = "vector"}
// CHECK-NEXT: ascend.rls_buf[MTE2] %[[V]] non_block {ascend.sync_point = "release_A", ascend.core = "vector"}
// CHECK-NEXT: ascend.get_buf[MTE2] %[[RB:.*]] non_block {ascend.sync_point = "release_B", ascend.core = "vector"}
// CHECK-NEXT: ascend.rls_buf[MTE2] %[[RB]] non_block {ascend.sync_point = "release_B", ascend.core = "vector"}
// CHECK-NEXT: ascend.get_buf[V] %[[V]] block {ascend.sync_point = "release_A"}
// CHECK-NEXT: ascend.rls_buf[V] %[[V]] block {ascend.sync_point = "release_A"}
// CHECK-NEXT: ascend.get_buf[V] %[[RB]] block {ascend.sync_point = "release_B"}
// CHECK-NEXT: ascend.rls_buf[V] %[[RB]] block {ascend.sync_point = "release_B"}
// CHECK-NOT: ascend.set_flag
// CHECK: func.return
func.func @depth3() attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c9 = arith.constant 9 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = arith.remui %i, %c3 : index
    %acquire_b = arith.addi %v, %c3 : index
    %release_a = arith.addi %v, %c6 : index
    %release_b = arith.addi %v, %c9 : index
    ascend.set_flag[MTE2, V] %v {ascend.sync_point = "acquire_A"}
    ascend.set_flag[MTE2, V] %acquire_b {ascend.sync_point = "acquire_B"}
    ascend.wait_flag[MTE2, V] %v {ascend.sync_point = "acquire_A"}
    ascend.wait_flag[MTE2, V] %acquire_b {ascend.sync_point = "acquire_B"}
    ascend.set_flag[MTE2, V] %release_a {ascend.sync_point = "release_A"}
    ascend.set_flag[MTE2, V] %release_b {ascend.sync_point = "release_B"}
    ascend.wait_flag[MTE2, V] %release_a {ascend.sync_point = "release_A"}
    ascend.wait_flag[MTE2, V] %release_b {ascend.sync_point = "release_B"}
  }
  func.return
}

// -----

// Static ids are renumbered into [0, 8) per hard event; separate hard events have
// separate id namespaces; constant SSA ids fold into static ids.
// CHECK-LABEL: func.func @renumber_static
// CHECK-NEXT: ascend.set_flag[MTE2, V] 0
// CHECK-NEXT: ascend.wait_flag[MTE2, V] 0
// CHECK-NEXT: ascend.set_flag[V, MTE3] 0
// CHECK-NEXT: ascend.wait_flag[V, MTE3] 0
// CHECK-NEXT: ascend.set_flag[MTE2, V] 1
// CHECK-NEXT: ascend.wait_flag[MTE2, V] 1
// CHECK-NEXT: func.return
func.func @renumber_static() attributes {tile.target = "ascend910b"} {
  %c5 = arith.constant 5 : index
  ascend.set_flag[MTE2, V] 3
  ascend.wait_flag[MTE2, V] 3
  ascend.set_flag[V, MTE3] %c5
  ascend.wait_flag[V, MTE3] %c5
  ascend.set_flag[MTE2, V] 7
  ascend.wait_flag[MTE2, V] 7
  func.return
}

// -----

// Overlapping id ranges are one block (one sync point): the prime/drain sets of a
// ring (static 0, 1) join the ring's dynamic ids (i mod 2).
// REPORT-LABEL: @ring_with_prime_and_drain
// REPORT-NEXT:   V_MTE2: blocks ids[0..1]=2
// CHECK-LABEL: func.func @ring_with_prime_and_drain
func.func @ring_with_prime_and_drain() attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  ascend.set_flag[V, MTE2] 0
  ascend.set_flag[V, MTE2] 1
  scf.for %i = %c0 to %c8 step %c1 {
    %v = arith.remui %i, %c2 : index
    ascend.wait_flag[V, MTE2] %v
    ascend.set_flag[V, MTE2] %v
  }
  ascend.wait_flag[V, MTE2] 0
  ascend.wait_flag[V, MTE2] 1
  func.return
}
