"""``wgmma.mma_async`` with A in registers (sm_90a) in the NVVM interpreter: the
``llvm.inline_asm`` that carries it (upstream's ``nvvm.wgmma.mma_async`` has no such
form).

Written from the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
"Register Fragments" of ``.m64nNk16``), independently of the lowering
(``lowering/nvvm/wgmma_register_a.py``):

* the PTX ``wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} d, a,
  b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b``: ``d`` N/2 f32 registers,
  ``a`` four ``.b32`` holding two f16/bf16 each (element ``2 r`` in the low half of
  register ``r``), scale-d a predicate set from an immediate (``setp.ne.b32 p, 1,
  0``), imm-scale 1 (negation is not modelled), imm-trans-b 1 for an MN-major B;
* A's fragment: thread ``32 q + l`` of the warpgroup holds, as element ``i`` of a0..a7,
  row ``16 q + l / 4 + 8 ((i / 2) % 2)``, column ``2 (l % 4) + i % 2 + 8 (i / 4)``;
* the accumulator is the f32 fields ``0 .. N/2 - 1`` of one struct, extracted into the
  tied inputs (``llvm.extractvalue``; the registers stay where they are -- extracting a
  struct still being computed for a wgmma's accumulator operand is no access of it);
  the result is a struct: the same D layout, rounding, descriptor reads of B, groups and
  retirement as the descriptor form (``wgmma.issue``).

What it checks besides the arithmetic: A's registers were written before the
warpgroup's last ``wgmma.fence`` (the PTX rule for every register a wgmma reads), and
nothing but another wgmma reads them, nor writes them again (a loop's next
iteration), until the ``wait_group`` that retires the wgmma's group.
"""

from __future__ import annotations

import re

import numpy as np
from xdsl.ir import Operation, SSAValue

from tilepipe.semantics.memory import bf16_bits_to_f32
from tilepipe.semantics.nvvm.execution import WARP, BlockExecution, NvvmExecutionError
from tilepipe.semantics.nvvm.wgmma import (
    M,
    WARPGROUP,
    Descriptor,
    _operand,
    issue,
    warpgroups,
)
from tilepipe.semantics.nvvm.wgmma_state import state_of

_SYNTAX = re.compile(
    r"\{\s*\.reg \.pred (?P<p>\w+);\s*setp\.ne\.b32 (?P=p), (?P<scale_d>\d+), 0;\s*"
    r"wgmma\.mma_async\.sync\.aligned\.m64n(?P<n>\d+)k16\.f32\.(?P<type>f16|bf16)\.(?P=type)\s+"
    r"\{(?P<d>[^}]*)\},\s*\{(?P<a>[^}]*)\},\s*\$(?P<b>\d+),\s*(?P=p),\s*"
    r"(?P<scale_a>-?\d+),\s*(?P<scale_b>-?\d+),\s*(?P<trans_b>[01]);\s*\}\s*$"
)


def is_register_a_wgmma(op: Operation) -> bool:
    return op.name == "llvm.inline_asm" and "wgmma.mma_async" in op.properties["asm_string"].data


def feeds_wgmma_accumulator(op: Operation) -> bool:
    """Is ``op`` (an ``llvm.extractvalue``) used only as the tied accumulator input of
    register-A wgmmas?"""
    uses = list(op.results[0].uses)
    return bool(uses) and all(
        is_register_a_wgmma(use.operation) and _tied(use.operation, use.index) is not None
        for use in uses
    )


def _operand_numbers(text: str) -> list[int]:
    return [int(part.strip().lstrip("$")) for part in text.split(",")]


def _tied(op: Operation, index: int) -> int | None:
    """The output operand ``op``'s input ``index`` is tied to, if it is."""
    constraints = op.properties["constraints"].data.split(",")
    outputs = sum(c.startswith("=") for c in constraints)
    constraint = constraints[outputs + index]
    return int(constraint) if constraint.isdigit() else None


def execute(ex: BlockExecution, op: Operation, mask: np.ndarray) -> list[np.ndarray]:
    asm = op.properties["asm_string"].data
    syntax = _SYNTAX.search(asm)
    if syntax is None:
        raise NvvmExecutionError(op, f"runs a wgmma form the interpreter does not model: {asm!r}")
    if (syntax["scale_a"], syntax["scale_b"]) != ("1", "1"):
        raise NvvmExecutionError(op, "negated operands are not modelled")
    n = int(syntax["n"])
    bf16 = syntax["type"] == "bf16"
    constraints = op.properties["constraints"].data.split(",")
    outputs = sum(c.startswith("=") for c in constraints)
    d, a = _operand_numbers(syntax["d"]), _operand_numbers(syntax["a"])
    if d != list(range(n // 2)) or outputs != n // 2 or len(a) != 4:
        raise NvvmExecutionError(op, "the accumulator must be its outputs 0 .. N/2 - 1")
    inputs = list(op.operands)
    a_values = [inputs[i - outputs] for i in a]
    b_value = inputs[int(syntax["b"]) - outputs]
    accumulator = _accumulator_struct(op, n)
    _check_written_before_fence(ex, op, a_values, mask)

    def operands(group: int, threads: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        descriptor = Descriptor.decode(op, ex.uniform_in(op, b_value, threads))
        b, read = _operand(ex, op, descriptor, n, syntax["trans_b"] == "0", bf16)
        return _a_matrix([np.asarray(ex[v])[threads] for v in a_values], bf16), b, read

    result = issue(ex, op, accumulator, mask, n, syntax["scale_d"] != "0", operands)
    _watch(ex, a_values, op.results[0])
    return [result]


def _accumulator_struct(op: Operation, n: int) -> SSAValue:
    """The struct whose fields ``0 .. N/2 - 1`` are the tied inputs, in order."""
    sources = set()
    for index, value in enumerate(op.operands):
        field = _tied(op, index)
        if field is None:
            continue
        owner = value.owner
        if not (
            isinstance(owner, Operation)
            and owner.name == "llvm.extractvalue"
            and tuple(owner.properties["position"].get_values()) == (field,)
        ):
            raise NvvmExecutionError(
                op, "models an accumulator passed as the fields of one struct, in order"
            )
        sources.add(owner.operands[0])
    if len(sources) != 1:
        raise NvvmExecutionError(op, "models an accumulator passed as the fields of one struct")
    return sources.pop()


def _a_matrix(registers: list[np.ndarray], bf16: bool) -> np.ndarray:
    """The 64 x 16 A of one warpgroup from its threads' four .b32 registers."""
    bits = np.stack([np.asarray(r).astype(np.int64) & 0xFFFFFFFF for r in registers], axis=1)
    halves = np.stack([bits & 0xFFFF, bits >> 16], axis=-1).reshape(WARPGROUP, 8)
    halves = halves.astype(np.uint16)
    values = bf16_bits_to_f32(halves) if bf16 else halves.view(np.float16).astype(np.float32)
    t = np.arange(WARPGROUP)[:, None]
    i = np.arange(8)[None, :]
    q, lane = t // WARP, t % WARP
    rows = 16 * q + lane // 4 + 8 * ((i // 2) % 2)
    cols = 2 * (lane % 4) + i % 2 + 8 * (i // 4)
    a = np.full((M, 16), np.nan, np.float32)
    a[rows, cols] = values
    return a


def _check_written_before_fence(
    ex: BlockExecution, op: Operation, a_values: list[SSAValue], mask: np.ndarray
) -> None:
    state = state_of(ex)
    written = max(state.built_at.get(v, 0) for v in a_values)
    for group in warpgroups(ex, op, mask):
        if written >= state.fenced_at.get(group, 0):
            raise NvvmExecutionError(
                op, "its A registers were written after the warpgroup's last wgmma.fence"
            )


# ------------------------------------------------ A's registers until retirement

def _watch(ex: BlockExecution, a_values: list[SSAValue], result: SSAValue) -> None:
    """Watch A's registers until the wgmma returning ``result`` is retired."""
    watched: dict[SSAValue, list] = getattr(ex, "wgmma_a_registers", None) or {}
    records = state_of(ex).produced_by[result]
    for value in a_values:
        watched.setdefault(value, []).extend(records)
    ex.wgmma_a_registers = watched  # type: ignore[attr-defined]
    ex.register_check = _check_register_access


def _check_register_access(ex: BlockExecution, op: Operation) -> None:
    """Before ``op`` runs: it neither reads nor writes the A registers of a wgmma not
    yet retired (another wgmma may read them)."""
    watched: dict[SSAValue, list] = ex.wgmma_a_registers  # type: ignore[attr-defined]
    for value in [v for v, records in watched.items() if all(r.retired for r in records)]:
        del watched[value]
    if not watched:
        ex.register_check = None
        return
    if any(result in watched for result in op.results):
        raise NvvmExecutionError(
            op, "writes a wgmma's A registers before a wgmma.wait_group retires its group"
        )
    if not is_register_a_wgmma(op) and any(operand in watched for operand in op.operands):
        raise NvvmExecutionError(
            op, "reads a wgmma's A registers before a wgmma.wait_group retires its group"
        )
