func.func @guarded_fill(%x: memref<?xf16>, %z: memref<?xf16>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.000000e+00 : f16
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %end = arith.addi %off, %c256 : index
    %size = memref.dim %x, %c0 : memref<?xf16>
    %ragged = arith.cmpi sgt, %end, %size : index
    scf.if %ragged {
      tile.fill<256> %zero -> %x_ub : f16 -> memref<256xf16, "ub">
      tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    } else {
      tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    }
    tile.copy<256> %x_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
  }
  func.return
}
