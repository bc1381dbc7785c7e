// RUN: tile-opt %s --split-input-file --verify-diagnostics
// Malformed tile-size declarations (tile.tune and the numbers that name a parameter).

// expected-error @+1 {{'tile.tune' must be a dictionary of candidate lists, e.g. {block_M = [64, 128]}}}
func.func @not_a_dictionary() attributes {tile.tune = [64, 128]} {
  func.return
}

// -----

// expected-error @+1 {{'tile.tune' candidates of 'block_K' must be a non-empty list of distinct positive integers, got [0 : i64, 64 : i64]}}
func.func @zero_candidate() attributes {tile.tune = {block_K = [0, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  func.return
}

// -----

// expected-error @+1 {{'tile.tune' candidates of 'block_K' must be a non-empty list of distinct positive integers, got []}}
func.func @no_candidates() attributes {tile.tune = {block_K = []}} {
  func.return
}

// -----

func.func @undeclared() attributes {tile.tune = {block_K = [32, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  // expected-error @+1 {{'tile.param' names 'block_M', which the kernel's 'tile.tune' does not declare (declared: block_K)}}
  %m = arith.constant {tile.param = "block_M"} 128 : index
  func.return
}

// -----

func.func @param_on_a_float() attributes {tile.tune = {block_K = [32, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  // expected-error @+1 {{'tile.tiles_of' belongs on an index arith.constant}}
  %f = arith.constant {tile.tiles_of = "block_K"} 1.0 : f32
  func.return
}

// -----

func.func @dims_of_wrong_rank() attributes {tile.tune = {block_K = [32, 64]}} {
  // expected-error @+1 {{'tile.dims' names 1 dimensions, but the op has 2 dimensions}}
  %a = memref.alloc() {tile.dims = ["block_K"]} : memref<128x64xf16, "shared">
  func.return
}

// -----

func.func @dims_on_a_constant() attributes {tile.tune = {block_K = [32, 64]}} {
  // expected-error @+1 {{'tile.dims' belongs on a memref.alloc or a tile op}}
  %k = arith.constant {tile.dims = ["block_K"]} 64 : index
  func.return
}

// -----

func.func @two_defaults() attributes {tile.tune = {block_K = [32, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  // expected-error @+1 {{is written with block_K = 32 (dimension 1), but with block_K = 64 at 'arith.constant' before: a parameter has one value in the kernel as written}}
  %a = memref.alloc() {tile.dims = ["", "block_K"]} : memref<128x32xf16, "shared">
  func.return
}

// -----

// expected-error @+1 {{'tile.tune' declares 'block_N', but nothing in the kernel names it}}
func.func @unused() attributes {tile.tune = {block_K = [32, 64], block_N = [64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  func.return
}

// -----

// expected-error @+1 {{'tile.tune' declares 'block_K', but only tile counts name it: give its value with 'tile.param' or 'tile.dims'}}
func.func @only_counted() attributes {tile.tune = {block_K = [32, 64]}} {
  %n = arith.constant {tile.tiles_of = "block_K"} 16 : index
  func.return
}

// -----

// expected-error @+1 {{'tile.grid_tiles_of' names 1 dimensions, but the op has 2 grid dimensions}}
func.func @grid_of_wrong_rank() attributes {tile.grid = array<i64: 8, 8>, tile.tune = {block_M = [64, 128]}, tile.grid_tiles_of = ["block_M"]} {
  %m = arith.constant {tile.param = "block_M"} 128 : index
  func.return
}

// -----

// expected-error @+1 {{'tile.grid_tiles_of' belongs on a kernel with a 'tile.grid'}}
func.func @grid_without_grid() attributes {tile.tune = {block_M = [64, 128]}, tile.grid_tiles_of = ["block_M"]} {
  %m = arith.constant {tile.param = "block_M"} 128 : index
  func.return
}

// -----

func.func @param_and_count() attributes {tile.tune = {block_K = [32, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  // expected-error @+1 {{a number is a parameter ('tile.param') or a count of its tiles ('tile.tiles_of'), not both}}
  %n = arith.constant {tile.param = "block_K", tile.tiles_of = "block_K"} 64 : index
  func.return
}

// -----

func.func @dynamic_dimension(%m: index) attributes {tile.tune = {block_K = [32, 64]}} {
  %k = arith.constant {tile.param = "block_K"} 64 : index
  // expected-error @+1 {{'tile.dims' names 'block_K' for dimension 0, which is not a static size}}
  %a = memref.alloc(%m) {tile.dims = ["block_K", ""]} : memref<?x64xf16, "shared">
  func.return
}
