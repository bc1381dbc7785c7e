// Bad kernels and inputs: one located diagnostic, exit status 1, never a traceback.
// RUN: not tile-run %s -f uninitialized 2>&1 | filecheck %s --check-prefix=UNINIT
// RUN: not tile-run %s -f token_twice 2>&1 | filecheck %s --check-prefix=TOKEN
// RUN: not tile-run %s -f never_initialized 2>&1 | filecheck %s --check-prefix=MBAR
// RUN: not tile-run %s -f deadlock 2>&1 | filecheck %s --check-prefix=DEADLOCK
// RUN: not tile-run %s -f out_of_bounds --index-arg row=40 2>&1 | filecheck %s --check-prefix=OOB
// RUN: not tile-run %s -f scalar_out_of_bounds --index-arg i=8 2>&1 | filecheck %s --check-prefix=LOAD
// RUN: not tile-run %s -f out_of_bounds 2>&1 | filecheck %s --check-prefix=NOARG
// RUN: not tile-run %s -f out_of_bounds --index-arg nosuch=1 2>&1 | filecheck %s --check-prefix=NONAME
// RUN: not tile-run %s -f division --index-arg d=0 2>&1 | filecheck %s --check-prefix=DIV
// RUN: not tile-run %s -f nosuch 2>&1 | filecheck %s --check-prefix=NOFUNC
// RUN: not tile-run %s 2>&1 | filecheck %s --check-prefix=SEVERAL
// RUN: not tile-run %s -f uninitialized --block 1 2>&1 | filecheck %s --check-prefix=BLOCK
// RUN: not tile-run %S/Inputs/parse_error.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not tile-run %s -f declaration 2>&1 | filecheck %s --check-prefix=DECL

func.func @uninitialized(%C: memref<64x32xf16>) attributes {tile.grid = array<i64: 1>} {
  %S = memref.alloc() : memref<64x32xf16, "shared">
  // UNINIT: errors.mlir:[[# @LINE + 1]]:3: error: 'tile.copy' op reads uninitialized memory: %S[0, 0] was never written (or an async copy into it has not been waited for)
  tile.copy<64x32> %S -> %C : memref<64x32xf16, "shared"> -> memref<64x32xf16>
  func.return
}

func.func @token_twice(%A: memref<64x32xf16>) attributes {tile.grid = array<i64: 1>} {
  %S = memref.alloc() : memref<64x32xf16, "shared">
  %t = pipeline.async_copy<64x32> %A -> %S : memref<64x32xf16> -> memref<64x32xf16, "shared">
  pipeline.commit_group [%t]
  // TOKEN: errors.mlir:[[# @LINE + 1]]:3: error: 'pipeline.commit_group' op commits a token that was already committed by the 'pipeline.commit_group' op at {{.*}}errors.mlir:[[# @LINE - 1]]:3 (a token is consumed once)
  pipeline.commit_group [%t]
  func.return
}

func.func @never_initialized() attributes {tile.grid = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  // MBAR: errors.mlir:[[# @LINE + 1]]:3: error: 'pipeline.mbarrier_wait_parity' op uses mbarrier %bars[1], which was never initialized
  pipeline.mbarrier_wait_parity %bars[%c1], %c0 : memref<2xi64, "shared">
  func.return
}

func.func @deadlock() attributes {tile.grid = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 2 : memref<1xi64, "shared">
  pipeline.mbarrier_arrive %bars[%c0] : memref<1xi64, "shared">
  // DEADLOCK: errors.mlir:[[# @LINE + 1]]:3: error: 'pipeline.mbarrier_wait_parity' op waits for phase 0 (parity 0) of mbarrier %bars[0], which can never complete: 1 arrival(s) and 0 transaction byte(s) missing (deadlock)
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  func.return
}

func.func @out_of_bounds(%A: memref<32x32xf16>, %row: index) attributes {tile.grid = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %S = memref.alloc() : memref<64x32xf16, "shared">
  // OOB: errors.mlir:[[# @LINE + 1]]:3: error: 'tile.copy' op region [40, 72) of %S is out of bounds in dimension 0 of size 64
  tile.copy<32x32> %A -> %S[%row, %c0] : memref<32x32xf16> -> memref<64x32xf16, "shared">
  func.return
}
// NOARG: errors.mlir:[[# @LINE - 7]]:1: error: 'func.func' op argument %row : index needs a value (index_args / --index-arg row=VALUE)
// NONAME: errors.mlir:[[# @LINE - 8]]:1: error: 'func.func' op has no argument named 'nosuch' (arguments: A, row)

func.func @scalar_out_of_bounds(%i: index) attributes {tile.grid = array<i64: 1>} {
  %x = memref.alloc() : memref<8xf32, "local">
  // LOAD: errors.mlir:[[# @LINE + 1]]:3: error: 'memref.load' op region [8, 9) of %x is out of bounds in dimension 0 of size 8
  %v = memref.load %x[%i] : memref<8xf32, "local">
  func.return
}

func.func @division(%d: index) attributes {tile.grid = array<i64: 1>} {
  %c1 = arith.constant 1 : index
  // DIV: errors.mlir:[[# @LINE + 1]]:3: error: 'arith.divui' op divides by zero
  %q = arith.divui %c1, %d : index
  func.return
}

// NOFUNC: error: no function named @nosuch
// SEVERAL: error: several kernels (@uninitialized, @token_twice, {{.*}}): name one to run
// BLOCK: error: 'func.func' op block (1,) is outside the grid (1,)
// PARSE: parse_error.mlir:3:20: error: Operation tile.bogus is not registered

// A declaration (the only function of a truncated file is run even without tile.grid).
// DECL: errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op is a declaration: tile-run runs functions whose body is one block
func.func private @declaration(memref<64xf32>)
