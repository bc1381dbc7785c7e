// sm_90: two pipelined loops with bulk copies, each with its own mbarrier ring; the
// second loop's staging buffers reuse the first loop's bytes, the rings never do.
func.func @two_tma_loops(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %G: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %S2 = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
  }
  pipeline.for %j = %c0 to %n step %c1 num_stages = 3 {
    %r = arith.muli %j, %c16 : index
    tile.copy<16x16> %E[%r, %c0] -> %S2 : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S2 -> %G[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
  }
  func.return
}
