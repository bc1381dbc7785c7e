// A copy-in feeding a long vector chain: the MTE2 pipe runs ahead of the vector pipe
// as far as the copy-in's WAR ring lets it (two iterations).
func.func @slow_consumer(%x: memref<8192xf32>, %z: memref<8192xf32>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %a = memref.alloc() : memref<256xf32, "ub">
  %b = memref.alloc() : memref<256xf32, "ub">
  %c = memref.alloc() : memref<256xf32, "ub">
  pipeline.for %i = %c0 to %c32 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %a : memref<8192xf32> -> memref<256xf32, "ub">
    tile.exp<256> %a -> %b : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.exp<256> %b -> %c : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.exp<256> %c -> %b : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.exp<256> %b -> %c : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.exp<256> %c -> %b : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.exp<256> %b -> %c : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.copy<256> %c -> %z[%off] : memref<256xf32, "ub"> -> memref<8192xf32>
  }
  func.return
}
