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
