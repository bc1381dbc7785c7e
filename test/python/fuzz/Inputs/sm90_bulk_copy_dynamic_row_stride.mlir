// The fuzzer's NVVM sample (sm_90, seed 739, minimized): a bulk copy from a dynamic array whose
// divisibility facts prove 16-byte rows, so tma-copy makes it a bulk copy; lower-to-nvvm's row
// addresses used the type's static strides (the dynamic-size sentinel for a ?). Checked at
// n = 1 with %in3 and %out5 of 48x16: rows 1-7 of the tile came from the wrong address.
func.func @fuzz(%in3: memref<?x?xf32> {tile.divisibility = array<i64: 8, 16>}, %out5: memref<?x?xf32> {tile.divisibility = array<i64: 8, 16>}, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s4 = memref.alloc() : memref<8x8xf32, "shared">
  %slot0 = arith.addi %c0, %c0 : index
  %span0 = arith.muli %n, %c1 : index
  %end0 = arith.addi %span0, %c0 : index
  pipeline.for %k0 = %c0 to %end0 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c8 : index
    tile.copy<8x8> %in3[%o0_m, %c0] -> %s4 : memref<?x?xf32> -> memref<8x8xf32, "shared">
    tile.copy<8x8> %s4 -> %out5[%o0_m, %c0] : memref<8x8xf32, "shared"> -> memref<?x?xf32>
  }
  func.return
}
