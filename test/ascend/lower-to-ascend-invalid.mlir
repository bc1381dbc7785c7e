// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-ascend

func.func @nonzero_l0c_fill() attributes {tile.target = "ascend910b"} {
  %one = arith.constant 1.0 : f32
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  // expected-error @+1 {{L0C can only be zero-initialized (mmad's init flag)}}
  tile.fill<16x16> %one -> %c : f32 -> memref<16x16xf32, "l0c">
  func.return
}

// -----

func.func @lonely_l0c_fill() attributes {tile.target = "ascend910b"} {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  // expected-error @+1 {{a fill of L0C must directly precede the mmads it initializes}}
  tile.fill<16x16> %zero -> %c : f32 -> memref<16x16xf32, "l0c">
  func.return
}

// -----

// Only ops that touch no buffer may stand between the fill and its mmads.
func.func @buffer_op_after_l0c_fill() attributes {tile.target = "ascend910b"} {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %a0 = memref.alloc() : memref<16x16xf16, "l0a">
  %b0 = memref.alloc() : memref<16x16xf16, "l0b">
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  %u = memref.alloc() : memref<16x16xf16, "ub">
  // expected-error @+1 {{a fill of L0C must directly precede the mmads it initializes}}
  tile.fill<16x16> %zero -> %c : f32 -> memref<16x16xf32, "l0c">
  tile.fill<16x16> %zero16 -> %u : f16 -> memref<16x16xf16, "ub">
  tile.gemm<16x16x16> %a0, %b0 -> %c : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
  func.return
}

// -----

func.func @transposed() attributes {tile.target = "ascend910b"} {
  %a0 = memref.alloc() : memref<16x16xf16, "l0a">
  %b0 = memref.alloc() : memref<16x16xf16, "l0b">
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  // expected-error @+1 {{transposed operands have no ascend lowering yet}}
  tile.gemm<16x16x16> %a0, %b0 -> %c transpose_a : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
  func.return
}
