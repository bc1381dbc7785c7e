// RUN: tile-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown target "sm_75" (known: ascend910b, ascend950, sm_80, sm_90, sm_90a)}}
func.func @unknown_target() attributes {tile.target = "sm_75"} {
  func.return
}

// -----

// expected-error @+1 {{'tile.threads' must be a multiple of 32 (whole warps) and at most 1024, got 100}}
func.func @partial_warp() attributes {tile.threads = 100 : i64} {
  func.return
}

// -----

// expected-error @+1 {{'tile.grid' must be an array<i64> of 1 to 3 positive extents}}
func.func @empty_grid() attributes {tile.grid = array<i64: 0, 4>} {
  func.return
}

// -----

// expected-error @+1 {{'tile.warpgroup_mma' must be true or false}}
func.func @wgmma_switch_not_a_bool() attributes {tile.target = "sm_90a", tile.warpgroup_mma = 1 : i64} {
  func.return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.blocks'}}
func.func @misspelled() attributes {tile.blocks = 4 : i64} {
  func.return
}

// -----

// A target admits the memory spaces of its record: no Ascend buffer in a CUDA kernel.
func.func @ub_on_sm80(%G: memref<256xf16>) attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{'memref.alloc' op result #0 is in memory space "ub", which target 'sm_80' does not have (it has "global", "shared", "fragment", "local")}}
  %ub = memref.alloc() : memref<256xf16, "ub">
  func.return
}

// -----

// ... and no CUDA buffer in an Ascend kernel, arguments included.
// expected-error @+1 {{'func.func' op argument %S is in memory space "shared", which target 'ascend910b' does not have (it has "global", "gm", "l1", "l0a", "l0b", "l0c", "ub")}}
func.func @shared_on_ascend(%S: memref<256xf16, "shared">) attributes {tile.target = "ascend910b"} {
  func.return
}

// -----

// Values derived from a buffer are checked too (a view, a cast).
func.func @fragment_cast_on_ascend(%G: memref<256xf16, "gm">) attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{'memref.cast' op result #0 is in memory space "fragment", which target 'ascend910b' does not have}}
  %v = "memref.cast"(%G) : (memref<256xf16, "gm">) -> memref<?xf16, "fragment">
  func.return
}

// -----

// tile.kernel marks a function as a kernel: a unit attribute, nothing else.
// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @bad_marker() attributes {tile.kernel = 1 : i64} {
  func.return
}

// -----

// Registers are allocated when the kernel is compiled: a fragment's shape is static.
func.func @dynamic_fragment(%X: memref<?xf32>, %n: index) attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{'memref.alloc' op result #0 is a register fragment of dynamic shape memref<?xf32, "fragment">; registers need a static shape (allocate the largest tile instead)}}
  %F = memref.alloc(%n) : memref<?xf32, "fragment">
  func.return
}
