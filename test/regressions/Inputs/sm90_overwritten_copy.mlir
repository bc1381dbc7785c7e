// sm_90: a copy overwritten by a second copy into the same bytes before anything reads
// them (WAW in one iteration): the second copy waits for the first one's phase.
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
