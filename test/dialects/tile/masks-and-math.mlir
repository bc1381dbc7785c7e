// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// The element-wise ops RMS norm, layer norm and masked attention need: logarithms,
// square roots, coordinates, comparisons and selections; each prints in its custom
// form and survives custom -> generic -> custom.

// CHECK-LABEL: func.func @log_sqrt_rsqrt
func.func @log_sqrt_rsqrt() {
  %x = memref.alloc() : memref<64x64xf32, "fragment">
  %y = memref.alloc() : memref<64x64xf32, "shared">
  %h = memref.alloc() : memref<2x64xf16, "ub">
  // CHECK: tile.log<64x64> %x -> %y : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  tile.log<64x64> %x -> %y : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  // CHECK-NEXT: tile.sqrt<64x64> %y -> %x : memref<64x64xf32, "shared"> -> memref<64x64xf32, "fragment">
  tile.sqrt<64x64> %y -> %x : memref<64x64xf32, "shared"> -> memref<64x64xf32, "fragment">
  // CHECK-NEXT: tile.rsqrt<2x64> %h -> %h : memref<2x64xf16, "ub"> -> memref<2x64xf16, "ub">
  tile.rsqrt<2x64> %h -> %h : memref<2x64xf16, "ub"> -> memref<2x64xf16, "ub">
  func.return
}

// -----

// Coordinates along either dimension, from a float or an integer start, into a
// region at offsets.
// CHECK-LABEL: func.func @iota
func.func @iota(%i: index) {
  %c0 = arith.constant 0 : index
  %start = arith.constant 0.000000e+00 : f32
  %first = arith.constant 16 : i32
  %x = memref.alloc() : memref<64x64xf32, "fragment">
  %n = memref.alloc() : memref<2x64x32xi32, "shared">
  // CHECK: tile.iota<64x64> %start -> %x dim 1 : f32 -> memref<64x64xf32, "fragment">
  tile.iota<64x64> %start -> %x dim 1 : f32 -> memref<64x64xf32, "fragment">
  // CHECK-NEXT: tile.iota<64x32> %first -> %n[%i, %c0, %c0] dim 0 : i32 -> memref<2x64x32xi32, "shared">
  tile.iota<64x32> %first -> %n[%i, %c0, %c0] dim 0 : i32 -> memref<2x64x32xi32, "shared">
  func.return
}

// -----

// A causal mask: row >= column as 1.0/0.0, then the scores where it holds and -inf
// elsewhere.
// CHECK-LABEL: func.func @causal_mask
func.func @causal_mask() {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %rows = memref.alloc() : memref<64x64xf32, "fragment">
  %cols = memref.alloc() : memref<64x64xf32, "fragment">
  %mask = memref.alloc() : memref<64x64xf32, "fragment">
  %s = memref.alloc() : memref<64x64xf32, "fragment">
  %neg = memref.alloc() : memref<64x64xf32, "fragment">
  tile.iota<64x64> %zero -> %rows dim 0 : f32 -> memref<64x64xf32, "fragment">
  tile.iota<64x64> %zero -> %cols dim 1 : f32 -> memref<64x64xf32, "fragment">
  tile.fill<64x64> %ninf -> %neg : f32 -> memref<64x64xf32, "fragment">
  // CHECK: tile.cmp<64x64> ge %rows, %cols -> %mask : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.cmp<64x64> ge %rows, %cols -> %mask : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  // CHECK-NEXT: tile.select<64x64> %mask, %s, %neg -> %s : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.select<64x64> %mask, %s, %neg -> %s : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// Every predicate; a mask of another element type than the values it selects, at
// offsets.
// CHECK-LABEL: func.func @predicates_and_masks
func.func @predicates_and_masks(%i: index) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<32xi16, "shared">
  %b = memref.alloc() : memref<32xi16, "shared">
  %m = memref.alloc() : memref<2x32xi8, "shared">
  %x = memref.alloc() : memref<32xbf16, "shared">
  // CHECK: tile.cmp<32> eq %a, %b -> %a
  tile.cmp<32> eq %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.cmp<32> ne %a, %b -> %a
  tile.cmp<32> ne %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.cmp<32> lt %a, %b -> %a
  tile.cmp<32> lt %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.cmp<32> le %a, %b -> %a
  tile.cmp<32> le %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.cmp<32> gt %a, %b -> %a
  tile.cmp<32> gt %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.cmp<32> ge %a, %b -> %a
  tile.cmp<32> ge %a, %b -> %a : memref<32xi16, "shared">, memref<32xi16, "shared"> -> memref<32xi16, "shared">
  // CHECK-NEXT: tile.select<32> %m[%i, %c0], %x, %x -> %x : memref<2x32xi8, "shared">, memref<32xbf16, "shared">, memref<32xbf16, "shared"> -> memref<32xbf16, "shared">
  tile.select<32> %m[%i, %c0], %x, %x -> %x : memref<2x32xi8, "shared">, memref<32xbf16, "shared">, memref<32xbf16, "shared"> -> memref<32xbf16, "shared">
  func.return
}
