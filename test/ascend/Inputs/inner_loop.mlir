// An inner loop of the pipelined loop body whose trip count, m - i, varies with the
// outer iteration and may be zero (in some iterations, or all for %m = 0): used by
// test/ascend/insert-sync-inner-loop.mlir and test/python/ascend/test_ascend_inner_loop.py.
func.func @inner_loop(%x: memref<1024xf32>, %y: memref<4096xf32>, %z: memref<4096xf32>, %m: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<64xf32, "ub">
  %y_ub = memref.alloc() : memref<64xf32, "ub">
  %z_ub = memref.alloc() : memref<64xf32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %xo = arith.muli %i, %c64 : index
    tile.copy<64> %x[%xo] -> %x_ub : memref<1024xf32> -> memref<64xf32, "ub">
    %base = arith.muli %i, %c256 : index
    %trips = arith.subi %m, %i : index
    scf.for %j = %c0 to %trips step %c1 {
      %jo = arith.muli %j, %c64 : index
      %o = arith.addi %base, %jo : index
      tile.copy<64> %y[%o] -> %y_ub : memref<4096xf32> -> memref<64xf32, "ub">
      tile.add<64> %x_ub, %y_ub -> %z_ub : memref<64xf32, "ub">, memref<64xf32, "ub"> -> memref<64xf32, "ub">
      tile.copy<64> %z_ub -> %z[%o] : memref<64xf32, "ub"> -> memref<4096xf32>
    }
  }
  func.return
}
