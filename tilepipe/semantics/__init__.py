"""Executable semantics: the interpreter, the race detector and the equivalence harness."""
