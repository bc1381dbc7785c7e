// tilepipe fuzz finding: deadlock, before ascend-zero-boundary-tiles zeroed tiles unconditionally
// (its guarded fill left a WAR flag ring set every iteration but closed only when the branch ran)
// static sizes: vector V is stuck at #87 ascend.wait_flag MTE2_V id 0 at fuzz.mlir:1:1 (5 instructions left)
// kernel: python -m tilepipe.fuzz --seed 300032 --count 1 --targets ascend910b (minimized; ascend-vector)
// trip counts checked: static
// check: python -m tilepipe.fuzz.check K.mlir
func.func @fuzz(%in2: memref<191x16xf16>, %out3: memref<191x16xf16>, %out4: memref<191x16xf32>, %in6: memref<95xf16>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %v0 = arith.constant -5.000000e-01 : f32
  %ub0 = memref.alloc() : memref<32x16xf32, "ub">
  %ub1 = memref.alloc() : memref<32x16xf16, "ub">
  %ub5 = memref.alloc() : memref<16xf16, "ub">
  %ub7 = memref.alloc() : memref<16xf16, "ub">
  %ub8 = memref.alloc() : memref<32x16xf32, "ub">
  %ub9 = memref.alloc() : memref<32x16xf16, "ub">
  %ub10 = memref.alloc() : memref<32x16xf16, "ub">
  %slot0 = arith.addi %c0, %c0 : index
  tile.fill<32x16> %v0 -> %ub0 : f32 -> memref<32x16xf32, "ub">
  pipeline.for %k0 = %c0 to %c6 step %c1 num_stages = 3 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c32 : index
    tile.copy<32x16> %in2[%o0_m, %c0] -> %ub1 : memref<191x16xf16> -> memref<32x16xf16, "ub">
    tile.copy<32x16> %ub1 -> %out3[%o0_m, %c0] : memref<32x16xf16, "ub"> -> memref<191x16xf16>
  }
  pipeline.for %k1 = %c1 to %c3 step %c2 num_stages = 2 {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_m = arith.muli %it1, %c32 : index
    %o1_n = arith.muli %it1, %c16 : index
    tile.copy<32x16> %ub0 -> %out4[%o1_m, %c0] : memref<32x16xf32, "ub"> -> memref<191x16xf32>
    tile.copy<16> %in6[%o1_n] -> %ub5 : memref<95xf16> -> memref<16xf16, "ub">
    tile.max<16> %ub5, %ub5 -> %ub7 : memref<16xf16, "ub">, memref<16xf16, "ub"> -> memref<16xf16, "ub">
    tile.exp<32x16> %ub0 -> %ub8 : memref<32x16xf32, "ub"> -> memref<32x16xf32, "ub">
    tile.copy<32x16> %in2[%o1_m, %c0] -> %ub9 : memref<191x16xf16> -> memref<32x16xf16, "ub">
    tile.max<32x16> %ub9, %ub9 -> %ub10 : memref<32x16xf16, "ub">, memref<32x16xf16, "ub"> -> memref<32x16xf16, "ub">
  }
  func.return
}
