// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-ascend

// What the vector unit cannot compute as the tile level defines it is a located
// error at the tile op: reductions of rows that are not whole f32 blocks, of
// integers or of rank-3 tiles; casts the 910B's Cast does otherwise (saturating
// integer narrowing, the i32 -> f16 dequantization) or not at all; broadcasts of half.

func.func @reduce_ragged_rows() attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<16x12xf16, "ub">
  %r = memref.alloc() : memref<16xf16, "ub">
  // expected-error @+1 {{'tile.reduce' op has no exact Ascend form: reduces rows of 12 elements; the vector unit's exact order needs whole 32-byte blocks of f32, a multiple of 8}}
  tile.reduce<16x12> sum %u -> %r axis 1 : memref<16x12xf16, "ub"> -> memref<16xf16, "ub">
  func.return
}

// -----

func.func @reduce_integers() attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<16x16xi32, "ub">
  %r = memref.alloc() : memref<16xi32, "ub">
  // expected-error @+1 {{'tile.reduce' op has no exact Ascend form: reduces i32 elements; the vector unit's block reductions take half and float (bf16 through f32)}}
  tile.reduce<16x16> max %u -> %r axis 1 : memref<16x16xi32, "ub"> -> memref<16xi32, "ub">
  func.return
}

// -----

func.func @reduce_rank3() attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<2x8x8xf32, "ub">
  %r = memref.alloc() : memref<2x8xf32, "ub">
  // expected-error @+1 {{reduces a rank-3 tile; the vector unit reduces 1-d and 2-d tiles}}
  tile.reduce<2x8x8> sum %u -> %r axis 2 : memref<2x8x8xf32, "ub"> -> memref<2x8xf32, "ub">
  func.return
}

// -----

func.func @cast_narrowing_integers() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xi32, "ub">
  %b = memref.alloc() : memref<64xi16, "ub">
  // expected-error @+1 {{'tile.cast' op has no exact Ascend form: the vector unit's Cast saturates i32 -> i16, where tile.cast truncates (wraps)}}
  tile.cast<64> %a -> %b : memref<64xi32, "ub"> -> memref<64xi16, "ub">
  func.return
}

// -----

func.func @cast_dequantization() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xi32, "ub">
  %b = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{the vector unit's Cast i32 -> f16 is a dequantization (SetDeqScale), not a rounding}}
  tile.cast<64> %a -> %b : memref<64xi32, "ub"> -> memref<64xf16, "ub">
  func.return
}

// -----

func.func @cast_without_instruction() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xf16, "ub">
  %b = memref.alloc() : memref<64xbf16, "ub">
  // expected-error @+1 {{the 910B-class vector unit has no Cast f16 -> bf16}}
  tile.cast<64> %a -> %b : memref<64xf16, "ub"> -> memref<64xbf16, "ub">
  func.return
}

// -----

func.func @broadcast_half() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<8xf16, "ub">
  %b = memref.alloc() : memref<8x64xf16, "ub">
  // expected-error @+1 {{broadcasts f16 elements; the vector unit broadcasts f32 (Brcb and the exact Adds copy)}}
  tile.broadcast<8x64> %a -> %b axis 1 : memref<8xf16, "ub"> -> memref<8x64xf16, "ub">
  func.return
}
