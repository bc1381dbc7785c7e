// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// Every tile op prints in its custom form and survives custom -> generic -> custom.

// CHECK-LABEL: func.func @copy
func.func @copy(%A: memref<1024x1024xf16>, %i: index, %k: index) {
  %s = memref.alloc() : memref<128x64xf16, "shared">
  // CHECK: tile.copy<128x64> %A[%i, %k] -> %s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
  tile.copy<128x64> %A[%i, %k] -> %s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
  // CHECK-NEXT: tile.copy<128x64> %s -> %A[%i, %k] : memref<128x64xf16, "shared"> -> memref<1024x1024xf16>
  tile.copy<128x64> %s -> %A[%i, %k] : memref<128x64xf16, "shared"> -> memref<1024x1024xf16>
  func.return
}

// -----

// A versioned buffer is accessed through a leading slot offset by the same tile.
// CHECK-LABEL: func.func @versioned_copy
func.func @versioned_copy(%A: memref<256x64xf16>, %slot: index) {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<3x128x64xf16, "shared">
  // CHECK: tile.copy<128x64> %A[%c0, %c0] -> %s[%slot, %c0, %c0] : memref<256x64xf16> -> memref<3x128x64xf16, "shared">
  tile.copy<128x64> %A[%c0, %c0] -> %s[%slot, %c0, %c0] : memref<256x64xf16> -> memref<3x128x64xf16, "shared">
  func.return
}

// -----

// CHECK-LABEL: func.func @gemm
func.func @gemm() {
  %a = memref.alloc() : memref<128x64xf16, "shared">
  %b = memref.alloc() : memref<64x128xf16, "shared">
  %bt = memref.alloc() : memref<128x64xbf16, "shared">
  %at = memref.alloc() : memref<64x128xbf16, "shared">
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // CHECK: tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  // CHECK-NEXT: tile.gemm<128x128x64> %at, %bt -> %c transpose_a transpose_b : memref<64x128xbf16, "shared">, memref<128x64xbf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.gemm<128x128x64> %at, %bt -> %c transpose_a transpose_b : memref<64x128xbf16, "shared">, memref<128x64xbf16, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

// CHECK-LABEL: func.func @fill_and_elementwise
func.func @fill_and_elementwise() {
  %zero = arith.constant 0.000000e+00 : f32
  %x = memref.alloc() : memref<64x64xf32, "fragment">
  %y = memref.alloc() : memref<64x64xf32, "fragment">
  %z = memref.alloc() : memref<64x64xf32, "shared">
  %h = memref.alloc() : memref<64x64xf16, "shared">
  // CHECK: tile.fill<64x64> %zero -> %x : f32 -> memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %x : f32 -> memref<64x64xf32, "fragment">
  // CHECK-NEXT: tile.add<64x64> %x, %y -> %z : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  tile.add<64x64> %x, %y -> %z : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  // CHECK-NEXT: tile.sub<64x64>
  tile.sub<64x64> %x, %y -> %z : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  // CHECK-NEXT: tile.mul<64x64>
  tile.mul<64x64> %x, %y -> %z : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  // CHECK-NEXT: tile.max<64x64>
  tile.max<64x64> %x, %y -> %z : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "shared">
  // CHECK-NEXT: tile.exp<64x64> %x -> %y : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.exp<64x64> %x -> %y : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  // CHECK-NEXT: tile.cast<64x64> %z -> %h : memref<64x64xf32, "shared"> -> memref<64x64xf16, "shared">
  tile.cast<64x64> %z -> %h : memref<64x64xf32, "shared"> -> memref<64x64xf16, "shared">
  func.return
}

// -----

// CHECK-LABEL: func.func @reduce
func.func @reduce() {
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  %r = memref.alloc() : memref<64xf32, "fragment">
  // CHECK: tile.reduce<64x32> sum %x -> %r axis 1 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  tile.reduce<64x32> sum %x -> %r axis 1 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  // CHECK-NEXT: tile.reduce<64x32> max %x -> %r axis 1
  tile.reduce<64x32> max %x -> %r axis 1 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

// A row statistic repeated over the rows of a fragment (axis 1), a column vector over
// the columns (axis 0), with offsets into a versioned source; division.
// CHECK-LABEL: func.func @broadcast_and_div
func.func @broadcast_and_div(%i: index) {
  %c0 = arith.constant 0 : index
  %v = memref.alloc() : memref<2x64xf32, "shared">
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  %y = memref.alloc() : memref<64x32xf32, "fragment">
  // CHECK: tile.broadcast<64x32> %v[%i, %c0] -> %x axis 1 : memref<2x64xf32, "shared"> -> memref<64x32xf32, "fragment">
  tile.broadcast<64x32> %v[%i, %c0] -> %x axis 1 : memref<2x64xf32, "shared"> -> memref<64x32xf32, "fragment">
  // CHECK-NEXT: tile.broadcast<64x32> %v[%i, %c0] -> %y axis 0 : memref<2x64xf32, "shared"> -> memref<64x32xf32, "fragment">
  tile.broadcast<64x32> %v[%i, %c0] -> %y axis 0 : memref<2x64xf32, "shared"> -> memref<64x32xf32, "fragment">
  // CHECK-NEXT: tile.div<64x32> %x, %y -> %x : memref<64x32xf32, "fragment">, memref<64x32xf32, "fragment"> -> memref<64x32xf32, "fragment">
  tile.div<64x32> %x, %y -> %x : memref<64x32xf32, "fragment">, memref<64x32xf32, "fragment"> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

// CHECK-LABEL: func.func @block_ids
func.func @block_ids() {
  // CHECK: %bx = tile.block_id x
  // CHECK-NEXT: %by = tile.block_id y
  // CHECK-NEXT: %bz = tile.block_id z
  %bx = tile.block_id x
  %by = tile.block_id y
  %bz = tile.block_id z
  func.return
}

// -----

// Ascend memory spaces.
// CHECK-LABEL: func.func @ascend_spaces
func.func @ascend_spaces(%x: memref<1024xf16, "gm">, %i: index) {
  %ub = memref.alloc() : memref<256xf16, "ub">
  // CHECK: tile.copy<256> %x[%i] -> %ub : memref<1024xf16, "gm"> -> memref<256xf16, "ub">
  tile.copy<256> %x[%i] -> %ub : memref<1024xf16, "gm"> -> memref<256xf16, "ub">
  func.return
}
