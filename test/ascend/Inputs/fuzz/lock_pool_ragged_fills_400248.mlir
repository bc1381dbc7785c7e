// tilepipe fuzz finding: rejected-valid, after ascend-zero-boundary-tiles zeroed ragged
// UB tiles (84a39c8): "'func.func' op spilled flags need 35 lock slots but the pool has
// 32".  Four zeroing fills at num_stages 5 each took a same-iteration V -> MTE2 flag
// with 5 ids; ascend-insert-sync now gives such a flag the fewest ids that keep it closed.
// kernel: python -m tilepipe.fuzz --seed 400248 --count 1 --targets ascend910b (minimized; ascend-vector)
// check: python -m tilepipe.fuzz.check K.mlir --trips 0,1,2,5
func.func @fuzz(%in2: memref<1xf16>, %in5: memref<1x8xf16>, %out7: memref<1x8xf16>, %in10: memref<1x8xf32>, %out12: memref<1x8xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ub1 = memref.alloc() : memref<8xf16, "ub">
  %ub3 = memref.alloc() : memref<8xf16, "ub">
  %ub4 = memref.alloc() : memref<8x8xf16, "ub">
  %ub6 = memref.alloc() : memref<8x8xf16, "ub">
  %ub9 = memref.alloc() : memref<8x8xf32, "ub">
  %ub11 = memref.alloc() : memref<8x8xf32, "ub">
  %slot0 = arith.addi %c0, %c0 : index
  %span0 = arith.muli %n, %c1 : index
  %end0 = arith.addi %span0, %c0 : index
  %span1 = arith.muli %n, %c1 : index
  %end1 = arith.addi %span1, %c0 : index
  pipeline.for %k0 = %c0 to %end0 step %c1 num_stages = 5 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_n = arith.muli %it0, %c8 : index
    %o0_m = arith.muli %it0, %c8 : index
    tile.copy<8> %in2[%o0_n] -> %ub1 : memref<1xf16> -> memref<8xf16, "ub">
    tile.exp<8> %ub1 -> %ub3 : memref<8xf16, "ub"> -> memref<8xf16, "ub">
    tile.copy<8x8> %in5[%o0_m, %c0] -> %ub4 : memref<1x8xf16> -> memref<8x8xf16, "ub">
    tile.mul<8x8> %ub4, %ub4 -> %ub6 : memref<8x8xf16, "ub">, memref<8x8xf16, "ub"> -> memref<8x8xf16, "ub">
    tile.copy<8x8> %ub4 -> %out7[%o0_m, %c0] : memref<8x8xf16, "ub"> -> memref<1x8xf16>
  }
  pipeline.for %k1 = %c0 to %end1 step %c1 num_stages = 5 {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_m = arith.muli %it1, %c8 : index
    tile.copy<8x8> %in10[%o1_m, %c0] -> %ub9 : memref<1x8xf32> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %in10[%o1_m, %c0] -> %ub11 : memref<1x8xf32> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %ub9 -> %out12[%o1_m, %c0] : memref<8x8xf32, "ub"> -> memref<1x8xf32>
  }
  func.return
}
