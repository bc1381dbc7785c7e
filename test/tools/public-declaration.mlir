// A function declaration must be private, as upstream's symbol verifier requires; xDSL
// accepts a public one, so tilepipe reports it before any upstream step (fuzzed
// malformed input: a duplicated line made a kernel's signature a declaration).
// RUN: tile-opt %s --split-input-file --verify-diagnostics
// RUN: not tile-opt %s --split-input-file 2>&1 | filecheck %s

// CHECK: public-declaration.mlir:[[# @LINE + 2]]:1: error: 'func.func' op symbol declaration cannot have public visibility
// expected-error @+1 {{symbol declaration cannot have public visibility}}
func.func @host(index) -> index

// -----

func.func private @host(index) -> index
