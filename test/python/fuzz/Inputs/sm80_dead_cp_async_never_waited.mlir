// The fuzzer's NVVM sample (sm_80, seed 860, minimized; sm_90 seed 851 alike): a cp.async into a
// buffer nothing reads. The compiled kernel ends with the copy's group never waited for, which
// the NVVM interpreter rejects; the tile level accepts it.
func.func @fuzz(%in7: memref<8x8xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s6 = memref.alloc() : memref<8x8xf32, "shared">
  %slot0 = arith.addi %c0, %c0 : index
  pipeline.for %k0 = %c0 to %c1 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_k = arith.muli %it0, %c8 : index
    tile.copy<8x8> %in7[%o0_k, %c0] -> %s6 : memref<8x8xf32> -> memref<8x8xf32, "shared">
  }
  func.return
}
