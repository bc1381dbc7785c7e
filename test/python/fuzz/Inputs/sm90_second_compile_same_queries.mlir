// Fuzz seed 431135 (sm_90, session 7 NVVM sweep): accepted by a first compile, rejected by a
// second compile in the same process ("no mbarrier wait lands on every path": a bulk-copy
// coverage query ended unknown within z3's resource limit under the second compile's
// variable names, taken from a process-wide counter).  Each query now names its own.
// About 45 s per compile (its coverage queries are hard: %n-dependent bounds, step 2 and 3,
// num_stages 5): test_query_names.py runs it with TILEPIPE_SLOW_REGRESSIONS=1.
// check: python -m tilepipe.fuzz.check K.mlir
// case: n=0
// case: n=1
// case: n=2
func.func @fuzz(%in1: memref<224x32xf32>, %in4: memref<448xf32>, %in6: memref<224x32xbf16>, %out8: memref<224x32xbf16>, %in10: memref<224x32xf16>, %in13: memref<448xbf16>, %in16: memref<224xf16>, %out19: memref<448xbf16>, %in21: memref<224x32xf32>, %out23: memref<224x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 2>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %v0 = arith.constant -5.000000e-01 : f16
  %bid = tile.block_id x
  %s0 = memref.alloc() : memref<16x32xf32, "shared">
  %s2 = memref.alloc() : memref<16x32xbf16, "shared">
  %s3 = memref.alloc() : memref<32xf32, "shared">
  %s5 = memref.alloc() : memref<16x32xbf16, "local">
  %s7 = memref.alloc() : memref<16xbf16, "fragment">
  %s9 = memref.alloc() : memref<16x32xf16, "fragment">
  %s11 = memref.alloc() : memref<16x32xf16, "local">
  %s12 = memref.alloc() : memref<32xbf16, "shared">
  %s14 = memref.alloc() : memref<32xbf16, "fragment">
  %s15 = memref.alloc() : memref<16xf16, "shared">
  %s17 = memref.alloc() : memref<16x32xf16, "shared">
  %s18 = memref.alloc() : memref<16x32xf16, "fragment">
  %s20 = memref.alloc() : memref<16x32xf32, "shared">
  %s22 = memref.alloc() : memref<16x32xf32, "fragment">
  %slot0 = arith.muli %bid, %c7 : index
  %ot_m = arith.muli %slot0, %c16 : index
  %span1 = arith.muli %n, %c2 : index
  %end1 = arith.addi %span1, %c3 : index
  %span2 = arith.muli %n, %c3 : index
  %end2 = arith.addi %span2, %c3 : index
  pipeline.for %k0 = %c0 to %c7 step %c1 stage = [0, 0, 1, 1, 2, 2] order = [0, 1, 2, 3, 4, 5] {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_k = arith.muli %it0, %c16 : index
    %o0_n = arith.muli %it0, %c32 : index
    %o0_m = arith.muli %it0, %c16 : index
    tile.copy<16x32> %in1[%o0_k, %c0] -> %s0 : memref<224x32xf32> -> memref<16x32xf32, "shared">
    tile.cast<16x32> %s0 -> %s2 : memref<16x32xf32, "shared"> -> memref<16x32xbf16, "shared">
    tile.copy<32> %in4[%o0_n] -> %s3 : memref<448xf32> -> memref<32xf32, "shared">
    tile.copy<16x32> %in6[%o0_m, %c0] -> %s5 : memref<224x32xbf16> -> memref<16x32xbf16, "local">
    tile.reduce<16x32> sum %s5 -> %s7 axis 1 : memref<16x32xbf16, "local"> -> memref<16xbf16, "fragment">
    tile.copy<16x32> %s2 -> %out8[%o0_k, %c0] : memref<16x32xbf16, "shared"> -> memref<224x32xbf16>
  }
  tile.copy<16x32> %in10[%ot_m, %c0] -> %s9 : memref<224x32xf16> -> memref<16x32xf16, "fragment">
  tile.copy<16x32> %s9 -> %s11 : memref<16x32xf16, "fragment"> -> memref<16x32xf16, "local">
  pipeline.for %k1 = %c3 to %end1 step %c2 num_stages = 5 {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_n = arith.muli %it1, %c32 : index
    %o1_m = arith.muli %it1, %c16 : index
    tile.copy<32> %in13[%o1_n] -> %s12 : memref<448xbf16> -> memref<32xbf16, "shared">
    tile.exp<32> %s12 -> %s14 : memref<32xbf16, "shared"> -> memref<32xbf16, "fragment">
    tile.copy<16> %in16[%o1_m] -> %s15 : memref<224xf16> -> memref<16xf16, "shared">
    tile.broadcast<16x32> %s15 -> %s17 axis 1 : memref<16xf16, "shared"> -> memref<16x32xf16, "shared">
    tile.fill<16x32> %v0 -> %s18 : f16 -> memref<16x32xf16, "fragment">
    tile.copy<32> %s14 -> %out19[%o1_n] : memref<32xbf16, "fragment"> -> memref<448xbf16>
  }
  pipeline.for %k2 = %c3 to %end2 step %c3 num_stages = 3 {
    %it2 = arith.addi %slot0, %k2 : index
    %o2_m = arith.muli %it2, %c16 : index
    tile.copy<16x32> %in21[%o2_m, %c0] -> %s20 : memref<224x32xf32> -> memref<16x32xf32, "shared">
    tile.exp<16x32> %s20 -> %s22 : memref<16x32xf32, "shared"> -> memref<16x32xf32, "fragment">
    tile.copy<16x32> %s20 -> %out23[%o2_m, %c0] : memref<16x32xf32, "shared"> -> memref<224x32xf32>
  }
  func.return
}
