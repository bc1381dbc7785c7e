// sm_90: lower bound 1, step 2, dynamic upper bound, num_stages = 4 (trip counts
// below the depth run only prologue/epilogue slots).
func.func @lb_step(%A: memref<288x16xf32>, %E: memref<288x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  %m = arith.muli %n, %c2 : index
  %ub = arith.addi %m, %c1 : index
  pipeline.for %k = %c1 to %ub step %c2 num_stages = 4 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<288x16xf32> -> memref<16x16xf32, "shared">
    tile.exp<16x16> %S -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %T -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<288x16xf32>
  }
  func.return
}
