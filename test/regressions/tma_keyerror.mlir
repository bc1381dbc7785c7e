// Fuzz 2026-12 (tma_keyerror): `-p pipeline-planning,tma-copy` died with an internal
// KeyError in program_order_precedes: the loop was rewritten while its access analysis
// was still being filled in.  tma-copy now plans every group before it rewrites.

// RUN: tile-opt %s -p pipeline-planning,tma-copy | filecheck %s
// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: tile-run %t --check-races --compare-with %s --quiet

// The copy's data is not read in the loop: it stays a tile.copy.
// CHECK-LABEL: func.func @k
// CHECK:         pipeline.for
// CHECK-NEXT:      %r = arith.muli
// CHECK-NEXT:      tile.copy<16x16> %B[%r, %c0] -> %S {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:      tile.copy<16x16> %F -> %E[%r, %c0] {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    }
func.func @k(%B: memref<64x16xf32>, %E: memref<64x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %F = memref.alloc() : memref<16x16xf32, "fragment">
  tile.fill<16x16> %zero -> %F : f32 -> memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %B[%r, %c0] -> %S : memref<64x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %F -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<64x16xf32>
  }
  func.return
}
