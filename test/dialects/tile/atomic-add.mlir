// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// tile.atomic_add accumulates an on-chip tile into global memory, one atomic update
// per element; it prints in its custom form and survives custom -> generic -> custom.

// CHECK-LABEL: func.func @split_k_accumulate
func.func @split_k_accumulate(%C: memref<256x256xf32>, %i: index, %j: index) {
  %acc = memref.alloc() : memref<64x64xf32, "fragment">
  // CHECK: tile.atomic_add<64x64> %acc -> %C[%i, %j] : memref<64x64xf32, "fragment"> -> memref<256x256xf32>
  tile.atomic_add<64x64> %acc -> %C[%i, %j] : memref<64x64xf32, "fragment"> -> memref<256x256xf32>
  func.return
}

// -----

// A shared source, a rank-4 destination touched by a 2-D tile (attention backward's
// dQ[b, rows, h, :]), f16 and i32 elements, a discardable attribute.
// CHECK-LABEL: func.func @dq_rows
func.func @dq_rows(%dQ: memref<2x128x4x64xf16>, %N: memref<?x64xi32>, %b: index, %r: index, %h: index) {
  %c0 = arith.constant 0 : index
  %dq = memref.alloc() : memref<32x64xf16, "shared">
  %n = memref.alloc() : memref<32x64xi32, "local">
  // CHECK: tile.atomic_add<32x64> %dq -> %dQ[%b, %r, %h, %c0] {note = "dq"} : memref<32x64xf16, "shared"> -> memref<2x128x4x64xf16>
  tile.atomic_add<32x64> %dq -> %dQ[%b, %r, %h, %c0] {note = "dq"} : memref<32x64xf16, "shared"> -> memref<2x128x4x64xf16>
  // CHECK: tile.atomic_add<32x64> %n -> %N[%r, %c0] : memref<32x64xi32, "local"> -> memref<?x64xi32>
  tile.atomic_add<32x64> %n -> %N[%r, %c0] : memref<32x64xi32, "local"> -> memref<?x64xi32>
  func.return
}

// -----

// Ascend: a UB tile added into GM.
// CHECK-LABEL: func.func @ascend_accumulate
func.func @ascend_accumulate(%G: memref<64x64xf32, "gm">, %i: index) {
  %c0 = arith.constant 0 : index
  %u = memref.alloc() : memref<16x64xf32, "ub">
  // CHECK: tile.atomic_add<16x64> %u -> %G[%i, %c0] : memref<16x64xf32, "ub"> -> memref<64x64xf32, "gm">
  tile.atomic_add<16x64> %u -> %G[%i, %c0] : memref<16x64xf32, "ub"> -> memref<64x64xf32, "gm">
  func.return
}
