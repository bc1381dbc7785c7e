// RUN: tile-opt %s --split-input-file -p lower-to-ascend | filecheck %s

// Vector ops and copies by memory pair; the pipelined loop becomes scf.for.
// CHECK-LABEL: func.func @vector
// CHECK:      scf.for
// CHECK-NEXT:   ascend.data_copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
// CHECK-NEXT:   ascend.mul<64> %u, %u -> %u
// CHECK-NEXT:   ascend.exp<64> %u -> %u
// CHECK-NEXT:   ascend.duplicate<64> %h -> %u
// CHECK-NEXT:   ascend.max<64> %u, %u -> %u
// CHECK-NEXT:   ascend.data_copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
// CHECK-NEXT: }
// CHECK-NOT: tile.
func.func @vector(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 1.0 : f16
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
    tile.mul<64> %u, %u -> %u : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.fill<64> %h -> %u : f16 -> memref<64xf16, "ub">
    tile.max<64> %u, %u -> %u : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
  }
  func.return
}

// -----

// A boundary copy is marked ascend.boundary; the ascend.zero_tail that
// ascend-zero-boundary-tiles put after it is an emission op already and only drops the
// pipe and core annotations.
// CHECK-LABEL: func.func @ragged
// CHECK:      ascend.data_copy<64> %x[%off] -> %u {ascend.boundary} : memref<?xf16> -> memref<64xf16, "ub">
// CHECK-NEXT: ascend.zero_tail<64> %x[%off] -> %u : memref<?xf16> -> memref<64xf16, "ub">
// CHECK-NEXT: ascend.exp<64> %u -> %u
func.func @ragged(%x: memref<?xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 1 {
    %off = arith.muli %i, %c64 : index
    tile.copy<64> %x[%off] -> %u {ascend.pipe = #ascend<pipe MTE2>, ascend.core = "vector"} : memref<?xf16> -> memref<64xf16, "ub">
    ascend.zero_tail<64> %x[%off] -> %u {ascend.pipe = #ascend<pipe V>, ascend.core = "vector"} : memref<?xf16> -> memref<64xf16, "ub">
    tile.exp<64> %u -> %u {ascend.pipe = #ascend<pipe V>, ascend.core = "vector"} : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  }
  func.return
}

// -----

// L0C's zero fill folds into the init flag of the mmad: C = A*B in the first
// iteration, C += A*B after.
// CHECK-LABEL: func.func @cube
// CHECK-NOT:  fill
// CHECK:      scf.for %[[K:.*]] = %[[LB:.*]] to
// CHECK-NEXT:   %[[INIT:.*]] = arith.cmpi eq, %[[K]], %[[LB]] : index
// GM -> L1 is the ND -> NZ copy (the cube reads L1 in the NZ layout).
// CHECK:        ascend.data_copy_nd2nz<128x64> %A[%{{.*}}, %{{.*}}] -> %a1
// CHECK-NEXT:   ascend.load_data<128x64> %a1 -> %a0
// CHECK-NEXT:   ascend.mmad<128x128x64> %a0, %b0 -> %c init %[[INIT]]
// CHECK-NEXT: }
// CHECK-NEXT: ascend.fixpipe<128x128> %c -> %C
func.func @cube(%A: memref<128x256xf16>, %C: memref<128x128xf32>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %a1 = memref.alloc() : memref<128x64xf16, "l1">
  %a0 = memref.alloc() : memref<128x64xf16, "l0a">
  %b0 = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf32, "l0c">
  tile.fill<128x128> %zero -> %c : f32 -> memref<128x128xf32, "l0c">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<128x64> %A[%c0, %k0] -> %a1 : memref<128x256xf16> -> memref<128x64xf16, "l1">
    tile.copy<128x64> %a1 -> %a0 : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
    tile.gemm<128x128x64> %a0, %b0 -> %c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  tile.copy<128x128> %c -> %C : memref<128x128xf32, "l0c"> -> memref<128x128xf32>
  func.return
}

// -----

// Without a loop the fill makes the next mmad overwrite C.
// CHECK-LABEL: func.func @straight
// CHECK:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: ascend.mmad<16x16x16> %a0, %b0 -> %c init %[[TRUE]]
func.func @straight() attributes {tile.target = "ascend910b"} {
  %zero = arith.constant 0.0 : f32
  %a0 = memref.alloc() : memref<16x16xf16, "l0a">
  %b0 = memref.alloc() : memref<16x16xf16, "l0b">
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  tile.fill<16x16> %zero -> %c : f32 -> memref<16x16xf32, "l0c">
  tile.gemm<16x16x16> %a0, %b0 -> %c : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
  func.return
}

// -----

// Pure index math between the fill and its loop (the dynamic bound) takes no
// statement slot: the fill still folds into the loop's first mmad.
// CHECK-LABEL: func.func @bound_after_fill
// CHECK-NOT:  fill
// CHECK:      %[[UB:.*]] = arith.addi %n, %{{.*}} : index
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %[[UB]]
// CHECK-NEXT:   %[[INIT:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-NEXT:   ascend.mmad<16x16x16> %a0, %b0 -> %c init %[[INIT]]
func.func @bound_after_fill(%n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a0 = memref.alloc() : memref<16x16xf16, "l0a">
  %b0 = memref.alloc() : memref<16x16xf16, "l0b">
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  tile.fill<16x16> %zero -> %c : f32 -> memref<16x16xf32, "l0c">
  %ub = arith.addi %n, %c1 : index
  pipeline.for %k = %c0 to %ub step %c1 num_stages = 1 {
    tile.gemm<16x16x16> %a0, %b0 -> %c : memref<16x16xf16, "l0a">, memref<16x16xf16, "l0b"> -> memref<16x16xf32, "l0c">
  }
  func.return
}
