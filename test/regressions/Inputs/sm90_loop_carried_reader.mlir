// sm_90: a copy read by the next iteration, before that iteration's copy: no wait of
// its own iteration can order it, so it stays a cp.async.
func.func @loop_carried_reader(%A: memref<128x16xf32>, %E: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<16x16xf32, "shared">
  tile.fill<16x16> %f0 -> %S : f32 -> memref<16x16xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0] order = [0, 1] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %S -> %E[%r, %c0] : memref<16x16xf32, "shared"> -> memref<128x16xf32>
    tile.copy<16x16> %A[%r, %c0] -> %S : memref<128x16xf32> -> memref<16x16xf32, "shared">
  }
  func.return
}
