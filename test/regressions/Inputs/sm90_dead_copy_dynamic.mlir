// sm_90: a copy nothing in the loop reads (its last tile is read after the loop), next
// to a pipelined copy with a consumer; dynamic trip count (n = 0 keeps the fill),
// num_stages = 3.
func.func @dead_copy_dynamic(%A: memref<128x16xf32>, %B: memref<128x16xf32>, %E: memref<16x16xf32>, %F: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %L = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  tile.fill<16x16> %f0 -> %S : f32 -> memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %B[%r, %c0] -> %L : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %L -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
    tile.copy<16x16> %T -> %F[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<128x16xf32>
  }
  tile.copy<16x16> %S -> %E : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  func.return
}
