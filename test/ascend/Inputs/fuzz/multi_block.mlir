// Fuzz finding (rejected-valid_7): a two-block grid with tile.block_id offsets; the
// pipe simulator had no tile.block_id semantics (multi-block simulation since fixed).
func.func @fuzz(%x: memref<32x16xf32>, %z: memref<32x16xf32>)
    attributes {tile.grid = array<i64: 2>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %x_ub = memref.alloc() : memref<16x16xf32, "ub">
  %bid = tile.block_id x
  %row = arith.muli %bid, %c16 : index
  tile.copy<16x16> %x[%row, %c0] -> %x_ub : memref<32x16xf32> -> memref<16x16xf32, "ub">
  tile.exp<16x16> %x_ub -> %x_ub : memref<16x16xf32, "ub"> -> memref<16x16xf32, "ub">
  tile.copy<16x16> %x_ub -> %z[%row, %c0] : memref<16x16xf32, "ub"> -> memref<32x16xf32>
  func.return
}
