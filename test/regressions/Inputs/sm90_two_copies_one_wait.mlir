// sm_90: two copies read by one consumer (one group: one arrive_expect_tx for both
// copies' bytes, one wait), a second copy/consumer pair in the same stage (its own
// group, armed before its own wait), everything in stage 0.
func.func @two_copies_one_wait(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %Sb = memref.alloc() : memref<16x16xf32, "shared">
  %Sc = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  %U = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 0, 0, 0, 0] order = [0, 1, 2, 3, 4, 5, 6] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %Sb : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.add<16x16> %Sa, %Sb -> %T : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %A[%r, %c0] -> %Sc : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %Sc -> %U : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.add<16x16> %T, %U -> %T : memref<16x16xf32, "fragment">, memref<16x16xf32, "fragment"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %T -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<128x16xf32>
  }
  func.return
}
