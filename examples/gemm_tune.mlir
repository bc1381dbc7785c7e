// examples/gemm.mlir with two of its tile sizes declared as tuning candidates:
// `tile.tune` lists them (block_N stays 128), the kernel is written at one candidate
// of each (128x128x64), and every number that follows a tile size names it -- the
// constants (tile.param, or tile.tiles_of for a count of tiles over the 1024-wide
// problem), the on-chip buffers' and tile ops' dimensions (tile.dims; "" for a fixed
// one), the grid (tile.grid_tiles_of).
//
//   tilepipe tune examples/gemm_tune.mlir --target sm_80 --num-stages 1-5
//   tile-opt examples/gemm_tune.mlir -p 'instantiate-tile-params{values="block_M=64,block_K=128"}'
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                %C: memref<1024x1024xf32>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64,
                tile.target = "sm_80",
                tile.tune = {block_M = [64, 128], block_K = [64, 128]},
                tile.grid_tiles_of = ["", "block_M"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k_tiles = arith.constant {tile.tiles_of = "block_K"} 16 : index
  %block_M = arith.constant {tile.param = "block_M"} 128 : index
  %c128 = arith.constant 128 : index
  %block_K = arith.constant {tile.param = "block_K"} 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %block_M : index
  %n0 = arith.muli %bx, %c128 : index
  %A_s = memref.alloc() {tile.dims = ["block_M", "block_K"]} : memref<128x64xf16, "shared">
  %B_s = memref.alloc() {tile.dims = ["block_K", ""]} : memref<64x128xf16, "shared">
  %C_f = memref.alloc() {tile.dims = ["block_M", ""]} : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f {tile.dims = ["block_M", ""]} : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %k_tiles step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %block_K : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s {tile.dims = ["block_M", "block_K"]} : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %n0] -> %B_s {tile.dims = ["block_K", ""]} : memref<1024x1024xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f {tile.dims = ["block_M", "", "block_K"]} : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.copy<128x128> %C_f -> %C[%m0, %n0] {tile.dims = ["block_M", ""]} : memref<128x128xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}
