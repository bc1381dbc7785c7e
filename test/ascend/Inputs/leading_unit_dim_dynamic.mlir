// A 3-d tile with a leading unit dimension: its slice %b may lie past the array.
func.func @lead(%x: memref<?x?x64xf32>, %z: memref<2x16x64xf32>, %b: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<1x16x64xf32, "ub">
  %u = memref.alloc() : memref<1x16x64xf32, "ub">
  tile.copy<1x16x64> %x[%b, %c0, %c0] -> %t : memref<?x?x64xf32> -> memref<1x16x64xf32, "ub">
  tile.exp<1x16x64> %t -> %u : memref<1x16x64xf32, "ub"> -> memref<1x16x64xf32, "ub">
  tile.copy<1x16x64> %u -> %z[%c0, %c0, %c0] : memref<1x16x64xf32, "ub"> -> memref<2x16x64xf32>
  func.return
}
