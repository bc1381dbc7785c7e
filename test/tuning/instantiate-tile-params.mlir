// RUN: tile-opt %s --split-input-file -p 'instantiate-tile-params{values="block_M=64,block_K=32"}' | filecheck %s
// RUN: tile-opt %s --split-input-file -p instantiate-tile-params | filecheck %s --check-prefix=DEFAULT
// A kernel rewritten at given tile sizes: parameter values, tile counts over a fixed
// extent, buffer and tile shapes, the grid; the declarations are dropped.  A
// parameter not given keeps the value the kernel is written at.

// CHECK-LABEL: func.func @copy_tiles
// CHECK-SAME:      attributes {tile.grid = array<i64: 16>, tile.target = "sm_80"} {
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %k_tiles = arith.constant 32 : index
// CHECK-NEXT:    %block_M = arith.constant 64 : index
// CHECK-NEXT:    %block_K = arith.constant 32 : index
// CHECK:         %A_s = memref.alloc() : memref<64x32xf16, "shared">
// CHECK-NEXT:    pipeline.for %ko = %c0 to %k_tiles step %c1 num_stages = 2 {
// CHECK-NEXT:      %k0 = arith.muli %ko, %block_K : index
// CHECK-NEXT:      tile.copy<64x32> %A[%m0, %k0] -> %A_s : memref<1024x1024xf16> -> memref<64x32xf16, "shared">
// CHECK-NOT:     tile.

// DEFAULT-LABEL: func.func @copy_tiles
// DEFAULT-SAME:      attributes {tile.grid = array<i64: 8>, tile.target = "sm_80"} {
// DEFAULT:         %k_tiles = arith.constant 16 : index
// DEFAULT:         tile.copy<128x64> %A[%m0, %k0] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
func.func @copy_tiles(%A: memref<1024x1024xf16>)
    attributes {tile.grid = array<i64: 8>, tile.target = "sm_80",
                tile.tune = {block_M = [64, 128], block_K = [32, 64]},
                tile.grid_tiles_of = ["block_M"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k_tiles = arith.constant {tile.tiles_of = "block_K"} 16 : index
  %block_M = arith.constant {tile.param = "block_M"} 128 : index
  %block_K = arith.constant {tile.param = "block_K"} 64 : index
  %bx = tile.block_id x
  %m0 = arith.muli %bx, %block_M : index
  %A_s = memref.alloc() {tile.dims = ["block_M", "block_K"]} : memref<128x64xf16, "shared">
  pipeline.for %ko = %c0 to %k_tiles step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %block_K : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s {tile.dims = ["block_M", "block_K"]} : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
  }
  func.return
}

// -----

// A kernel without declarations is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// DEFAULT-LABEL: func.func @plain
func.func @plain() {
  %c4 = arith.constant 4 : index
  func.return
}
