// Fuzz regression (rejected-valid_6): pure index math (the dynamic bound) between an
// L0C fill and its accumulation loop made lower-to-ascend reject the fill.  %n + 1
// trips: n = 0..3 stay in bounds.
func.func @fuzz(%A: memref<16x64xf16>, %B: memref<64x16xf16>, %C: memref<16x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  %a_l1 = memref.alloc() : memref<16x16xf16, "l1">
  %b_l1 = memref.alloc() : memref<16x16xf16, "l1">
  %a_l0a = memref.alloc() : memref<16x16xf16, "l0a">
  %b_l0b = memref.alloc() : memref<16x16xf16, "l0b">
  %c_l0c = memref.alloc() : memref<16x16xf32, "l0c">
  tile.fill<16x16> %zero -> %c_l0c : f32 -> memref<16x16xf32, "l0c">
  %ub = arith.addi %n, %c1 : index
  pipeline.for %k = %c0 to %ub step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%c0, %k0] -> %a_l1 : memref<16x64xf16> -> memref<16x16xf16, "l1">
    tile.copy<16x16> %B[%k0, %c0] -> %b_l1 : memref<64x16xf16> -> memref<16x16xf16, "l1">
    tile.copy<16x16> %a_l1 -> %a_l0a : memref<16x16xf16, "l1"> -> memref<16x16xf16, "l0a">
    tile.copy<16x16> %b_l1 -> %b_l0b : memref<16x16xf16, "l1"> -> memref<16x16xf16, "l0b">
    tile.gemm<16x16x16> %a_l0a, %b_l0b -> %c_l0c : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
  }
  tile.copy<16x16> %c_l0c -> %C : memref<16x16xf32, "l0c"> -> memref<16x16xf32>
  func.return
}
