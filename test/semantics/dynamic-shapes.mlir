// Dynamic shapes reaching tile-run: each bad one is one located diagnostic, exit 1.
// RUN: not tile-run %s --index-arg n=1 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tile-run %s --index-arg n=1 --shape X=0x8 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not tile-run %s --index-arg n=1 --shape X=-3x8 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not tile-run %s --index-arg n=1 --shape X=4x8x2 2>&1 | filecheck %s --check-prefix=RANK
// RUN: not tile-run %s --index-arg n=1 --shape X=4x9 2>&1 | filecheck %s --check-prefix=STATIC
// RUN: not tile-run %s --index-arg n=1 --shape X=4x8 --shape n=3 2>&1 | filecheck %s --check-prefix=SCALAR
// RUN: not tile-run %s --index-arg n=0 --shape X=4x8 2>&1 | filecheck %s --check-prefix=GRID
// RUN: not tile-run %s --shape X=4x8 2>&1 | filecheck %s --check-prefix=NOARG
// RUN: not tile-run %s --shape X=4by8 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not tile-run %s --index-arg n=99999999999999999999 --shape X=4x8 2>&1 | filecheck %s --check-prefix=WIDE
// RUN: not tile-run %s --index-arg n=1 --shape X=99999999999999999999x8 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not tile-run %s --index-arg n=1 --shape X=4x8 --shape X=5x8 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tile-run %s --index-arg n=1 --index-arg n=2 --shape X=4x8 2>&1 | filecheck %s --check-prefix=TWICE-ARG
// RUN: tile-run %s --index-arg n=2 --shape X=5x8 | filecheck %s --check-prefix=OUT

// A 4x8 tile per block over a 5-row X: block 1's tile reaches 3 rows past the end;
// it reads zeros there (tile.add adds 1 to them) and its writes there are dropped.
func.func @boundary(%X: memref<?x8xf32>, %n: index) attributes {tile.threads = 32 : i64} {
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.000000e+00 : f32
  // GRID: dynamic-shapes.mlir:[[# @LINE + 1]]:3: error: 'tile.grid_dims' op grid extent along x is 0 for these arguments; it must be positive
  tile.grid_dims %n
  %bx = tile.block_id x
  %r0 = arith.muli %bx, %c4 : index
  %t = memref.alloc() : memref<4x8xf32, "shared">
  %ones = memref.alloc() : memref<4x8xf32, "shared">
  tile.fill<4x8> %one -> %ones : f32 -> memref<4x8xf32, "shared">
  tile.copy<4x8> %X[%r0, %c0] -> %t : memref<?x8xf32> -> memref<4x8xf32, "shared">
  tile.add<4x8> %t, %ones -> %t : memref<4x8xf32, "shared">, memref<4x8xf32, "shared"> -> memref<4x8xf32, "shared">
  tile.copy<4x8> %t -> %X[%r0, %c0] : memref<4x8xf32, "shared"> -> memref<?x8xf32>
  func.return
}
// MISSING: dynamic-shapes.mlir:[[# @LINE - 16]]:1: error: 'func.func' op argument %X : memref<?x8xf32> needs a shape (shapes / --shape X=D0xD1, or an input array)
// ZERO: dynamic-shapes.mlir:[[# @LINE - 17]]:1: error: 'func.func' op size 0 of dimension 0 of %X must be positive
// NEGATIVE: dynamic-shapes.mlir:[[# @LINE - 18]]:1: error: 'func.func' op size -3 of dimension 0 of %X must be positive
// RANK: dynamic-shapes.mlir:[[# @LINE - 19]]:1: error: 'func.func' op the shape of 'X' is (4, 8, 2), the argument is memref<?x8xf32>
// STATIC: dynamic-shapes.mlir:[[# @LINE - 20]]:1: error: 'func.func' op the shape of 'X' is (4, 9), the argument is memref<?x8xf32>
// SCALAR: dynamic-shapes.mlir:[[# @LINE - 21]]:1: error: 'func.func' op argument %n : index has no shape to give
// NOARG: dynamic-shapes.mlir:[[# @LINE - 22]]:1: error: 'func.func' op argument %n : index needs a value (index_args / --index-arg n=VALUE)
// WIDE: dynamic-shapes.mlir:[[# @LINE - 23]]:1: error: 'func.func' op value 99999999999999999999 of argument %n : index does not fit in 64 bits
// HUGE: dynamic-shapes.mlir:[[# @LINE - 24]]:1: error: 'func.func' op %X of shape 99999999999999999999x8 is too large for the interpreter's memory
// TWICE: tile-run: error: argument --shape: 'X' is given twice
// TWICE-ARG: tile-run: error: argument --index-arg: 'n' is given twice
// SYNTAX: error: argument --shape: expected NAME=D0xD1..., e.g. A=1000x77, got 'X=4by8'
// OUT: %X: 5x8xf32
// Every element of the 5 rows got +1: the seeded input in [-1, 1) moved to [0, 2).
// OUT-NOT: {{[ []-[0-9]}}
