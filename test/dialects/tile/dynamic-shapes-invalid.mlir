// RUN: tile-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{'tile.divisibility' states that dimension 1 of %A is a multiple of 8, but its static size is 100}}
func.func @contradicts_static_shape(%A: memref<?x100xf16> {tile.divisibility = array<i64: 1, 8>}) {
  func.return
}

// -----

// expected-error @+1 {{'tile.divisibility' of %A : memref<?x?xf16> must be an array<i64> with one positive divisor per dimension (2)}}
func.func @wrong_length(%A: memref<?x?xf16> {tile.divisibility = array<i64: 8>}) {
  func.return
}

// -----

// expected-error @+1 {{'tile.divisibility' of %A: divisor 0 of dimension 0 must be positive}}
func.func @zero_divisor(%A: memref<?xf16> {tile.divisibility = array<i64: 0>}) {
  func.return
}

// -----

// expected-error @+1 {{'tile.divisibility' of %n : index must be a positive integer}}
func.func @scalar_divisor(%n: index {tile.divisibility = -2 : i64}) {
  func.return
}

// -----

// expected-error @+1 {{unknown tile dialect argument attribute 'tile.alignment' on argument #0 (known: tile.divisibility)}}
func.func @unknown_fact(%A: memref<?xf16> {tile.alignment = 16 : i64}) {
  func.return
}

// -----

func.func @grid_uses_block_id(%A: memref<?xf16>) {
  %bx = tile.block_id x
  // expected-error @+1 {{grid expression is not a function of the arguments: it depends on the 'tile.block_id' op}}
  tile.grid_dims %bx
  func.return
}

// -----

func.func @grid_uses_a_load(%sizes: memref<2xindex>) {
  %c0 = arith.constant 0 : index
  %n = memref.load %sizes[%c0] : memref<2xindex>
  // expected-error @+1 {{grid expression is not a function of the arguments: it depends on the 'memref.load' op}}
  tile.grid_dims %n
  func.return
}

// -----

func.func @grid_and_constant_grid(%n: index) attributes {tile.grid = array<i64: 4>} {
  // expected-error @+1 {{states the grid of a kernel that also has a constant 'tile.grid'}}
  tile.grid_dims %n
  func.return
}

// -----

func.func @two_grids(%n: index) {
  tile.grid_dims %n
  // expected-error @+1 {{a kernel has at most one 'tile.grid_dims'}}
  tile.grid_dims %n
  func.return
}

// -----

func.func @grid_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{must be in the entry block of a kernel function}}
    tile.grid_dims %i
  }
  func.return
}

// -----

func.func @four_extents(%n: index) {
  // expected-error @+1 {{expects 1 to 3 grid extents (x, y, z), got 4}}
  tile.grid_dims %n, %n, %n, %n
  func.return
}
