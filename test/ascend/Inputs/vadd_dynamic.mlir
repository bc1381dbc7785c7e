// The Ascend vector add with a dynamic length: the last tile is ragged (DataCopyPad).
func.func @vadd(%x: memref<?xf16>, %y: memref<?xf16>, %z: memref<?xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf16>
  %tiles = arith.ceildivui %n, %c256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %tiles step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    tile.copy<256> %y[%off] -> %y_ub : memref<?xf16> -> memref<256xf16, "ub">
    tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
  }
  func.return
}
