// tilepipe fuzz finding: deadlock, before ascend-zero-boundary-tiles zeroed tiles unconditionally
// (its guarded fill left a WAR flag ring set every iteration but closed only when the branch ran)
// n = 1: block (0, 0, 0): vector MTE2 is stuck at #29 ascend.wait_flag V_MTE2 id 2 at fuzz.mlir:1:1 (2 instructions left)
// kernel: python -m tilepipe.fuzz --seed 300191 --count 1 --targets ascend910b (minimized; ascend-vector)
// trip counts checked: 1, 2, 5
// check: python -m tilepipe.fuzz.check K.mlir --trips 1
// case: n=1
// case: n=2
// case: n=5
func.func @fuzz(%in1: memref<571x32xf32>, %out2: memref<571x32xf32>, %in4: memref<571xf16>, %out5: memref<571xf16>, %n: index)
    attributes {tile.grid = array<i64: 2>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %c32 = arith.constant 32 : index
  %bid = tile.block_id x
  %ub0 = memref.alloc() : memref<32x32xf32, "ub">
  %ub3 = memref.alloc() : memref<32xf16, "ub">
  %slot0 = arith.muli %bid, %c9 : index
  %span0 = arith.muli %n, %c1 : index
  %end0 = arith.addi %span0, %c0 : index
  %span1 = arith.muli %n, %c2 : index
  %end1 = arith.addi %span1, %c0 : index
  pipeline.for %k0 = %c0 to %end0 step %c1 num_stages = 1 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c32 : index
    tile.copy<32x32> %in1[%o0_m, %c0] -> %ub0 : memref<571x32xf32> -> memref<32x32xf32, "ub">
    tile.copy<32x32> %ub0 -> %out2[%o0_m, %c0] : memref<32x32xf32, "ub"> -> memref<571x32xf32>
  }
  pipeline.for %k1 = %c0 to %end1 step %c2 stage = [1, 1] order = [0, 1] {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_n = arith.muli %it1, %c32 : index
    tile.copy<32> %in4[%o1_n] -> %ub3 : memref<571xf16> -> memref<32xf16, "ub">
    tile.copy<32> %ub3 -> %out5[%o1_n] : memref<32xf16, "ub"> -> memref<571xf16>
  }
  func.return
}
