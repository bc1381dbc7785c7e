// RUN: tile-opt %s --split-input-file --verify-diagnostics

// tile.cast leaves the chip only as the fixpipe's converting move: l0c f32 -> gm/l1.
func.func @cast_ub_to_gm(%y: memref<64xf32>) attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{casts ub -> global: a cast leaves the chip only as the fixpipe's converting move, l0c -> gm or l1}}
  tile.cast<64> %a -> %y : memref<64xf16, "ub"> -> memref<64xf32>
  func.return
}

// -----

func.func @cast_l0c_to_integer(%y: memref<16x16xi32>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  // expected-error @+1 {{the fixpipe converts f32 to f16, bf16 or f32, not f32 -> i32}}
  tile.cast<16x16> %c -> %y : memref<16x16xf32, "l0c"> -> memref<16x16xi32>
  func.return
}

// -----

func.func @cast_l0c_to_ub() attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  %u = memref.alloc() : memref<16x16xf16, "ub">
  // expected-error @+1 {{casts l0c -> ub: a cast leaves the chip only as the fixpipe's converting move, l0c -> gm or l1}}
  tile.cast<16x16> %c -> %u : memref<16x16xf32, "l0c"> -> memref<16x16xf16, "ub">
  func.return
}

// -----

// The ascend ops check what the vector unit does exactly.
func.func @ascend_cast_pair() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xi64, "ub">
  %b = memref.alloc() : memref<64xi32, "ub">
  // expected-error @+1 {{the vector unit's Cast saturates i64 -> i32, where tile.cast truncates (wraps)}}
  ascend.cast<64> %a -> %b : memref<64xi64, "ub"> -> memref<64xi32, "ub">
  func.return
}

// -----

func.func @ascend_reduce_long_rows() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<256x8xf32, "ub">
  %b = memref.alloc() : memref<256xf32, "ub">
  // expected-error @+1 {{reduces a 256x8 tile along its rows; the strided vector calls take at most 255 rows of at most 2040 elements}}
  ascend.reduce<256x8> sum %a -> %b axis 1 : memref<256x8xf32, "ub"> -> memref<256xf32, "ub">
  func.return
}

// -----

func.func @ascend_reduce_in_l1() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<8x8xf32, "l1">
  %b = memref.alloc() : memref<8xf32, "ub">
  // expected-error @+1 {{src may not live in l1 memory (legal: ub)}}
  ascend.reduce<8x8> sum %a -> %b axis 1 : memref<8x8xf32, "l1"> -> memref<8xf32, "ub">
  func.return
}

// -----

func.func @ascend_div_integers() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xi32, "ub">
  // expected-error @+1 {{ascend.div needs a float element type, got i32}}
  ascend.div<64> %a, %a -> %a : memref<64xi32, "ub">, memref<64xi32, "ub"> -> memref<64xi32, "ub">
  func.return
}
