"""Which ops the CUDA flow can hand to upstream MLIR.

tilepipe reads kernels with all of xDSL's dialects registered, and some of them
(``test``, ``riscv``, ``csl``, ``x86``, ...) do not exist in upstream MLIR.  Such an op
passes through tilepipe's passes untouched and reaches upstream's parser, whose error
points into the anonymous buffer tilepipe printed (``-:6:25``), not into the user's
file.  The CUDA flow therefore checks, before any pass runs (``tilepipe compile``) and
when ``lower-to-nvvm`` starts (``tile-opt -p lower-to-nvvm -t ptx``), that every op is
one ``lower-to-nvvm`` lowers (the ``tile`` and ``pipeline`` dialects) or one of a
dialect upstream MLIR registers, and reports the first other op at its own location.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tilepipe.core.diagnostics import Diagnostic, op_diagnostic

UPSTREAM_DIALECTS = frozenset(
    {
        "acc", "affine", "amdgpu", "amx", "arith", "arm_neon", "arm_sme", "arm_sve",
        "async", "bufferization", "builtin", "cf", "complex", "dlti", "emitc", "func",
        "gpu", "index", "irdl", "linalg", "llvm", "math", "memref", "ml_program", "mpi",
        "nvgpu", "nvvm", "omp", "pdl", "pdl_interp", "ptr", "quant", "rocdl", "scf",
        "shape", "shard", "smt", "sparse_tensor", "spirv", "tensor", "tosa", "transform",
        "ub", "vector", "wasmssa", "x86vector", "xegpu", "xevm",
    }
)
"""The dialects the upstream MLIR 22.1.8 Python bindings register (what
``mlir.ir.Context()`` parses; test/python/cuda/test_upstream_dialects.py checks the
list against the bindings)."""

LOWERED_BY_TILEPIPE = frozenset({"tile", "pipeline"})
"""The dialects ``lower-to-nvvm`` turns into upstream ops."""


def dialect_of(op: Operation) -> str:
    return op.name.split(".", 1)[0]


def op_upstream_lacks(root: Operation) -> Diagnostic | None:
    """The first op under ``root`` that neither ``lower-to-nvvm`` lowers nor upstream
    MLIR has, as a diagnostic at that op; ``None`` if there is none."""
    for op in root.walk():
        dialect = dialect_of(op)
        if dialect in UPSTREAM_DIALECTS or dialect in LOWERED_BY_TILEPIPE:
            continue
        return op_diagnostic(
            op,
            "error",
            f"is of dialect '{dialect}', which upstream MLIR does not have and "
            "lower-to-nvvm does not lower: the CUDA flow cannot compile it",
        )
    return None


__all__ = ["LOWERED_BY_TILEPIPE", "UPSTREAM_DIALECTS", "dialect_of", "op_upstream_lacks"]
