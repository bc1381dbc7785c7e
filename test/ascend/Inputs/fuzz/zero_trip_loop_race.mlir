// Fuzz regression (race_5): a UB fill, a loop reading the buffer, then a UB -> GM copy
// of it.  ascend-insert-sync pruned the fill -> copy edge through the loop body's syncs,
// which do not run at zero trips: with n = 0 nothing ordered the fill and the copy.
// (%out2 widened from 8 rows to 48 so that n = 0..5 all stay in bounds.)
func.func @fuzz(%out2: memref<48x8xf32>, %out3: memref<8x8xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v0 = arith.constant 0.000000e+00 : f32
  %ub0 = memref.alloc() : memref<8x8xf32, "ub">
  %ub1 = memref.alloc() : memref<8x8xf32, "ub">
  %slot0 = arith.addi %c0, %c0 : index
  %ot_m = arith.muli %slot0, %c8 : index
  %span0 = arith.muli %n, %c1 : index
  %end0 = arith.addi %span0, %c0 : index
  tile.fill<8x8> %v0 -> %ub0 : f32 -> memref<8x8xf32, "ub">
  pipeline.for %k0 = %c0 to %end0 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c8 : index
    tile.mul<8x8> %ub0, %ub0 -> %ub1 : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %ub1 -> %out2[%o0_m, %c0] : memref<8x8xf32, "ub"> -> memref<48x8xf32>
  }
  tile.copy<8x8> %ub0 -> %out3[%ot_m, %c0] : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}
