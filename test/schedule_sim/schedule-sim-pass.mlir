// schedule-sim simulates a scheduled-level kernel (docs/schedule_sim.md), leaves the IR
// as it is and draws the Gantt chart: one lane per unit, barriers hatched, syncs ticked.
// RUN: tile-opt %s -p 'schedule-sim{svg="%t.svg"}' | filecheck %s
// RUN: filecheck %s --check-prefix=SVG < %t.svg
// RUN: not tile-opt %s -p 'schedule-sim{index-args="n"}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @two_rounds
// CHECK:         pipeline.async_copy
// CHECK:         pipeline.wait_group 0
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.add

// sm_80's latencies for a 1 KiB tile: a copy occupies the engine 1 + 1024/16 = 65
// cycles and lands 400 + 64 = 464 after it starts (the 28-cycle fill hides under it),
// a barrier takes 20, an add 20 + 1024/128 = 28.  Barrier 464-484, add 484-512; the
// second copy issues at 484, under the first add, and lands at 948; barrier 948-968,
// add 968-996.  Steady state: 968 - 484 = 484 cycles per round.
// SVG:      <svg
// SVG:      two_rounds: 996 cycles, steady state 484.0 cycles/iteration
// SVG:      >copy</text>
// SVG:      >compute</text>
// SVG:      <title>pipeline.async_copy [0, 65) in flight until 464</title>
// SVG:      <title>tile.add [484, 512)</title>
// SVG:      pipeline.wait_group [948, 948)
// SVG:      fill="url(#hatch)"
// SVG:      </svg>

// BAD: schedule-sim: index arguments are NAME=INT, got 'n'

func.func @two_rounds(%G: memref<32x16xf32>, %out: memref<16x16xf32>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  %s = memref.alloc() : memref<2x16x16xf32, "shared">
  %c1 = arith.constant 1 : index
  %acc = memref.alloc() : memref<16x16xf32, "shared">
  tile.fill<16x16> %zero -> %acc : f32 -> memref<16x16xf32, "shared">
  %t0 = pipeline.async_copy<16x16> %G[%c0, %c0] -> %s[%c0, %c0, %c0] : memref<32x16xf32> -> memref<2x16x16xf32, "shared">
  pipeline.commit_group [%t0]
  pipeline.wait_group 0
  pipeline.barrier
  tile.add<16x16> %s[%c0, %c0, %c0], %acc -> %acc : memref<2x16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "shared">
  %t1 = pipeline.async_copy<16x16> %G[%c16, %c0] -> %s[%c1, %c0, %c0] : memref<32x16xf32> -> memref<2x16x16xf32, "shared">
  pipeline.commit_group [%t1]
  pipeline.wait_group 0
  pipeline.barrier
  tile.add<16x16> %s[%c1, %c0, %c0], %acc -> %acc : memref<2x16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "shared">
  func.return
}
