// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// The dynamic-shape forms print and survive custom -> generic -> custom: dynamic global
// arrays, the tile.divisibility argument attribute and a grid stated by tile.grid_dims.

// CHECK-LABEL: func.func @grid_from_shapes
// CHECK-SAME: (%A: memref<?x?xf16> {tile.divisibility = array<i64: 1, 8>}, %n: index {tile.divisibility = 4 : i64})
func.func @grid_from_shapes(%A: memref<?x?xf16> {tile.divisibility = array<i64: 1, 8>},
                            %n: index {tile.divisibility = 4 : i64})
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %gx = arith.ceildivui %M, %c64 : index
  // CHECK: tile.grid_dims %gx, %n
  tile.grid_dims %gx, %n
  %bx = tile.block_id x
  %m0 = arith.muli %bx, %c64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // CHECK: tile.copy<64x64> %A[%m0, %c0] -> %s : memref<?x?xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %A[%m0, %c0] -> %s : memref<?x?xf16> -> memref<64x64xf16, "shared">
  func.return
}

// -----

// A tile reaching past a static global array is a boundary tile, not an error.
// CHECK-LABEL: func.func @boundary_tile
func.func @boundary_tile(%A: memref<100x100xf16>) {
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // CHECK: tile.copy<64x64> %A[%c64, %c64] -> %s : memref<100x100xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %A[%c64, %c64] -> %s : memref<100x100xf16> -> memref<64x64xf16, "shared">
  func.return
}
