"""Machine code per k-iteration, without a GPU: compile a kernel to PTX, assemble it
with ptxas (-v: registers, spills), disassemble the cubin with nvdisasm and count
the SASS instructions of the steady-state loop, by class.

    python bench/bench_sass.py [--target sm_80] [--markdown]

The steady-state loop is the SASS loop (a backward branch and the instructions from
its target label to it) that holds tensor-core instructions (HMMA) and a block
barrier (BAR): the pipelined main loop, not an epilogue's.  Its instructions are
counted once per iteration, each thread executing every one of them (predicated ones
included: they issue).  A loop nested inside it (a rolled 16-wide k-step loop) runs
as often as makes the HMMA count of an iteration what the kernel's gemms need
(``KernelCase.hmma_per_iteration``), which the table marks with ``*``; a nested loop
without HMMA (sm_90's mbarrier try_wait retry) counts once.

The ``TileLang`` column is TileLang 0.1.15's figure for the same kernel (sm_80), as
``bash bench/peer/tilelang.sh`` measures it (TileLang in a scratch venv, the registry's
nvcc 13.5, this script's ``--cubin`` count); with ``--target sm_90a`` it is TileLang's
warp-specialized consumer loop per k-iteration for the same block, and the loop
counted is the one holding HGMMA (wgmma), by Hopper's classes (TMA, mbarrier SYNCS,
WARPGROUP fences and waits, the uniform datapath).  Thread 0's tensor copies sit in
a branch ptxas places outside the loop's range: the per-thread count leaves them out.

Both ptxas and nvdisasm are pinned registry wheels (the ``ptx`` extra:
``nvidia-cuda-nvcc``, ``nvidia-cuda-nvdisasm``).  The figures are instruction counts,
not timings.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tilepipe.drivers.compile import compile_kernel
from tilepipe.lowering.nvvm.ptxas import PtxasReport, disassemble, run_ptxas

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

CLASSES = ("HMMA", "LDSM", "LDGSTS", "BAR", "int/addr", "other")
INTEGER_OPCODES = frozenset(
    """IMAD IADD3 IADD LEA SHF SHL SHR LOP3 LOP ISETP IMNMX IABS PRMT SEL SGXT BMSK
    FLO POPC BREV IMUL UIMAD UIADD3 ULEA USHF ULOP3 UISETP USEL UPRMT UIMNMX USGXT
    UFLO UPOPC UBREV UBMSK""".split()
)


def instruction_class(opcode: str) -> str:
    """The class of a SASS opcode (its mnemonic before the first dot)."""
    base = opcode.split(".")[0]
    if base in ("HMMA", "LDSM", "LDGSTS", "BAR"):
        return base
    if base in INTEGER_OPCODES:
        return "int/addr"
    return "other"


@dataclass(frozen=True)
class Instruction:
    address: int
    opcode: str
    text: str


_INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);")
_LABEL = re.compile(r"^(\.L_x_\d+):")
_BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def parse_sass(sass: str) -> tuple[list[Instruction], dict[str, int]]:
    """The instructions of one kernel's SASS and the index each label stands before."""
    instructions: list[Instruction] = []
    labels: dict[str, int] = {}
    for line in sass.splitlines():
        if label := _LABEL.match(line.strip()):
            labels[label.group(1)] = len(instructions)
        elif match := _INSTRUCTION.search(line):
            instructions.append(Instruction(int(match[1], 16), match[2], line.strip()))
    return instructions, labels


def loops(instructions: list[Instruction], labels: dict[str, int]) -> list[tuple[int, int]]:
    """``(first, last)`` instruction indices of every loop: a branch back to a label
    at or before it."""
    found = []
    for index, instruction in enumerate(instructions):
        if not instruction.opcode.startswith("BRA"):
            continue
        target = _BRANCH_TARGET.search(instruction.text)
        if target and target[1] in labels and labels[target[1]] <= index:
            found.append((labels[target[1]], index))
    return found


@dataclass
class LoopCount:
    classes: Counter
    inner_trips: int | None  # the inferred trip count of nested loops, if any
    # k-iterations one trip of the loop runs: a steady loop unrolled over an mbarrier
    # ring (sm_90: one copy per ring slot) holds that many iterations' HMMA.
    iterations: int = 1

    @property
    def total(self) -> int:
        return sum(self.classes.values())

    def per_iteration(self, count: int) -> str:
        return f"{count / self.iterations:.4g}"


def steady_state_count(
    sass: str, hmma_per_iteration: int, marker: str = "HMMA", classify=None
) -> LoopCount:
    """Dynamic instructions per iteration of the steady-state loop, by class; the
    tensor-core instruction ``marker`` (HMMA; HGMMA for wgmma kernels) marks it."""
    classify = classify or instruction_class
    instructions, labels = parse_sass(sass)

    def count(first: int, last: int, opcode: str) -> int:
        return sum(1 for i in instructions[first : last + 1] if i.opcode.startswith(opcode))

    candidates = [
        (first, last)
        for first, last in loops(instructions, labels)
        if count(first, last, marker) and count(first, last, "BAR")
    ]
    if not candidates:
        raise ValueError(f"no loop with {marker} and BAR in the SASS")
    first, last = max(candidates, key=lambda loop: (count(*loop, marker), loop[1] - loop[0]))
    nested = [
        (f, l) for f, l in loops(instructions, labels) if first <= f and l < last
    ]
    # Outermost nested loops only; each runs `trips` times per iteration.
    nested = [
        n for n in nested if not any(o != n and o[0] <= n[0] and n[1] <= o[1] for o in nested)
    ]
    # A nested loop without HMMA (an mbarrier try_wait retry, sm_90) is counted once:
    # its trips are the wait's, not the k-steps'.
    nested = [n for n in nested if count(*n, marker)]
    in_nested = {i for f, l in nested for i in range(f, l + 1)}
    classes: Counter = Counter()
    trips = None
    if nested:
        nested_hmma = sum(count(f, l, marker) for f, l in nested)
        outside_hmma = count(first, last, marker) - nested_hmma
        trips = max(1, (hmma_per_iteration - outside_hmma) // max(1, nested_hmma))
    for index in range(first, last + 1):
        weight = trips if index in in_nested else 1
        classes[classify(instructions[index].opcode)] += weight
    iterations = 1
    if hmma_per_iteration and classes[marker] % hmma_per_iteration == 0:
        iterations = max(1, classes[marker] // hmma_per_iteration)
    return LoopCount(classes, trips, iterations)


@dataclass(frozen=True)
class KernelCase:
    name: str
    text: str
    num_stages: int
    hmma_per_iteration: int  # per thread: the gemms' m16n8k16 blocks per warp
    reference: str = ""  # TileLang 0.1.15's figure, where known
    # sm_90a (wgmma): the m64nNk16 instructions a warpgroup issues per k-iteration.
    hgmma_per_iteration: int = 0
    # TileLang 0.1.15's sm_90a consumer loop per k-iteration (docs/nvvm.md), if known.
    hopper_reference: str = ""


TILELANG_BLOCK_K32 = {1: "115", 2: "150", 3: "143", 4: "148"}


def _gemm_block_k32() -> str:
    """examples/gemm.mlir with block_K 32 (32 k-iterations of 128x128x32)."""
    text = (EXAMPLES / "gemm.mlir").read_text()
    return (
        text.replace("%c64 = arith.constant 64", "%c64 = arith.constant 32")
        .replace("%c16 = arith.constant 16", "%c16 = arith.constant 32")
        .replace("128x64", "128x32")
        .replace("64x128", "32x128")
    )


def cases(target: str = "sm_80") -> list[KernelCase]:
    gemm = (EXAMPLES / "gemm.mlir").read_text()
    # 4 warps over 128x128: 64x64 per warp, 4x8 m16n8 blocks, K/16 steps.
    # wgmma (sm_90a): one warpgroup, two m64n128 slabs per 16-wide k-step.
    rows = [
        KernelCase("gemm.mlir (block_K 64)", gemm, 3, 32 * 4, "252, 248 regs", 2 * 4, "98")
    ]
    rows += [
        KernelCase(
            "gemm block_K 32", _gemm_block_k32(), n, 32 * 2, TILELANG_BLOCK_K32[n], 2 * 2
        )
        for n in (1, 2, 3, 4)
    ]
    # 64x64 tiles over 4 warps whose rows a row reduction keeps whole: 16x64 per
    # warp, 1x8 blocks, 4 k-steps, two gemms (sm_90a: one m64n64 per k-step each).
    flash = (EXAMPLES / "flash_attention.mlir").read_text()
    rows.append(
        KernelCase("flash_attention.mlir", flash, 2, 2 * 8 * 4, "412, 214 regs", 2 * 4, "304")
    )
    epilogue = (EXAMPLES / "gemm_epilogue.mlir").read_text()
    rows.append(KernelCase("gemm_epilogue.mlir", epilogue, 2, 32 * 4, "", 2 * 4))
    if target == "sm_90a":  # 128x256 blocks in 197 KB: more shared memory than sm_80's
        hopper = (EXAMPLES / "gemm_sm90a.mlir").read_text()
        # Two warpgroups, each one m64n256 slab: 4 k-steps.
        rows.append(KernelCase("gemm_sm90a.mlir", hopper, 4, 0, "", 4, "88"))
    return rows


@dataclass
class Measurement:
    case: KernelCase
    num_stages: int
    loop: LoopCount  # warp-specialized: the consumer loop's
    ptxas: PtxasReport
    roles: list[RoleLoop] | None = None  # warp-specialized: consumer and producer loops


def measure(case: KernelCase, target: str) -> Measurement:
    result = compile_kernel(
        case.text, case.name, target, num_stages=case.num_stages, run_ptxas=False
    )
    assert result.ptx is not None
    with tempfile.TemporaryDirectory(prefix="tilepipe-sass-") as tmp:
        cubin = Path(tmp) / "kernel.cubin"
        (report,) = run_ptxas(result.ptx, target, cubin)
        sass = disassemble(cubin)
    if target == "sm_90a" and "USETMAXREG" in sass:  # warp-specialized: two loops
        roles = role_loops(sass)
        for role in roles:  # ptxas may unroll a role's loop: count its k-iterations
            per_iteration = (
                case.hgmma_per_iteration if role.role == "consumer"
                else boxes_per_iteration(case, target)
            )
            own = role.classes["HGMMA" if role.role == "consumer" else "UTMALDG"]
            role.iterations = max(1, own // max(1, per_iteration))
        consumer = next(r for r in roles if r.role == "consumer")
        return Measurement(
            case, case.num_stages, LoopCount(consumer.classes, None, consumer.iterations),
            report, roles,
        )
    if target == "sm_90a":
        loop = steady_state_count(sass, case.hgmma_per_iteration, "HGMMA", hopper_class)
    else:
        loop = steady_state_count(sass, case.hmma_per_iteration)
    return Measurement(case, case.num_stages, loop, report)


def table(measurements: list[Measurement], classes: tuple[str, ...] = CLASSES) -> str:
    header = ["kernel", "ns", "total", *classes, "regs", "spill B", "TileLang"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m in measurements:
        total = m.loop.per_iteration(m.loop.total) + ("*" if m.loop.inner_trips else "")
        if m.roles is not None:
            total += " (WS consumer)"
        if m.loop.iterations > 1:
            total += f" (loop of {m.loop.iterations})"
        spills = m.ptxas.spill_store_bytes + m.ptxas.spill_load_bytes
        cells = [
            m.case.name,
            str(m.num_stages),
            total,
            *(m.loop.per_iteration(m.loop.classes.get(c, 0)) for c in classes),
            str(m.ptxas.registers),
            str(spills),
            (m.case.hopper_reference if classes is HOPPER_CLASSES else m.case.reference) or "-",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# -------------------------------------------------- warp-specialized (sm_90a) kernels

HOPPER_CLASSES = ("HGMMA", "UTMALDG", "SYNCS", "WARPGROUP", "BAR", "uniform", "int/addr", "other")


def hopper_class(opcode: str) -> str:
    """The class of a SASS opcode of a Hopper kernel: the tensor-core and TMA
    instructions, mbarrier operations (SYNCS), wgmma fences and waits (WARPGROUP), the
    uniform datapath (one per warp: U-prefixed ops, S2UR, R2UR) and the rest."""
    base = opcode.split(".")[0]
    if base in ("HGMMA", "UTMALDG", "SYNCS", "WARPGROUP", "BAR"):
        return base
    if base in ("S2UR", "R2UR", "ULDC") or (base.startswith("U") and base != "UTMALDG"):
        return "uniform"
    return "int/addr" if instruction_class(opcode) == "int/addr" else "other"


@dataclass
class RoleLoop:
    role: str  # "consumer" (holds HGMMA) or "producer" (holds UTMALDG)
    classes: Counter
    iterations: int = 0  # k-iterations per trip, where known (0: not)

    @property
    def total(self) -> int:
        return sum(self.classes.values())

    @property
    def besides(self) -> int:
        """Instructions other than the loop's own work (HGMMA, resp. UTMALDG)."""
        own = "HGMMA" if self.role == "consumer" else "UTMALDG"
        return self.total - self.classes.get(own, 0)


def role_loops(sass: str) -> list[RoleLoop]:
    """The main loops of a warp-specialized kernel, consumer first, each counted once
    per trip of its SASS loop (a loop the compiler unrolled counts several k-iterations:
    divide by the tiles' HGMMA or TMA boxes per k-iteration).  An mbarrier
    ``try_wait`` that fails branches to a retry stub placed after the kernel's last
    ``EXIT``, which jumps back: those back-branches are not loops."""
    instructions, labels = parse_sass(sass)
    exits = [i for i, instruction in enumerate(instructions) if instruction.opcode == "EXIT"]
    body_end = exits[-1] if exits else len(instructions)
    found: list[RoleLoop] = []
    for role, marker in (("consumer", "HGMMA"), ("producer", "UTMALDG")):
        candidates = [
            (first, last) for first, last in loops(instructions, labels)
            if last < body_end
            and any(i.opcode.startswith(marker) for i in instructions[first : last + 1])
        ]
        if candidates:
            # The innermost such loop: an outer persistent-tile loop may hold it.
            first, last = min(candidates, key=lambda loop: loop[1] - loop[0])
            found.append(RoleLoop(role, Counter(
                hopper_class(i.opcode) for i in instructions[first : last + 1]
            )))
    return found


def boxes_per_iteration(case: KernelCase, target: str) -> int:
    """The tensor copies (boxes: one per 128-byte panel) a warp-specialized
    producer issues per k-iteration, from the kernel at the nvvm level."""
    result = compile_kernel(
        case.text, case.name, target, level="nvvm", num_stages=case.num_stages, run_ptxas=False
    )
    return sum(
        op.name == "nvvm.cp.async.bulk.tensor.shared.cluster.global"
        for op in result.module.walk()
    )


def role_table(loops_found: list[RoleLoop]) -> str:
    """Each role's loop per trip; with the k-iterations a trip holds (an unrolled
    loop), the per k-iteration figures after a slash."""
    header = ["loop", "k-iterations per trip", "total", "besides its own work", *HOPPER_CLASSES]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for loop in loops_found:
        def figure(count: int) -> str:
            if loop.iterations > 1:
                return f"{count} / {count / loop.iterations:.4g}"
            return str(count)

        cells = [loop.role, str(loop.iterations or "?"), figure(loop.total),
                 figure(loop.besides),
                 *(figure(loop.classes.get(c, 0)) for c in HOPPER_CLASSES)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="sm_80", choices=("sm_80", "sm_90", "sm_90a"))
    parser.add_argument(
        "--cubin", metavar="PATH",
        help="count the consumer (HGMMA) and producer (UTMALDG) loops of a warp-"
        "specialized cubin compiled elsewhere (e.g. a peer's: docs/nvvm.md), or else its "
        "steady-state loop (the one with HMMA and a barrier)",
    )
    parser.add_argument(
        "--hmma-per-iteration", type=int, default=0, metavar="N",
        help="with --cubin: the HMMA a k-iteration issues per thread, to count a nested "
        "k-step loop that many times over (default: nested loops count once)",
    )
    args = parser.parse_args()
    if args.cubin:
        sass = disassemble(Path(args.cubin))
        if "HGMMA" in sass:
            print(f"SASS per trip of each main loop, per thread ({args.cubin})")
            print(role_table(role_loops(sass)))
        else:
            loop = steady_state_count(sass, args.hmma_per_iteration)
            print(f"SASS per steady-state k-iteration, per thread ({args.cubin})")
            counts = [f"{c} {loop.classes.get(c, 0)}" for c in CLASSES]
            print(" | ".join([f"total {loop.total}", *counts]))
        return
    measurements = [measure(case, args.target) for case in cases(args.target)]
    print(
        f"SASS per steady-state k-iteration, per thread ({args.target}; "
        "* = nested loop trips inferred)"
    )
    print(table(measurements, HOPPER_CLASSES if args.target == "sm_90a" else CLASSES))
    specialized = [m for m in measurements if m.roles is not None]
    if specialized:
        print("\nWarp-specialized kernels: each role's loop per trip, per thread")
        for m in specialized:
            print(f"\n{m.case.name}, num_stages {m.num_stages}, {m.ptxas.registers} registers at entry")
            print(role_table(m.roles))


if __name__ == "__main__":
    main()
