// tilepipe fuzz finding: deadlock, before ascend-zero-boundary-tiles zeroed tiles unconditionally
// (its guarded fill left a WAR flag ring set every iteration but closed only when the branch ran)
// static sizes: vector MTE2 is stuck at #53 ascend.wait_flag V_MTE2 id 1 at fuzz.mlir:1:1 (2 instructions left)
// kernel: python -m tilepipe.fuzz --seed 300113 --count 1 --targets ascend910b (minimized; ascend-vector)
// trip counts checked: static
// check: python -m tilepipe.fuzz.check K.mlir
func.func @fuzz(%in2: memref<241xf16>, %out3: memref<241xf16>, %in5: memref<49x64xf16>, %out6: memref<49x64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %v0 = arith.constant 0.000000e+00 : f32
  %ub0 = memref.alloc() : memref<64xf32, "ub">
  %ub1 = memref.alloc() : memref<64xf16, "ub">
  %ub4 = memref.alloc() : memref<16x64xf16, "ub">
  %slot0 = arith.addi %c0, %c0 : index
  tile.fill<64> %v0 -> %ub0 : f32 -> memref<64xf32, "ub">
  pipeline.for %k0 = %c1 to %c3 step %c1 stage = [0, 2, 2] order = [0, 1, 2] {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_n = arith.muli %it0, %c64 : index
    tile.copy<64> %in2[%o0_n] -> %ub1 : memref<241xf16> -> memref<64xf16, "ub">
    tile.exp<64> %ub1 -> %ub1 : memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.copy<64> %ub1 -> %out3[%o0_n] : memref<64xf16, "ub"> -> memref<241xf16>
  }
  pipeline.for %k1 = %c1 to %c5 step %c2 stage = [0, 1] order = [1, 0] {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_m = arith.muli %it1, %c16 : index
    tile.copy<16x64> %in5[%o1_m, %c0] -> %ub4 : memref<49x64xf16> -> memref<16x64xf16, "ub">
    tile.copy<16x64> %ub4 -> %out6[%o1_m, %c0] : memref<16x64xf16, "ub"> -> memref<49x64xf16>
  }
  func.return
}
