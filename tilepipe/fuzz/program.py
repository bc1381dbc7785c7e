"""The fuzzer's kernel model and its text.

A :class:`Program` is a list of top-level items -- :class:`Stmt` (one tile op) and
:class:`Loop` (a ``pipeline.for`` of statements) -- over named :class:`Buffer` s whose
shapes are *dimension symbols* (``"m"``, ``"k"`` ...) looked up in ``Program.dims``.
Keeping the model structured, not text, is what lets the minimizer drop statements and
loops and shrink every shape or trip count at once, and still print a kernel that parses.

Global buffers are the kernel's arguments.  Each block owns ``slots`` consecutive tiles
of a global buffer along its ``iter_axis``; a statement in loop ``i`` touches the tile of
slot ``block * slots + k`` (``k`` the induction variable, so ``lb`` and ``step`` shift
and spread the slots), a top-level statement the block's slot 0.  Output globals are
written by one statement each, so their regions never overlap within a block.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

CUDA_TARGETS = ("sm_80", "sm_90")
ASCEND_TARGET = "ascend910b"
TRIP_COUNT_ARG = "n"


@dataclass(frozen=True)
class Buffer:
    name: str
    dims: tuple[str, ...]  # dimension symbols of Program.dims
    dtype: str  # f16, bf16, f32
    space: str  # "global" for kernel arguments, else a memref memory space
    iter_axis: int | None = None  # global buffers: the dimension slots advance along

    @property
    def is_global(self) -> bool:
        return self.space == "global"


@dataclass
class Stmt:
    """One tile op.  ``operands`` are buffer names in the op's syntax order (the
    written buffer last); ``tile`` the tile shape as dimension symbols."""

    op: str  # copy gemm fill add sub mul max div exp cast reduce broadcast
    operands: tuple[str, ...]
    tile: tuple[str, ...]
    attrs: dict = field(default_factory=dict)  # axis, kind, value, transpose_a/b

    def written(self) -> str:
        return self.operands[-1]


@dataclass
class Loop:
    body: list[Stmt]
    lb: int = 0
    step: int = 1
    trips: int | None = 1  # None: the kernel's %n argument
    num_stages: int | None = 2
    stage: list[int] | None = None
    order: list[int] | None = None

    @property
    def depth(self) -> int:
        if self.stage:
            return max(self.stage) + 1
        return self.num_stages or 1


Item = Stmt | Loop


@dataclass
class Program:
    target: str
    kind: str  # what the generator meant to build (cuda, ascend-vector, ascend-cube, ...)
    dims: dict[str, int]
    buffers: dict[str, Buffer]
    items: list[Item]
    grid: int = 1
    threads: int | None = 128
    use_block_id: bool = False
    dynamic_trips: tuple[int, ...] = (0, 1, 2, 3, 5)
    # Global arrays this many elements short along the axis their slots advance: the
    # last tile is a boundary tile (docs/semantics.md), every output clipped alike.
    ragged: int = 0
    seed: int = 0
    name: str = "fuzz"

    @property
    def loops(self) -> list[Loop]:
        return [item for item in self.items if isinstance(item, Loop)]

    @property
    def is_dynamic(self) -> bool:
        return any(loop.trips is None for loop in self.loops)

    @property
    def is_ascend(self) -> bool:
        return self.target == ASCEND_TARGET

    def trip_counts(self) -> list[int | None]:
        """The values of %n a check runs the kernel with ([None]: no %n)."""
        return list(self.dynamic_trips) if self.is_dynamic else [None]

    def slots(self) -> int:
        largest = max(self.dynamic_trips, default=0)
        spans = [
            loop.lb + loop.step * max((largest if loop.trips is None else loop.trips) - 1, 0) + 1
            for loop in self.loops
        ]
        return max([1, *spans])

    def statements(self) -> list[Stmt]:
        out: list[Stmt] = []
        for item in self.items:
            out.extend(item.body if isinstance(item, Loop) else [item])
        return out

    def used_buffers(self) -> list[Buffer]:
        names = {name for stmt in self.statements() for name in stmt.operands}
        return [b for b in self.buffers.values() if b.name in names]

    def copy(self) -> Program:
        items = [
            replace(
                i,
                body=[replace(s, attrs=dict(s.attrs)) for s in i.body],
                stage=None if i.stage is None else list(i.stage),
                order=None if i.order is None else list(i.order),
            )
            if isinstance(i, Loop)
            else replace(i, attrs=dict(i.attrs))
            for i in self.items
        ]
        return replace(self, dims=dict(self.dims), buffers=dict(self.buffers), items=items)

    def text(self) -> str:
        return _Renderer(self).render()


# --------------------------------------------------------------------------- text


def _float_text(value: float) -> str:
    return f"{value:.6e}"


class _Renderer:
    def __init__(self, program: Program):
        self.p = program
        self.constants: set[int] = set()
        self.floats: dict[tuple[float, str], str] = {}

    def index(self, value: int) -> str:
        self.constants.add(value)
        return f"%c{value}"

    def memref_type(self, buffer: Buffer) -> str:
        shape = [self.p.dims[d] for d in buffer.dims]
        if buffer.is_global and buffer.iter_axis is not None:
            full = shape[buffer.iter_axis] * self.p.grid * self.p.slots()
            shape[buffer.iter_axis] = max(1, full - self.p.ragged)
        space = "" if buffer.is_global else f', "{buffer.space}"'
        return f"memref<{'x'.join(map(str, shape))}x{buffer.dtype}{space}>"

    def region(self, buffer: Buffer, context: str) -> str:
        if not buffer.is_global or buffer.iter_axis is None:
            return f"%{buffer.name}"
        offsets = [self.index(0)] * len(buffer.dims)
        offsets[buffer.iter_axis] = f"%o{context}_{buffer.dims[buffer.iter_axis]}"
        return f"%{buffer.name}[{', '.join(offsets)}]"

    def slot_offsets(self, stmts: list[Stmt], context: str, slot: str, indent: str) -> list[str]:
        """The offset of the current slot along each dimension a global tile advances."""
        symbols: list[str] = []
        for stmt in stmts:
            for name in stmt.operands:
                b = self.p.buffers[name]
                if b.is_global and b.iter_axis is not None:
                    symbol = b.dims[b.iter_axis]
                    if symbol not in symbols:
                        symbols.append(symbol)
        return [
            f"{indent}%o{context}_{s} = arith.muli {slot}, {self.index(self.p.dims[s])} : index"
            for s in symbols
        ]

    def scalar(self, value: float, dtype: str) -> str:
        key = (value, dtype)
        if key not in self.floats:
            self.floats[key] = f"%v{len(self.floats)}"
        return self.floats[key]

    def stmt(self, stmt: Stmt, context: str) -> str:
        b = [self.p.buffers[n] for n in stmt.operands]
        regions = [self.region(x, context) for x in b]
        types = [self.memref_type(x) for x in b]
        tile = "x".join(str(self.p.dims[d]) for d in stmt.tile)
        op = stmt.op
        if op == "fill":
            value = self.scalar(stmt.attrs["value"], b[0].dtype)
            return f"tile.fill<{tile}> {value} -> {regions[0]} : {b[0].dtype} -> {types[0]}"
        if op == "gemm":
            flags = "".join(f" {f}" for f in ("transpose_a", "transpose_b") if stmt.attrs.get(f))
            return (
                f"tile.gemm<{tile}> {regions[0]}, {regions[1]} -> {regions[2]}{flags} : "
                f"{types[0]}, {types[1]} -> {types[2]}"
            )
        if op in ("add", "sub", "mul", "max", "div"):
            return (
                f"tile.{op}<{tile}> {regions[0]}, {regions[1]} -> {regions[2]} : "
                f"{types[0]}, {types[1]} -> {types[2]}"
            )
        if op in ("reduce", "broadcast"):
            kind = f" {stmt.attrs['kind']}" if op == "reduce" else ""
            return (
                f"tile.{op}<{tile}>{kind} {regions[0]} -> {regions[1]} axis "
                f"{stmt.attrs['axis']} : {types[0]} -> {types[1]}"
            )
        # copy, exp, cast
        return f"tile.{op}<{tile}> {regions[0]} -> {regions[1]} : {types[0]} -> {types[1]}"

    def loop_header(self, index: int, loop: Loop) -> tuple[list[str], str]:
        """Scalar ops at the kernel's top (a dynamic bound) and the loop's first line."""
        before: list[str] = []
        lb, step = self.index(loop.lb), self.index(loop.step)
        if loop.trips is None:
            before.append(f"  %span{index} = arith.muli %{TRIP_COUNT_ARG}, {step} : index")
            before.append(f"  %end{index} = arith.addi %span{index}, {lb} : index")
            ub = f"%end{index}"
        else:
            ub = self.index(loop.lb + loop.step * loop.trips)
        if loop.stage is not None:
            schedule = f"stage = {loop.stage} order = {loop.order}"
        else:
            schedule = f"num_stages = {loop.num_stages}"
        return before, f"  pipeline.for %k{index} = {lb} to {ub} step {step} {schedule} {{"

    def render(self) -> str:
        p = self.p
        body: list[str] = []
        slot0 = "%slot0"
        top = [s for s in p.items if isinstance(s, Stmt)]
        prelude = [
            f"  %slot0 = arith.muli %bid, {self.index(p.slots())} : index"
            if p.use_block_id
            else f"  %slot0 = arith.addi {self.index(0)}, {self.index(0)} : index"
        ]
        prelude += self.slot_offsets(top, "t", slot0, "  ")
        loop_index = 0
        for item in p.items:
            if isinstance(item, Stmt):
                body.append("  " + self.stmt(item, "t"))
                continue
            before, header = self.loop_header(loop_index, item)
            prelude += before
            body.append(header)
            k = f"%k{loop_index}"
            body.append(f"    %it{loop_index} = arith.addi {slot0}, {k} : index")
            body += self.slot_offsets(item.body, str(loop_index), f"%it{loop_index}", "    ")
            body += ["    " + self.stmt(s, str(loop_index)) for s in item.body]
            body.append("  }")
            loop_index += 1
        used = p.used_buffers()
        args = [f"%{b.name}: {self.memref_type(b)}" for b in used if b.is_global]
        if p.is_dynamic:
            args.append(f"%{TRIP_COUNT_ARG}: index")
        attrs = [f"tile.grid = array<i64: {p.grid}>"]
        if p.threads is not None:
            attrs.append(f"tile.threads = {p.threads} : i64")
        attrs.append(f'tile.target = "{p.target}"')
        lines = [
            f"func.func @{p.name}({', '.join(args)})",
            f"    attributes {{{', '.join(attrs)}}} {{",
        ]
        lines += [f"  %c{v} = arith.constant {v} : index" for v in sorted(self.constants)]
        lines += [
            f"  {name} = arith.constant {_float_text(value)} : {dtype}"
            for (value, dtype), name in self.floats.items()
        ]
        if p.use_block_id:
            lines.append("  %bid = tile.block_id x")
        lines += [
            f"  %{b.name} = memref.alloc() : {self.memref_type(b)}" for b in used if not b.is_global
        ]
        lines += prelude + body + ["  func.return", "}", ""]
        return "\n".join(lines)
