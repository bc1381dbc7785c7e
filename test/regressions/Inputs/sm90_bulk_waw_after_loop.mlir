// The first loop's bulk copies and the second loop's share arena bytes (WAW after the
// loop).  The first loop's copy of iteration k is landed by the wait of iteration k+1,
// or by the epilogue's when k is the last; thread-sync used to see only the epilogue's
// and reject the kernel (fuzz seed 100461).
func.func @bulk_waw_after_loop(%a: memref<128x16xf32>, %b: memref<128x32xf32>,
                               %c: memref<128x32xf32>, %out: memref<128x32xf32>,
                               %out2: memref<128x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<16x32xf32, "fragment">
  %fa = memref.alloc() : memref<16x16xf32, "shared">
  %sb = memref.alloc() : memref<16x32xf32, "shared">
  %sc = memref.alloc() : memref<16x32xf32, "shared">
  tile.fill<16x32> %zero -> %acc : f32 -> memref<16x32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 1] order = [1, 2, 0] {
    %m = arith.muli %k, %c16 : index
    tile.copy<16x16> %a[%m, %c0] -> %fa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x32> %b[%m, %c0] -> %sb : memref<128x32xf32> -> memref<16x32xf32, "shared">
    tile.gemm<16x32x16> %fa, %sb -> %acc : memref<16x16xf32, "shared">, memref<16x32xf32, "shared"> -> memref<16x32xf32, "fragment">
  }
  tile.copy<16x32> %acc -> %out[%c0, %c0] : memref<16x32xf32, "fragment"> -> memref<128x32xf32>
  pipeline.for %j = %c0 to %n step %c1 num_stages = 2 {
    %m = arith.muli %j, %c16 : index
    tile.copy<16x32> %c[%m, %c0] -> %sc : memref<128x32xf32> -> memref<16x32xf32, "shared">
    tile.copy<16x32> %sc -> %out2[%m, %c0] : memref<16x32xf32, "shared"> -> memref<128x32xf32>
  }
  func.return
}
