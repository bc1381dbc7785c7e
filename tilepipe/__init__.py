"""tilepipe: a compiler for software-pipelined tile programs, on xDSL."""

__version__ = "0.1.0"
