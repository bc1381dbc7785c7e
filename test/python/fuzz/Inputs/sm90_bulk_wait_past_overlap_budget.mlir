// Fuzz seed 700607 (sm_90, December 2026 campaign): a steady-state TMA copy of an early
// loop and a gemm in a later loop's epilogue guard share arena bytes.  Every copy is
// landed by a wait before the gemm, but z3 gave up (resource limit) on the query with
// the byte-overlap terms, so thread-sync rejected the valid kernel; the query without
// them (every run of the copy is landed before every later run of the gemm) is decided.
// case: n=1
// case: n=5
// case: n=7
func.func @fuzz(%in2: memref<320x32xbf16>, %in5: memref<640xf32>, %out7: memref<320x32xbf16>, %in9: memref<320xf16>, %out11: memref<320xbf16>, %in13: memref<320x32xbf16>, %in15: memref<640x32xbf16>, %in17: memref<320xf32>, %in20: memref<320x32xf32>, %out23: memref<320x32xf32>, %out26: memref<320x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %v0 = arith.constant 0.000000e+00 : f32
  %v1 = arith.constant 2.000000e+00 : f32
  %acc0 = memref.alloc() : memref<16x32xf32, "fragment">
  %s1 = memref.alloc() : memref<16x32xbf16, "local">
  %s3 = memref.alloc() : memref<16xbf16, "shared">
  %s4 = memref.alloc() : memref<32xf32, "shared">
  %s6 = memref.alloc() : memref<32xf16, "shared">
  %s8 = memref.alloc() : memref<16xf16, "shared">
  %s10 = memref.alloc() : memref<16x32xf16, "local">
  %s12 = memref.alloc() : memref<16x32xbf16, "shared">
  %s14 = memref.alloc() : memref<32x32xbf16, "shared">
  %s16 = memref.alloc() : memref<16xf32, "local">
  %s18 = memref.alloc() : memref<16xf32, "shared">
  %s19 = memref.alloc() : memref<16x32xf32, "fragment">
  %s21 = memref.alloc() : memref<32xf32, "fragment">
  %s22 = memref.alloc() : memref<16x32xbf16, "fragment">
  %s24 = memref.alloc() : memref<16x32xf32, "shared">
  %s25 = memref.alloc() : memref<16x32xf32, "shared">
  %slot0 = arith.addi %c0, %c0 : index
  %ot_m = arith.muli %slot0, %c16 : index
  %span0 = arith.muli %n, %c3 : index
  %end0 = arith.addi %span0, %c1 : index
  %span1 = arith.muli %n, %c2 : index
  %end1 = arith.addi %span1, %c0 : index
  %span2 = arith.muli %n, %c1 : index
  %end2 = arith.addi %span2, %c0 : index
  tile.fill<16x32> %v0 -> %acc0 : f32 -> memref<16x32xf32, "fragment">
  tile.copy<16x32> %in2[%ot_m, %c0] -> %s1 : memref<320x32xbf16> -> memref<16x32xbf16, "local">
  tile.reduce<16x32> sum %s1 -> %s3 axis 1 : memref<16x32xbf16, "local"> -> memref<16xbf16, "shared">
  pipeline.for %k0 = %c1 to %end0 step %c3 num_stages = 5 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_n = arith.muli %it0, %c32 : index
    %o0_m = arith.muli %it0, %c16 : index
    tile.copy<32> %in5[%o0_n] -> %s4 : memref<640xf32> -> memref<32xf32, "shared">
    tile.cast<32> %s4 -> %s6 : memref<32xf32, "shared"> -> memref<32xf16, "shared">
    tile.copy<16x32> %s1 -> %out7[%o0_m, %c0] : memref<16x32xbf16, "local"> -> memref<320x32xbf16>
    tile.copy<16> %in9[%o0_m] -> %s8 : memref<320xf16> -> memref<16xf16, "shared">
    tile.broadcast<16x32> %s8 -> %s10 axis 1 : memref<16xf16, "shared"> -> memref<16x32xf16, "local">
  }
  pipeline.for %k1 = %c0 to %end1 step %c2 stage = [0, 0, 2, 2] order = [0, 1, 2, 3] {
    %it1 = arith.addi %slot0, %k1 : index
    %o1_m = arith.muli %it1, %c16 : index
    %o1_k = arith.muli %it1, %c32 : index
    tile.copy<16> %s3 -> %out11[%o1_m] : memref<16xbf16, "shared"> -> memref<320xbf16>
    tile.copy<16x32> %in13[%o1_m, %c0] -> %s12 : memref<320x32xbf16> -> memref<16x32xbf16, "shared">
    tile.copy<32x32> %in15[%o1_k, %c0] -> %s14 : memref<640x32xbf16> -> memref<32x32xbf16, "shared">
    tile.gemm<16x32x32> %s12, %s14 -> %acc0 : memref<16x32xbf16, "shared">, memref<32x32xbf16, "shared"> -> memref<16x32xf32, "fragment">
  }
  tile.copy<16> %in17[%ot_m] -> %s16 : memref<320xf32> -> memref<16xf32, "local">
  tile.copy<16> %s16 -> %s18 : memref<16xf32, "local"> -> memref<16xf32, "shared">
  pipeline.for %k2 = %c0 to %end2 step %c1 num_stages = 3 {
    %it2 = arith.addi %slot0, %k2 : index
    %o2_m = arith.muli %it2, %c16 : index
    tile.copy<16x32> %in20[%o2_m, %c0] -> %s19 : memref<320x32xf32> -> memref<16x32xf32, "fragment">
    tile.reduce<16x32> max %s19 -> %s21 axis 0 : memref<16x32xf32, "fragment"> -> memref<32xf32, "fragment">
    tile.copy<16x32> %in13[%o2_m, %c0] -> %s22 : memref<320x32xbf16> -> memref<16x32xbf16, "fragment">
    tile.exp<16x32> %s22 -> %s22 : memref<16x32xbf16, "fragment"> -> memref<16x32xbf16, "fragment">
    tile.copy<16x32> %s19 -> %out23[%o2_m, %c0] : memref<16x32xf32, "fragment"> -> memref<320x32xf32>
  }
  tile.fill<16x32> %v1 -> %s24 : f32 -> memref<16x32xf32, "shared">
  tile.copy<16x32> %acc0 -> %s25 : memref<16x32xf32, "fragment"> -> memref<16x32xf32, "shared">
  tile.copy<16x32> %s25 -> %out26[%ot_m, %c0] : memref<16x32xf32, "shared"> -> memref<320x32xf32>
  func.return
}
