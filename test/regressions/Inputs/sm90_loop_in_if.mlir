// sm_90: a TMA loop under a uniform scf.if (runs at most once): its mbarrier ring is
// allocated and initialized inside the branch.
func.func @in_if(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %big = arith.cmpi sge, %n, %c2 : index
  scf.if %big {
    pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
      %r = arith.muli %k, %c16 : index
      tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
      tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
    }
  }
  func.return
}
