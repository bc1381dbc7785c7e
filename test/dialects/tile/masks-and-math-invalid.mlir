// RUN: tile-opt %s --split-input-file --verify-diagnostics

// What the verifiers of tile.log/sqrt/rsqrt, tile.iota, tile.cmp and tile.select reject.

func.func @log_of_integers() {
  %x = memref.alloc() : memref<64xi32, "fragment">
  // expected-error @+1 {{tile.log needs a float element type, got i32}}
  tile.log<64> %x -> %x : memref<64xi32, "fragment"> -> memref<64xi32, "fragment">
  func.return
}

// -----

func.func @sqrt_of_integers() {
  %x = memref.alloc() : memref<64xi8, "shared">
  // expected-error @+1 {{tile.sqrt needs a float element type, got i8}}
  tile.sqrt<64> %x -> %x : memref<64xi8, "shared"> -> memref<64xi8, "shared">
  func.return
}

// -----

func.func @rsqrt_types() {
  %x = memref.alloc() : memref<64xf32, "fragment">
  %y = memref.alloc() : memref<64xf16, "fragment">
  // expected-error @+1 {{operands must have one element type, got f16, f32}}
  tile.rsqrt<64> %x -> %y : memref<64xf32, "fragment"> -> memref<64xf16, "fragment">
  func.return
}

// -----

func.func @rsqrt_global(%x: memref<64xf32>) {
  %y = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{src may not live in global memory}}
  tile.rsqrt<64> %x -> %y : memref<64xf32> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @iota_dim_out_of_range() {
  %zero = arith.constant 0.000000e+00 : f32
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{dim 2 is out of range for a 64x32 tile}}
  tile.iota<64x32> %zero -> %x dim 2 : f32 -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @iota_start_type() {
  %zero = arith.constant 0 : i32
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{value of type i32 does not match the element type f32}}
  tile.iota<64x32> %zero -> %x dim 0 : i32 -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @iota_of_i1() {
  %false = arith.constant false
  %x = memref.alloc() : memref<64xi1, "fragment">
  // expected-error @+1 {{tile.iota needs a float or 8- to 64-bit integer element type, got i1}}
  tile.iota<64> %false -> %x dim 0 : i1 -> memref<64xi1, "fragment">
  func.return
}

// -----

func.func @iota_global(%x: memref<64xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  // expected-error @+1 {{dst may not live in global memory}}
  tile.iota<64> %zero -> %x dim 0 : f32 -> memref<64xf32>
  func.return
}

// -----

func.func @iota_negative_dim() {
  %zero = arith.constant 0.000000e+00 : f32
  %x = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{Expected integer literal}}
  tile.iota<64> %zero -> %x dim -1 : f32 -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @cmp_predicate() {
  %x = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{unknown predicate 'olt' (expected eq, ne, lt, le, gt or ge)}}
  tile.cmp<64> olt %x, %x -> %x : memref<64xf32, "fragment">, memref<64xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @cmp_types() {
  %x = memref.alloc() : memref<64xf32, "fragment">
  %m = memref.alloc() : memref<64xi8, "fragment">
  // expected-error @+1 {{operands must have one element type, got f32, i8}}
  tile.cmp<64> lt %x, %x -> %m : memref<64xf32, "fragment">, memref<64xf32, "fragment"> -> memref<64xi8, "fragment">
  func.return
}

// -----

func.func @cmp_of_i1() {
  %x = memref.alloc() : memref<64xi1, "fragment">
  // expected-error @+1 {{tile.cmp needs a float or 8- to 64-bit integer element type, got i1}}
  tile.cmp<64> eq %x, %x -> %x : memref<64xi1, "fragment">, memref<64xi1, "fragment"> -> memref<64xi1, "fragment">
  func.return
}

// -----

func.func @select_types() {
  %m = memref.alloc() : memref<64xi8, "fragment">
  %x = memref.alloc() : memref<64xf32, "fragment">
  %y = memref.alloc() : memref<64xf16, "fragment">
  // expected-error @+1 {{operands must have one element type, got f16, f32}}
  tile.select<64> %m, %x, %y -> %x : memref<64xi8, "fragment">, memref<64xf32, "fragment">, memref<64xf16, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @select_mask_of_i1() {
  %m = memref.alloc() : memref<64xi1, "fragment">
  %x = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{the mask needs a float or 8- to 64-bit integer element type, got i1}}
  tile.select<64> %m, %x, %x -> %x : memref<64xi1, "fragment">, memref<64xf32, "fragment">, memref<64xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @select_of_i1() {
  %m = memref.alloc() : memref<64xi8, "fragment">
  %x = memref.alloc() : memref<64xi1, "fragment">
  // expected-error @+1 {{tile.select needs a float or 8- to 64-bit integer element type, got i1}}
  tile.select<64> %m, %x, %x -> %x : memref<64xi8, "fragment">, memref<64xi1, "fragment">, memref<64xi1, "fragment"> -> memref<64xi1, "fragment">
  func.return
}

// -----

func.func @select_mask_global(%m: memref<64xf32>) {
  %x = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{mask may not live in global memory}}
  tile.select<64> %m, %x, %x -> %x : memref<64xf32>, memref<64xf32, "fragment">, memref<64xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @select_mask_shape() {
  %m = memref.alloc() : memref<32xf32, "fragment">
  %x = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{mask region [0, 64) is out of bounds in dimension 0 of size 32}}
  tile.select<64> %m, %x, %x -> %x : memref<32xf32, "fragment">, memref<64xf32, "fragment">, memref<64xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}
