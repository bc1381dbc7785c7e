// Bad input found while reading a kernel is one located diagnostic with a message,
// the same in every driver (tilepipe/core/source.py).
// RUN: tile-opt %s --split-input-file --verify-diagnostics

// xDSL's message here is " in block definition": the token is named instead.
func.func @stray_token() {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %c0 step %c0 {
  }
  // expected-error @+1 {{unexpected ')' in block definition}}
  ) 
  func.return
}

// -----

func.func @twice() {
  func.return
}
// expected-error @+1 {{'func.func' op redefinition of symbol named 'twice' (first defined at}}
func.func @twice() {
  func.return
}

// -----

// The first token is lexed before any op is parsed: a bad one is located too (it was
// an internal error).
// expected-error @+1 {{@ identifier expected to start with letter, '_', or '"'.}}
@/ func.func @k()

// -----

// A value defined nowhere is reported at its first use, as MLIR does, not at the end
// of the input as one list of names.
func.func @never_defined(%a: i32) -> i32 {
  // expected-error @+1 {{use of undeclared SSA value %missing}}
  %b = arith.addi %a, %missing : i32
  %c = arith.addi %b, %also_missing : i32
  func.return %c : i32
}

// -----

// A value used in a block its definition does not dominate (a CFG, as at the llvm
// level; uses in blocks it dominates read back, llvm-level.mlir).
llvm.func @not_dominated(%arg0: i1) {
  llvm.cond_br %arg0, ^bb1, ^bb2
^bb1:
  %0 = llvm.mlir.constant(1 : i32) : i32
  llvm.br ^bb2
^bb2:
  // expected-error @+1 {{'llvm.add' op operand #0 does not dominate this use}}
  %1 = llvm.add %0, %0 : i32
  llvm.return
}
