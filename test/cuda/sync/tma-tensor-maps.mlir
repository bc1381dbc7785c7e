// sm_90a: tma-copy makes each bulk copy whose source is a kernel argument and whose
// tile is a whole slice of its shared buffer one tensor-map copy (`tensor_map`), and
// asks the arena for the alignment its box and swizzle need (128 bytes; the 8-row
// span of a 32/64/128-byte swizzle, rows over 128 bytes landing as 128-byte panels).  sm_90 keeps its row-wise bulk copies, and
// tma-copy{tensor_maps=false} falls back to them on sm_90a.  A copy that cannot be
// a tensor copy says why in a remark.

// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p pipeline-planning,tma-copy | filecheck %s
// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p pipeline-planning,tma-copy,inject-software-pipeline | filecheck %s --check-prefix=VERSIONED
// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p 'pipeline-planning,tma-copy{tensor_maps=false}' | filecheck %s --check-prefix=ROWS
// RUN: sed 's/"sm_80"/"sm_90"/' %examples/gemm.mlir | tile-opt - -p pipeline-planning,tma-copy | filecheck %s --check-prefix=ROWS
// RUN: tile-opt %s --split-input-file --verify-diagnostics -p pipeline-planning,tma-copy | filecheck %s --check-prefix=REMARK

// 128-byte rows of A: the 128B swizzle, 1024-byte aligned; 256-byte rows of B: two
// 128-byte panels in the 128B swizzle, 1024-byte aligned too.
// CHECK-LABEL: func.func @gemm
// CHECK:         %A_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<128x64xf16, "shared">
// CHECK-NEXT:    %B_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<64x128xf16, "shared">
// CHECK:         pipeline.for
// CHECK:           pipeline.bulk_copy<128x64> tensor_map %A[%m0, %k0] -> %A_s, %tma_bars[%{{.*}}]
// CHECK-NEXT:      pipeline.bulk_copy<64x128> tensor_map %B[%k0, %n0] -> %B_s, %tma_bars[%{{.*}}]
// CHECK-NEXT:      pipeline.mbarrier_arrive_expect_tx %tma_bars[%{{.*}}], bytes = 32768

// Multi-buffering keeps what each buffer asked of the arena.
// VERSIONED-LABEL: func.func @gemm
// VERSIONED:         %A_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<3x128x64xf16, "shared">
// VERSIONED-NEXT:    %B_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<3x64x128xf16, "shared">
// VERSIONED:         pipeline.bulk_copy<128x64> tensor_map %A[%{{.*}}] -> %A_s[%{{.*}}, %c0, %c0]

// ROWS-LABEL: func.func @gemm
// ROWS-NOT:     arena.swizzle
// ROWS-NOT:     tensor_map
// ROWS:         pipeline.bulk_copy<128x64> %A[%m0, %k0] -> %A_s
// ROWS-NOT:     tensor_map

func.func @half_a_buffer(%A: memref<256x256xf16>, %C: memref<64x128xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x128xf16, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    // expected-remark @+1 {{bulk copy without a tensor map: its shared tile is not a whole slice of its buffer (a box lands contiguously); copied row by row}}
    tile.copy<64x64> %A[%c0, %k0] -> %s[%c0, %c64] : memref<256x256xf16> -> memref<64x128xf16, "shared">
    tile.copy<64x128> %s -> %C : memref<64x128xf16, "shared"> -> memref<64x128xf16>
  }
  func.return
}
// REMARK-LABEL: func.func @half_a_buffer
// REMARK:         pipeline.bulk_copy<64x64> %A[%c0, %k0] -> %s[%c0, %c64]

// -----

func.func @from_a_view(%A: memref<256x256xf16>, %C: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %V = memref.subview %A[0, 0] [128, 256] [1, 1] : memref<256x256xf16> to memref<128x256xf16, strided<[256, 1]>>
  %s = memref.alloc() : memref<64x64xf16, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    // expected-remark @+1 {{bulk copy without a tensor map: its source is not a kernel argument (a map describes a whole argument); copied row by row}}
    tile.copy<64x64> %V[%c0, %k0] -> %s : memref<128x256xf16, strided<[256, 1]>> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %s -> %C : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  }
  func.return
}
// REMARK-LABEL: func.func @from_a_view
// REMARK:         pipeline.bulk_copy<64x64> %V[%c0, %k0] -> %s

// -----

// The Hopper path is the default on sm_90a: a global -> shared copy that stays
// cp.async says why.

func.func @narrow_rows(%A: memref<64x96xf16>, %C: memref<64x12xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %s = memref.alloc() : memref<64x12xf16, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c12 : index
    // expected-remark @+1 {{copy stays cp.async: its rows of 24 bytes are no multiple of 16}}
    tile.copy<64x12> %A[%c0, %k0] -> %s : memref<64x96xf16> -> memref<64x12xf16, "shared">
    tile.copy<64x12> %s -> %C : memref<64x12xf16, "shared"> -> memref<64x12xf16>
  }
  func.return
}

// -----

func.func @read_after_the_loop(%A: memref<256x64xf16>, %C: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    // expected-remark @+1 {{copy stays cp.async: nothing of its own iteration reads it, so no mbarrier wait of the iteration can land it}}
    tile.copy<64x64> %A[%k0, %c0] -> %s : memref<256x64xf16> -> memref<64x64xf16, "shared">
  }
  tile.copy<64x64> %s -> %C : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}

// -----

func.func @nested(%A: memref<256x64xf16>, %C: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  scf.for %r = %c0 to %c2 step %c1 {
    // expected-remark @+1 {{a pipelined loop inside another loop keeps cp.async copies: its mbarriers would be initialized again while they hold a phase}}
    pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy<64x64> %A[%k0, %c0] -> %s : memref<256x64xf16> -> memref<64x64xf16, "shared">
      tile.copy<64x64> %s -> %C : memref<64x64xf16, "shared"> -> memref<64x64xf16>
    }
  }
  func.return
}
