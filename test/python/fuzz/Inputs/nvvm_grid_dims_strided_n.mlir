func.func @copy_strided(%A: memref<?x32xf32>, %B: memref<?x32xf32>, %n: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %rows = memref.dim %A, %c0 : memref<?x32xf32>
  %blocks = arith.ceildivui %rows, %c128 : index
  tile.grid_dims %blocks
  %bid = tile.block_id x
  %first = arith.muli %bid, %c8 : index
  %end = arith.addi %first, %n : index
  %s = memref.alloc() : memref<16x32xf32, "shared">
  pipeline.for %k = %first to %end step %c2 num_stages = 2 {
    %o = arith.muli %k, %c16 : index
    tile.copy<16x32> %A[%o, %c0] -> %s : memref<?x32xf32> -> memref<16x32xf32, "shared">
    tile.copy<16x32> %s -> %B[%o, %c0] : memref<16x32xf32, "shared"> -> memref<?x32xf32>
  }
  func.return
}
