// A 2-d elementwise max over dynamic rows and columns: the last row tile and every
// column are ragged (16 x 48 tiles of f16; a row of 48 is not a whole number of
// 32-byte blocks), and the output may be larger than the inputs.
func.func @vmax2d(%x: memref<?x?xf16>, %y: memref<?x?xf16>, %z: memref<?x?xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %m = memref.dim %x, %c0 : memref<?x?xf16>
  %tiles = arith.ceildivui %m, %c16 : index
  %x_ub = memref.alloc() : memref<16x48xf16, "ub">
  %y_ub = memref.alloc() : memref<16x48xf16, "ub">
  %z_ub = memref.alloc() : memref<16x48xf16, "ub">
  pipeline.for %i = %c0 to %tiles step %c1 num_stages = 2 {
    %off = arith.muli %i, %c16 : index
    tile.copy<16x48> %x[%off, %c0] -> %x_ub : memref<?x?xf16> -> memref<16x48xf16, "ub">
    tile.copy<16x48> %y[%off, %c0] -> %y_ub : memref<?x?xf16> -> memref<16x48xf16, "ub">
    tile.max<16x48> %x_ub, %y_ub -> %z_ub : memref<16x48xf16, "ub">, memref<16x48xf16, "ub"> -> memref<16x48xf16, "ub">
    tile.copy<16x48> %z_ub -> %z[%off, %c0] : memref<16x48xf16, "ub"> -> memref<?x?xf16>
  }
  func.return
}
