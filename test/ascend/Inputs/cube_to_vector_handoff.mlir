// The cube hands a 16x16 tile to the vector core every iteration through the GM
// workspace W (FIX -> MTE2, a cross-core flag), and nothing flows back: without
// back-pressure the cube may run 32 sets ahead of the vector core's waits, and the
// hardware counter of a cross-core flag holds 16.  Used by
// test/python/ascend/test_ascend_sync_limits.py (lit.cfg excludes Inputs/).
func.func @handoff(%A: memref<512x16xf16>, %B: memref<16x16xf16>, %W: memref<512x16xf32>, %D: memref<512x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %a_l1 = memref.alloc() : memref<16x16xf16, "l1">
  %b_l1 = memref.alloc() : memref<16x16xf16, "l1">
  %a_l0a = memref.alloc() : memref<16x16xf16, "l0a">
  %b_l0b = memref.alloc() : memref<16x16xf16, "l0b">
  %c_l0c = memref.alloc() : memref<16x16xf32, "l0c">
  %w_ub = memref.alloc() : memref<16x16xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %i, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %a_l1 : memref<512x16xf16> -> memref<16x16xf16, "l1">
    tile.copy<16x16> %B -> %b_l1 : memref<16x16xf16> -> memref<16x16xf16, "l1">
    tile.copy<16x16> %a_l1 -> %a_l0a : memref<16x16xf16, "l1"> -> memref<16x16xf16, "l0a">
    tile.copy<16x16> %b_l1 -> %b_l0b : memref<16x16xf16, "l1"> -> memref<16x16xf16, "l0b">
    tile.fill<16x16> %zero -> %c_l0c : f32 -> memref<16x16xf32, "l0c">
    tile.gemm<16x16x16> %a_l0a, %b_l0b -> %c_l0c : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
    tile.copy<16x16> %c_l0c -> %W[%r, %c0] : memref<16x16xf32, "l0c"> -> memref<512x16xf32>
    tile.copy<16x16> %W[%r, %c0] -> %w_ub : memref<512x16xf32> -> memref<16x16xf32, "ub">
    tile.copy<16x16> %w_ub -> %D[%r, %c0] : memref<16x16xf32, "ub"> -> memref<512x16xf32>
  }
  func.return
}
