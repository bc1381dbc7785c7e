// sm_90: a pipelined loop inside an outer scf.for: as TMA its mbarriers would be re-initialized in
// every outer iteration without mbarrier.inval, so its copies stay cp.async.
func.func @nested(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  scf.for %j = %c0 to %c2 step %c1 {
    pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
      %r = arith.muli %k, %c16 : index
      tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
      tile.copy<16x16> %S -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
      tile.add<16x16> %T, %T -> %T : memref<16x16xf32, "fragment">, memref<16x16xf32, "fragment"> -> memref<16x16xf32, "fragment">
      tile.copy<16x16> %T -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<128x16xf32>
    }
  }
  func.return
}
