// Fuzz regression (miscompile_1): f16 exp on UB.  The tile interpreter used numpy's
// f16 exp loop, the pipe simulator f32 exp rounded to f16: 1 ulp apart on a few
// elements.  Both now use tilepipe/semantics/numerics.py.
func.func @fuzz(%in1: memref<224x64xf32>, %in4: memref<224x64xf16>, %out5: memref<224x64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %ub0 = memref.alloc() : memref<32x64xf32, "ub">
  %ub3 = memref.alloc() : memref<32x64xf16, "ub">
  %slot0 = arith.addi %c0, %c0 : index
  pipeline.for %k0 = %c0 to %c7 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c32 : index
    tile.copy<32x64> %in1[%o0_m, %c0] -> %ub0 : memref<224x64xf32> -> memref<32x64xf32, "ub">
    tile.copy<32x64> %in4[%o0_m, %c0] -> %ub3 : memref<224x64xf16> -> memref<32x64xf16, "ub">
    tile.exp<32x64> %ub3 -> %ub3 : memref<32x64xf16, "ub"> -> memref<32x64xf16, "ub">
    tile.copy<32x64> %ub3 -> %out5[%o0_m, %c0] : memref<32x64xf16, "ub"> -> memref<224x64xf16>
  }
  func.return
}
