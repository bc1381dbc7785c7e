// RUN: tile-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown target "sm_75" (known: ascend910b, ascend950, sm_80, sm_90)}}
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

// expected-error @+1 {{unknown tile dialect attribute 'tile.blocks'}}
func.func @misspelled() attributes {tile.blocks = 4 : i64} {
  func.return
}
