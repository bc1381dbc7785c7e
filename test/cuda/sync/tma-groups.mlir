// tma-copy's groups: copies whose first consumer (the first statement of their
// iteration, in time order, that touches their bytes) is the same share one mbarrier
// slot, one arrive_expect_tx right after the last of them and one wait right before
// that consumer.  Copies no wait of their own iteration can order stay tile.copy.

// RUN: tile-opt %s --split-input-file -p pipeline-planning,tma-copy | filecheck %s

// Two copies read by one statement: one group, one arrival for both copies' bytes.
// CHECK-LABEL: func.func @two_copies_one_wait
// CHECK:         %tma_bars = memref.alloc() : memref<1xi64, "shared">
// CHECK:         pipeline.bulk_copy<16x16> %A[%r, %c0] -> %Sa, %tma_bars[%[[G:.*]]] {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    pipeline.bulk_copy<16x16> %B[%r, %c0] -> %Sb, %tma_bars[%[[G]]] {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G]]], bytes = 2048 {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %tma_bars[%[[G]]], %{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:    tile.add<16x16> %Sa, %Sb -> %T {pipeline.stage = 1 : i64, pipeline.order = 4 : i64}
func.func @two_copies_one_wait(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %Sb = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %Sb : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.add<16x16> %Sa, %Sb -> %T : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
  }
  func.return
}

// -----

// Copy, consumer, copy, consumer in one stage: two groups, each armed before its wait.
// CHECK-LABEL: func.func @two_groups_one_stage
// CHECK:         %tma_bars = memref.alloc() : memref<2xi64, "shared">
// CHECK:         pipeline.bulk_copy<16x16> %A[%r, %c0] -> %Sa, %tma_bars[%[[G0:.*]]]
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G0]]], bytes = 1024
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %tma_bars[%[[G0]]]
// CHECK-NEXT:    tile.copy<16x16> %Sa -> %T
// CHECK-NEXT:    pipeline.bulk_copy<16x16> %A[%r, %c0] -> %Sb, %tma_bars[%[[G1:.*]]]
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G1]]], bytes = 1024
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %tma_bars[%[[G1]]]
// CHECK-NEXT:    tile.add<16x16> %Sb, %T -> %T
func.func @two_groups_one_stage(%A: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %Sb = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 0] order = [0, 1, 2, 3] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %Sa -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %A[%r, %c0] -> %Sb : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.add<16x16> %Sb, %T -> %T : memref<16x16xf32, "shared">, memref<16x16xf32, "fragment"> -> memref<16x16xf32, "fragment">
  }
  func.return
}

// -----

// Copies of stages 0 and 1 read by one statement of stage 2: one group, armed after
// the stage-1 copy.
// CHECK-LABEL: func.func @stages_share_consumer
// CHECK:         pipeline.bulk_copy<16x16> %A[%r, %c0] -> %Sa, %tma_bars[%[[G:.*]]] {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    pipeline.bulk_copy<16x16> %B[%r, %c0] -> %Sb, %tma_bars[%[[G]]] {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G]]], bytes = 2048 {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %tma_bars[%[[G]]], %{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:    tile.mul<16x16>
func.func @stages_share_consumer(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %Sb = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 1, 2] order = [0, 1, 2] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %Sb : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.mul<16x16> %Sa, %Sb -> %T : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
  }
  func.return
}

// -----

// The first consumer is the first in time order (stage 1 before stage 2), not in
// program order: the wait goes before the %G copy.
// CHECK-LABEL: func.func @first_consumer_in_time
// CHECK:         pipeline.bulk_copy<16x16> %A[%r, %c0] -> %S
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx
// CHECK-NEXT:    tile.copy<16x16> %S -> %E[%r, %c0] {pipeline.stage = 2 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    pipeline.mbarrier_wait_parity {{.*}} {pipeline.stage = 1 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:    tile.copy<16x16> %S -> %G[%r, %c0] {pipeline.stage = 1 : i64, pipeline.order = 4 : i64}
func.func @first_consumer_in_time(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %G: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 2, 1] order = [1, 0, 2] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
    tile.copy<16x16> %S -> %G[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
  }
  func.return
}

// -----

// A second copy into the same bytes is a consumer too (WAW): it waits for the first.
// CHECK-LABEL: func.func @overwritten_copy
// CHECK:         pipeline.bulk_copy<16x16> %A[%r, %c0] -> %S, %tma_bars[%[[G0:.*]]]
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx %tma_bars[%[[G0]]]
// CHECK-NEXT:    pipeline.mbarrier_wait_parity %tma_bars[%[[G0]]]
// CHECK-NEXT:    pipeline.bulk_copy<16x16> %B[%r, %c0] -> %S, %tma_bars[%[[G1:.*]]]
func.func @overwritten_copy(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
  }
  func.return
}

// -----

// Read only by the next iteration (before its own copy): no wait of the copy's
// iteration can order the read, so it stays a tile.copy (cp.async later).
// CHECK-LABEL: func.func @loop_carried_reader
// CHECK-NOT:     pipeline.bulk_copy
// CHECK:         tile.copy<16x16> %A[%r, %c0] -> %S {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
func.func @loop_carried_reader(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0] order = [0, 1] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
  }
  func.return
}

// -----

// A copy read only after the loop (no consumer in its iteration) stays a tile.copy; the
// pipelined one next to it becomes a bulk copy.
// CHECK-LABEL: func.func @dead_copy
// CHECK:         tile.copy<16x16> %A[%r, %c0] -> %S {pipeline.stage = 0 : i64
// CHECK:         pipeline.bulk_copy<16x16> %B[%r, %c0] -> %L
func.func @dead_copy(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %E: memref<16x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %L = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %L : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %L -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
  }
  tile.copy<16x16> %S -> %E : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  func.return
}

// -----

// A ring of depth 2 for a consumer 2 stages after its copy: iteration k + 2 would
// re-arm the slot before iteration k's wait ran, so the copy stays a tile.copy.
// CHECK-LABEL: func.func @ring_shorter_than_the_schedule
// CHECK-NOT:     pipeline.bulk_copy
// CHECK:         pipeline.for %k = %c0 to %n step %c1 depth = 2 {
// CHECK:           tile.copy<16x16> %A[%r, %c0] -> %S {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
func.func @ring_shorter_than_the_schedule(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 stage = [0, 2] order = [0, 1] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
  }
  func.return
}

// -----

// A pipelined loop inside another loop would initialize its mbarriers again while they
// hold a phase: its copies stay tile.copy.
// CHECK-LABEL: func.func @nested_loop
// CHECK-NOT:     pipeline.bulk_copy
// CHECK-NOT:     pipeline.mbarrier_init
// CHECK:         tile.copy<16x16> %A[%r, %c0] -> %S {pipeline.stage = 0 : i64
func.func @nested_loop(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  scf.for %j = %c0 to %c2 step %c1 {
    pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
      %r = arith.muli %k, %c16 : index
      tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
      tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
    }
  }
  func.return
}
