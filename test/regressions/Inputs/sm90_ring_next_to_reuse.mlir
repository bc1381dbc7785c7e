// sm_90: the mbarrier ring of a GEMM loop next to shared buffers whose bytes are
// reused: %P is filled and read before the loop, %C_s is written and read after it.
func.func @ring_next_to_reuse(%A: memref<16x128xf16>, %B: memref<128x16xf16>, %X: memref<16x16xf32>, %D: memref<16x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  %P = memref.alloc() : memref<16x16xf32, "shared">
  %Sa = memref.alloc() : memref<16x16xf16, "shared">
  %Sb = memref.alloc() : memref<16x16xf16, "shared">
  %C_s = memref.alloc() : memref<16x16xf32, "shared">
  %Acc = memref.alloc() : memref<16x16xf32, "fragment">
  tile.copy<16x16> %X -> %P : memref<16x16xf32> -> memref<16x16xf32, "shared">
  tile.copy<16x16> %P -> %Acc : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
    %o = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%c0, %o] -> %Sa : memref<16x128xf16> -> memref<16x16xf16, "shared">
    tile.copy<16x16> %B[%o, %c0] -> %Sb : memref<128x16xf16> -> memref<16x16xf16, "shared">
    tile.gemm<16x16x16> %Sa, %Sb -> %Acc : memref<16x16xf16, "shared">, memref<16x16xf16, "shared"> -> memref<16x16xf32, "fragment">
  }
  tile.copy<16x16> %Acc -> %C_s : memref<16x16xf32, "fragment"> -> memref<16x16xf32, "shared">
  tile.copy<16x16> %C_s -> %D : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  func.return
}
