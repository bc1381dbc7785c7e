"""Print an ``ascend``-dialect kernel as AscendC C++ source.

One C++ statement per op: buffers become ``TBuf``/``LocalTensor`` (on chip) and
``GlobalTensor`` (kernel arguments), flags ``SetFlag/WaitFlag<HardEvent::P_C>(id)``,
barriers ``PipeBarrier<PIPE_X>()``, cross-core flags ``CrossCoreSetFlag<mode,
PIPE_X>(id)``, lock-pool slots with the target's lock primitive (``get_buf/rls_buf`` on
the 910B class, ``asc_lock/asc_unlock`` on the 950 class), data
movement ``DataCopy``/``LoadData``/``Fixpipe``, the cube ``Mmad`` and vector calls
(comparisons, selections and coordinates: :mod:`tilepipe.lowering.ascend.ascendc_masks`).
Scalar control flow (``scf.for``/``scf.if``), index arithmetic and scalar cells
(``memref.alloca`` of a 0-d memref, e.g. the epoch counter of the ``counter`` index
mode) become C++.  A mixed cube + vector kernel is split into an ``if ASCEND_IS_AIC``
and an ``if ASCEND_IS_AIV`` section (see :mod:`tilepipe.lowering.ascend.ascendc_cores`), each
with the scalar code its ops need, and is declared ``KERNEL_TYPE_MIX_AIC_1_2``.

:func:`syntax_check` compiles the source with ``g++ -fsyntax-only`` against
``ascendc_stub/kernel_operator.h``, a declarations-only header of the API surface used
here, declared as the real AscendC headers declare it (constructors, not aggregates):
it proves the shape of the calls, not their behaviour.

Usage: ``python -m tilepipe.drivers.ascendc KERNEL.mlir [-o OUT.cpp] [--syntax-check]``.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend
from tilepipe.dialects.ascend import BOUNDARY_ATTR
from tilepipe.dialects.ascend_pipes import Core, ascend_space, element_bytes
from tilepipe.dialects.ascend_sync import (
    CrossCoreSetFlagOp,
    CrossCoreWaitFlagOp,
    FlagOp,
    GetBufOp,
    IdOperandOp,
    PipeBarrierOp,
    RlsBufOp,
    SetFlagOp,
)
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile import BlockIdOp, BufferAccess, GridDimsOp
from tilepipe.dialects.tile_launch import grid_dims_op
from tilepipe.core.targets import ASCEND_910B, AscendTarget, LockPrimitive, target_of

from tilepipe.lowering.ascend.ascendc_cores import core_section, tile_op_cores
from tilepipe.lowering.ascend.ascendc_boundary import BoundaryCalls, size_parameter
from tilepipe.lowering.ascend.ascendc_cube import CubeCalls
from tilepipe.lowering.ascend.ascendc_masks import MaskCalls
from tilepipe.lowering.ascend.ascendc_types import TileLayout, cpp_type, tile_layout
from tilepipe.lowering.ascend.ascendc_vector import VectorCalls

STUB_DIR = Path(__file__).parent / "ascendc_stub"

_POSITIONS = {
    MemorySpace.UB: "VECCALC",
    MemorySpace.L1: "A1",
    MemorySpace.L0A: "A2",
    MemorySpace.L0B: "B2",
    MemorySpace.L0C: "CO1",
}

_BINARY = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divui": "/",
           "arith.divsi": "/", "arith.remui": "%", "arith.remsi": "%", "arith.andi": "&",
           "arith.ori": "|", "arith.xori": "^"}
_CEIL_DIVISIONS = ("arith.ceildivui", "arith.ceildivsi")
_EXTREMA = {"arith.minsi": "<", "arith.minui": "<", "arith.maxsi": ">", "arith.maxui": ">"}
_COMPARE = ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="]
_VECTOR_CALLS = {ascend.AddOp: "Add", ascend.SubOp: "Sub", ascend.MulOp: "Mul",
                 ascend.MaxOp: "Max", ascend.DivOp: "Div", ascend.ExpOp: "Exp", ascend.LnOp: "Ln",
                 ascend.SqrtOp: "Sqrt", ascend.RsqrtOp: "Rsqrt"}


# C++17 keywords and alternative tokens: never a variable name.
CPP_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
    char32_t class compl const constexpr const_cast continue decltype default delete do
    double dynamic_cast else enum explicit export extern false float for friend goto if
    inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq
    private protected public register reinterpret_cast return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq
""".split())


class AscendCPrinter(CubeCalls, BoundaryCalls, MaskCalls, VectorCalls):
    """Prints one kernel; names values after their name hints."""

    def __init__(self, kernel: FuncOp):
        self.kernel = kernel
        self.lines: list[str] = []
        self.indent = 0
        self.names: dict[SSAValue, str] = {}
        # An SSA name such as %short or %new is no C++ identifier as it stands, and
        # %pipe would shadow the kernel's TPipe.
        self.taken: set[str] = {*CPP_KEYWORDS, "pipe"}
        target = target_of(kernel) if "tile.target" in kernel.attributes else ASCEND_910B
        self.target = target if isinstance(target, AscendTarget) else ASCEND_910B
        # The ops of the core section being printed (None: a single-core kernel).
        self.section: set[Operation] | None = None
        self.gm_names: dict[SSAValue, str] = {}

    # -- names and expressions

    def fresh(self, base: str) -> str:
        """A C++ name no value uses."""
        candidate, n = base, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate

    def name(self, value: SSAValue, suffix: str = "") -> str:
        if value not in self.names:
            base = re.sub(r"\W", "_", value.name_hint or "v") + suffix
            if base[0].isdigit():
                base = "v" + base
            self.names[value] = self.fresh(base)
        return self.names[value]

    def expr(self, value: SSAValue | int) -> str:
        if isinstance(value, int):
            return str(value)
        owner = value.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            if owner.value.type == IntegerType(1):
                return "true" if owner.value.value.data else "false"
            return str(owner.value.value.data)
        return self.name(value)

    def offset(self, access: BufferAccess) -> str:
        """The linear element offset of a region's origin, as a C++ expression."""
        if not access.offsets:
            return "0"
        terms = []
        for d, off in enumerate(access.offsets):
            stride = self.stride(access.buffer, d)
            text = self.expr(off)
            if text == "0":
                continue
            terms.append(text if stride == "1" else f"{text} * {stride}")
        return " + ".join(terms) or "0"

    def scalar(self, value: SSAValue) -> str:
        """A scalar operand of a vector call: a constant as a literal of its type."""
        if isinstance(value.owner, arith.ConstantOp):
            return f"({cpp_type(value.type)}){value.owner.value.value.data}"
        return self.expr(value)

    def tensor(self, access: BufferAccess) -> str:
        base = self.name(access.buffer)
        offset = self.offset(access)
        return base if offset == "0" else f"{base}[{offset}]"

    # -- output

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def print_kernel(self) -> str:
        func = self.kernel
        if func.sym_name.data in CPP_KEYWORDS:
            # The kernel's name is its symbol for the host: not renamed behind its back.
            raise op_error(func, f"kernel name '{func.sym_name.data}' is a C++ keyword, "
                           "which AscendC cannot name a kernel")
        params = []
        for arg in func.body.block.args:
            kind = "GM_ADDR" if isinstance(arg.type, MemRefType) else cpp_type(arg.type)
            params.append(f"{kind} {self.name(arg)}")
            if isinstance(arg.type, MemRefType):
                self.gm_names[arg] = self.name(arg)
        # The sizes of dynamic dimensions follow the arguments (docs/ascend.md).
        for arg, raw in self.gm_names.items():
            assert isinstance(arg.type, MemRefType)
            for d, size in enumerate(arg.type.get_shape()):
                if size < 0:
                    params.append(f"int64_t {self.fresh(size_parameter(raw, d))}")
        target = func.attributes.get("tile.target")
        self.emit(f"// @{func.sym_name.data}, target {getattr(target, 'data', 'ascend')}")
        self.emit(
            f'extern "C" __global__ __aicore__ void {func.sym_name.data}('
            + ", ".join(params)
            + ") {"
        )
        self.indent += 1
        mixed = len(tile_op_cores(func)) > 1
        if mixed:
            self.emit("KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);")
        self.emit("AscendC::TPipe pipe;")
        for arg in func.body.block.args:
            self._declare_global(arg)
        kernel_ops = list(func.walk())
        if mixed:
            for core, guard in ((Core.CUBE, "ASCEND_IS_AIC"), (Core.VECTOR, "ASCEND_IS_AIV")):
                self.section = core_section(func, core)
                self.emit(f"if {guard} {{")
                if core == Core.VECTOR:  # the vector unit's UB scratch, on the vector core
                    self.indent += 1
                    self.declare_mask_scratch(kernel_ops)
                    self.declare_vector_scratch(kernel_ops)
                    self.indent -= 1
                self._nested(func.body.block)
            self.section = None
        else:
            self.declare_mask_scratch(kernel_ops)
            self.declare_vector_scratch(kernel_ops)
            self.print_block(func.body.block)
        self.indent -= 1
        self.emit("}")
        return "\n".join(self.lines)

    def _declare_global(self, arg: SSAValue) -> None:
        if not isinstance(arg.type, MemRefType):
            return
        raw = self.names[arg]
        element = cpp_type(arg.type.element_type)
        tensor = f"{raw}_gm"
        self.names[arg] = tensor
        self.taken.add(tensor)
        self.emit(f"AscendC::GlobalTensor<{element}> {tensor};")
        self.emit(f"{tensor}.SetGlobalBuffer((__gm__ {element} *){raw});")

    def selected(self, op: Operation) -> bool:
        """Is ``op`` printed (in the current core section, if any)?"""
        return self.section is None or op in self.section

    def print_block(self, block: Block) -> None:
        for op in block.ops:
            if self.selected(op):
                self.print_op(op)

    # -- ops

    def print_op(self, op: Operation) -> None:
        if isinstance(op, ReturnOp | scf.YieldOp):
            return
        if isinstance(op, arith.ConstantOp):
            return  # inlined by expr()
        if isinstance(op, memref.AllocOp):
            return self._alloc(op)
        if isinstance(op, memref.AllocaOp | memref.LoadOp | memref.StoreOp):
            return self._scalar_cell(op)
        if isinstance(op, scf.ForOp):
            return self._for(op)
        if isinstance(op, scf.IfOp):
            return self._if(op)
        if isinstance(op, BlockIdOp):
            return self._block_id(op)
        if isinstance(op, GridDimsOp):
            return  # the launch's business; the extents are printed where defined
        if isinstance(op, memref.DimOp):
            dim = op.index.owner
            if not isinstance(dim, arith.ConstantOp):
                raise op_error(op, "needs a constant dimension index")
            return self._assign(op, self.gm_size(op.source, dim.value.value.data))
        if op.name in _CEIL_DIVISIONS:
            a, b = (self.expr(v) for v in op.operands)
            return self._assign(op, f"({a} + {b} - 1) / {b}")
        if op.name == "arith.floordivsi":  # C++ divides toward zero: step down when signs differ
            a, b = (self.expr(v) for v in op.operands)
            return self._assign(op, f"{a} / {b} - (({a} % {b} != 0) && (({a} < 0) != ({b} < 0)))")
        if op.name in _EXTREMA:
            a, b = (self.expr(v) for v in op.operands)
            return self._assign(op, f"({a} {_EXTREMA[op.name]} {b}) ? {a} : {b}")
        if op.name in _BINARY:
            a, b = op.operands
            return self._assign(op, f"{self.expr(a)} {_BINARY[op.name]} {self.expr(b)}")
        if isinstance(op, arith.CmpiOp):
            pred = _COMPARE[op.predicate.value.data]
            return self._assign(op, f"{self.expr(op.lhs)} {pred} {self.expr(op.rhs)}")
        if isinstance(op, arith.SelectOp):
            c, t, f = (self.expr(v) for v in op.operands)
            return self._assign(op, f"{c} ? {t} : {f}")
        if isinstance(op, arith.IndexCastOp):
            return self._assign(op, self.expr(op.input))
        if isinstance(op, arith.SIToFPOp):  # a block offset as a float mask coordinate
            return self._assign(op, f"static_cast<{cpp_type(op.result.type)}>({self.expr(op.input)})")
        if isinstance(op, IdOperandOp):
            return self.emit(self._sync_call(op))
        if isinstance(op, PipeBarrierOp):
            return self.emit(f"AscendC::PipeBarrier<{op.pipe.data.cpp_name}>();")
        if isinstance(op, ascend.AscendTileOp):
            return self._tile_op(op)
        raise op_error(op, "has no AscendC form")

    def _assign(self, op: Operation, expression: str) -> None:
        result = op.results[0]
        self.emit(f"{cpp_type(result.type)} {self.name(result)} = {expression};")

    def _alloc(self, op: memref.AllocOp) -> None:
        buffer_type = op.memref.type
        assert isinstance(buffer_type, MemRefType)
        space = ascend_space(buffer_type)
        if space not in _POSITIONS:
            raise op_error(op, f"cannot allocate a buffer in {space.value} on Ascend")
        name = self.name(op.memref)
        element = cpp_type(buffer_type.element_type)
        size = math.prod(buffer_type.get_shape()) * element_bytes(buffer_type.element_type)
        self.emit(f"AscendC::TBuf<AscendC::TPosition::{_POSITIONS[space]}> {name}_buf;")
        self.emit(f"pipe.InitBuffer({name}_buf, {size});")
        self.emit(f"AscendC::LocalTensor<{element}> {name} = {name}_buf.Get<{element}>();")

    def _scalar_cell(self, op: memref.AllocaOp | memref.LoadOp | memref.StoreOp) -> None:
        """A 0-d ``memref.alloca`` is a scalar variable of the scalar unit."""
        cell = op.memref
        assert isinstance(cell.type, MemRefType)
        if cell.type.get_shape():
            raise op_error(op, "only 0-d scalar cells have an AscendC form")
        if isinstance(op, memref.AllocaOp):
            return self.emit(f"{cpp_type(cell.type.element_type)} {self.name(cell)};")
        if isinstance(op, memref.LoadOp):
            return self._assign(op, self.name(cell))
        self.emit(f"{self.name(cell)} = {self.expr(op.value)};")

    def _for(self, op: scf.ForOp) -> None:
        iv = self.name(op.body.block.args[0])
        lb, ub, step = self.expr(op.lb), self.expr(op.ub), self.expr(op.step)
        self.emit(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        self._nested(op.body.block)

    def _if(self, op: scf.IfOp) -> None:
        self.emit(f"if ({self.expr(op.cond)}) {{")
        self.indent += 1
        self.print_block(op.true_region.block)
        self.indent -= 1
        otherwise = list(op.false_region.block.ops)[:-1] if op.false_region.blocks else []
        if any(self.selected(o) for o in otherwise):
            self.emit("} else {")
            self._nested(op.false_region.block)
        else:
            self.emit("}")

    def _nested(self, block: Block) -> None:
        self.indent += 1
        self.print_block(block)
        self.indent -= 1
        self.emit("}")

    def _block_id(self, op: BlockIdOp) -> None:
        dims = grid_dims_op(self.kernel)
        grid = op_grid(self.kernel) if dims is None else tuple(
            self.expr(e) for e in (*dims.extents, 1, 1)
        )[:3]
        dim = op.dimension.data
        linear = "AscendC::GetBlockIdx()"
        if dim == "x":
            return self._assign(op, f"{linear} % {grid[0]}")
        if dim == "y":
            return self._assign(op, f"{linear} / {grid[0]} % {grid[1]}")
        return self._assign(op, f"{linear} / ({grid[0]} * {grid[1]})")

    def _sync_call(self, op: IdOperandOp) -> str:
        id_text = self.expr(op.id)
        if isinstance(op, FlagOp):
            call = "SetFlag" if isinstance(op, SetFlagOp) else "WaitFlag"
            return f"AscendC::{call}<AscendC::HardEvent::{op.hard_event}>({id_text});"
        if isinstance(op, CrossCoreSetFlagOp | CrossCoreWaitFlagOp):
            call = "CrossCoreSetFlag" if isinstance(op, CrossCoreSetFlagOp) else "CrossCoreWaitFlag"
            return f"AscendC::{call}<{op.mode_value}, {op.pipe.data.cpp_name}>({id_text});"
        assert isinstance(op, GetBufOp | RlsBufOp)
        take = isinstance(op, GetBufOp)
        pipe = op.pipe.data.cpp_name
        if self.target.lock_primitive == LockPrimitive.ASC_LOCK:
            call = "asc_lock" if take else "asc_unlock"
            mode = "ASC_LOCK_BLOCK" if op.is_blocking else "ASC_LOCK_NON_BLOCK"
            return f"{call}({pipe}, {id_text}, {mode});"
        # The 910B-class buffer-lock intrinsics: mode false = blocking, true =
        # non-blocking (asc-devkit's asc_lock_impl.h maps ASC_LOCK_BLOCK to false).
        call = "get_buf" if take else "rls_buf"
        return f"{call}({pipe}, {id_text}, {'false' if op.is_blocking else 'true'});"

    def _tile_op(self, op: ascend.AscendTileOp) -> None:
        accesses = {a.operand_name: a for a in op.buffer_accesses()}
        boundary = BOUNDARY_ATTR in op.attributes
        if isinstance(op, ascend.DataCopyOp):
            if boundary:
                return self.pad_copy(op, accesses["src"], accesses["dst"])
            return self._data_copy(op, accesses["src"], accesses["dst"])
        if isinstance(op, ascend.DataCopyNd2NzOp):
            if boundary:
                return self.nd2nz_boundary(op, accesses["src"], accesses["dst"])
            return self._nd2nz(op, accesses["src"], accesses["dst"])
        if isinstance(op, ascend.LoadDataOp):
            return self._load_data(op, accesses["src"], accesses["dst"])
        if isinstance(op, ascend.FixpipeOp):
            if boundary:
                return self.fixpipe_boundary(op, accesses["src"], accesses["dst"])
            return self._fixpipe(op, accesses["src"], accesses["dst"])
        if isinstance(op, ascend.MmadOp):
            return self._mmad(op, accesses)
        if isinstance(op, ascend.ZeroTailOp):
            return self.zero_tail(op, op.source(), accesses["dst"])
        if isinstance(op, ascend.IotaOp):
            return self.iota(op, accesses["dst"])
        if isinstance(op, ascend.ReduceOp):
            return self.reduce(op, accesses)
        if isinstance(op, ascend.BroadcastOp):
            return self.broadcast(op, accesses["src"], accesses["dst"])
        count = self._contiguous_count(op, accesses.values())
        if isinstance(op, ascend.CastOp):
            return self.cast(op, self.tensor(accesses["src"]), self.tensor(accesses["dst"]), count)
        if isinstance(op, ascend.CmpOp):
            return self.compare(op, accesses, count)
        if isinstance(op, ascend.SelectOp):
            return self.select(op, accesses, count)
        dst = self.tensor(accesses["dst"])
        if isinstance(op, ascend.DuplicateOp):
            return self.emit(f"AscendC::Duplicate({dst}, {self.scalar(op.value)}, {count});")
        inputs = ", ".join(self.tensor(a) for role, a in accesses.items() if role != "dst")
        self.emit(f"AscendC::{_VECTOR_CALLS[type(op)]}({dst}, {inputs}, {count});")

    def _contiguous_count(self, op: Operation, accesses: Iterator[BufferAccess] | Sequence) -> int:
        counts = set()
        for access in accesses:
            layout = tile_layout(access)
            if layout is None or not layout.contiguous:
                raise op_error(op, f"{access.operand_name} tile is not contiguous in UB")
            counts.add(layout.count)
        (count,) = counts
        return count

    def _data_copy(self, op: Operation, src: BufferAccess, dst: BufferAccess) -> None:
        src_layout, dst_layout = tile_layout(src), tile_layout(dst)
        if src_layout is None or dst_layout is None:
            raise op_error(op, "tile rows are not evenly spaced")
        dst_t, src_t = self.tensor(dst), self.tensor(src)
        element = element_bytes(src.buffer.type.element_type)
        if src_layout.contiguous and dst_layout.contiguous:
            if ascend_space(src.buffer.type) == ascend_space(dst.buffer.type) == MemorySpace.UB and (
                src_layout.count * element % 32
            ):
                # DataCopy rounds a UB -> UB count down to whole 32-byte blocks.
                raise op_error(op, f"moves {src_layout.count * element} bytes UB -> UB; "
                               "DataCopy moves whole 32-byte blocks")
            return self.emit(f"AscendC::DataCopy({dst_t}, {src_t}, {src_layout.count});")
        rows = max(src_layout.rows, dst_layout.rows)
        row = src_layout.count // rows
        unit = 32 // element
        if ascend_space(src.buffer.type) == ascend_space(dst.buffer.type) and row % unit:
            raise op_error(op, f"moves rows of {row * element} bytes UB -> UB; DataCopy "
                           "moves whole 32-byte blocks")

        def gap(layout: TileLayout) -> int:
            return 0 if layout.contiguous else (layout.row_stride - row) // unit

        params = f"{rows}, {row // unit}, {gap(src_layout)}, {gap(dst_layout)}"
        self.emit(f"AscendC::DataCopy({dst_t}, {src_t}, AscendC::DataCopyParams({params}));")

def op_grid(kernel: FuncOp) -> tuple[int, int, int]:
    attr = kernel.attributes.get("tile.grid")
    values = list(attr.get_values()) if attr is not None else []
    values += [1] * (3 - len(values))
    return values[0], values[1], values[2]


def emit_ascendc(module: ModuleOp) -> str:
    """AscendC source of every kernel in ``module``."""
    kernels = [op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks]
    parts = ['#include "kernel_operator.h"', ""]
    for kernel in kernels:
        parts.append(AscendCPrinter(kernel).print_kernel())
        parts.append("")
    return "\n".join(parts)


def syntax_check(source: str) -> subprocess.CompletedProcess:
    """``g++ -fsyntax-only`` on ``source`` against the declarations-only header."""
    return subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-Wall", f"-I{STUB_DIR}", "-x", "c++", "-"],
        input=source,
        capture_output=True,
        text=True,
    )


def report_syntax_check(source: str) -> bool:
    """:func:`syntax_check`, saying how it went on stderr: g++'s errors, or one line
    when it passed (a check that prints nothing cannot be told from one never run)."""
    result = syntax_check(source)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        return False
    print(
        "syntax check: passed (g++ -std=c++17 -fsyntax-only against the AscendC declarations stub)",
        file=sys.stderr,
    )
    return True
