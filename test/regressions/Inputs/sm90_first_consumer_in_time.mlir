// sm_90: two readers of one copy; the one later in program order runs first (stage 1
// against stage 2), so the wait must come before it, not before the other.
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
