// sm_90: copies in different stages (0 and 1) read by one consumer in stage 2: one
// group, armed after the stage-1 copy, waited before the consumer.
func.func @stages_share_consumer(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %Sb = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 1, 2, 2] order = [0, 1, 2, 3] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %Sb : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.mul<16x16> %Sa, %Sb -> %T : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %T -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<128x16xf32>
  }
  func.return
}
