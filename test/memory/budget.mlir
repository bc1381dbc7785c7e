// The budget check: one error on the kernel naming every buffer's versions x bytes,
// the arena, the target's budget and the knob that would fit.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p merge-shared-memory

// Versions from pipelining: the largest smaller num_stages that fits is found by
// re-packing with one version fewer per stage dropped.  The loop records depth 5, so
// A_shared (4 versions, tightened) and B_shared (3) are what depth 5 made of them; at
// num_stages = 4 they have 3 and 2: 160 KiB <= sm_80's 163 KiB.
// expected-error @+1 {{shared arena of 229376 bytes (224.0 KiB) exceeds the sm_80 budget of 166912 bytes (163.0 KiB) per block: A_shared 4 x 32768 B, B_shared 3 x 32768 B (no-reuse sum 229376 B, peak live 229376 B); num_stages = 4 fits (163840 B)}}
func.func @fewer_stages_fit(%G: memref<1024x1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %A_shared = memref.alloc() {pipeline.versions = 4 : i64} : memref<4x128x128xf16, "shared">
  %B_shared = memref.alloc() {pipeline.versions = 3 : i64} : memref<3x128x128xf16, "shared">
  scf.for %k = %c0 to %c16 step %c1 {
    %a = arith.remui %k, %c4 : index
    %b = arith.remui %k, %c3 : index
    tile.copy<128x128> %G[%c0, %c0] -> %A_shared[%a, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x128xf16, "shared">
    tile.copy<128x128> %G[%c0, %c0] -> %B_shared[%b, %c0, %c0] : memref<1024x1024xf16> -> memref<3x128x128xf16, "shared">
    tile.add<128x128> %A_shared[%a, %c0, %c0], %B_shared[%b, %c0, %c0] -> %A_shared[%a, %c0, %c0] : memref<4x128x128xf16, "shared">, memref<3x128x128xf16, "shared"> -> memref<4x128x128xf16, "shared">
  } {pipeline.depth = 5 : i64}
  func.return
}

// -----

// Nothing is versioned: only smaller tiles help.
// expected-error @+1 {{shared arena of 196608 bytes (192.0 KiB) exceeds the sm_80 budget of 166912 bytes (163.0 KiB) per block: X_shared 1 x 131072 B, Y_shared 1 x 65536 B (no-reuse sum 196608 B, peak live 196608 B); no smaller num_stages fits: reduce the tile size so that the arena loses at least 29696 B (largest buffer: X_shared, 131072 B)}}
func.func @tile_too_big(%G: memref<1024x1024xf32>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %X_shared = memref.alloc() : memref<256x128xf32, "shared">
  %Y_shared = memref.alloc() : memref<128x128xf32, "shared">
  tile.copy<256x128> %G[%c0, %c0] -> %X_shared : memref<1024x1024xf32> -> memref<256x128xf32, "shared">
  tile.copy<128x128> %G[%c0, %c0] -> %Y_shared : memref<1024x1024xf32> -> memref<128x128xf32, "shared">
  tile.copy<256x128> %X_shared -> %G[%c0, %c0] : memref<256x128xf32, "shared"> -> memref<1024x1024xf32>
  tile.copy<128x128> %Y_shared -> %G[%c0, %c0] : memref<128x128xf32, "shared"> -> memref<1024x1024xf32>
  func.return
}

// -----

// Even one stage is too much: the versioned buffer alone is 256 KiB at one version.
// expected-error @+1 {{shared arena of 524288 bytes (512.0 KiB) exceeds the sm_90 budget of 232448 bytes (227.0 KiB) per block: W_shared 2 x 262144 B (no-reuse sum 524288 B, peak live 524288 B); no smaller num_stages fits: reduce the tile size so that the arena loses at least 291840 B (largest buffer: W_shared, 524288 B)}}
func.func @no_depth_fits(%G: memref<1024x1024xf32>) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %W_shared = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x512x128xf32, "shared">
  tile.copy<512x128> %G[%c0, %c0] -> %W_shared[%c0, %c0, %c0] : memref<1024x1024xf32> -> memref<2x512x128xf32, "shared">
  func.return
}

// -----

// Reuse makes it fit: the same two 128 KiB buffers with disjoint lifetimes share bytes.
func.func @fits_by_reuse(%G: memref<1024x1024xf32>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %X_shared = memref.alloc() : memref<256x128xf32, "shared">
  %Y_shared = memref.alloc() : memref<256x128xf32, "shared">
  tile.copy<256x128> %G[%c0, %c0] -> %X_shared : memref<1024x1024xf32> -> memref<256x128xf32, "shared">
  tile.copy<256x128> %X_shared -> %G[%c0, %c0] : memref<256x128xf32, "shared"> -> memref<1024x1024xf32>
  tile.copy<256x128> %G[%c0, %c0] -> %Y_shared : memref<1024x1024xf32> -> memref<256x128xf32, "shared">
  tile.copy<256x128> %Y_shared -> %G[%c0, %c0] : memref<256x128xf32, "shared"> -> memref<1024x1024xf32>
  func.return
}
