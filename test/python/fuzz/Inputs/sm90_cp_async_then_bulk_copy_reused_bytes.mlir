// The fuzzer's NVVM sample (sm_90, seed 712, minimized): a cp.async into %s0, which nothing
// reads, so the arena gives %s3 its bytes; the bulk copy into %s3 overwrites them through the
// async proxy, and the only fence.proxy.async (tma-copy's, after the mbarrier init) comes
// before the wait_group that completes the cp.async write.
func.func @fuzz(%in1: memref<8xbf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s0 = memref.alloc() : memref<8xbf16, "shared">
  %s2 = memref.alloc() : memref<8xbf16, "fragment">
  %s3 = memref.alloc() : memref<8xbf16, "shared">
  %s4 = memref.alloc() : memref<8xbf16, "local">
  %slot0 = arith.addi %c0, %c0 : index
  %ot_m = arith.muli %slot0, %c8 : index
  tile.copy<8> %in1[%ot_m] -> %s0 : memref<8xbf16> -> memref<8xbf16, "shared">
  pipeline.for %k0 = %c0 to %c1 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c8 : index
    tile.copy<8> %in1[%o0_m] -> %s2 : memref<8xbf16> -> memref<8xbf16, "fragment">
    tile.copy<8> %in1[%o0_m] -> %s3 : memref<8xbf16> -> memref<8xbf16, "shared">
    tile.div<8> %s2, %s3 -> %s4 : memref<8xbf16, "fragment">, memref<8xbf16, "shared"> -> memref<8xbf16, "local">
  }
  func.return
}
