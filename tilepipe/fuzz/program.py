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

Real shapes (docs/semantics.md, "Dynamic shapes and boundary tiles"): a global array's
*along* extent (its ``iter_axis``) and *across* extents (every other dimension) may be
drawn per symbol in :attr:`Program.shape_cases` instead of being whole tiles.  A
kernel with ``dynamic`` dimensions types them ``?`` and is checked at every case; a
static one writes its single case into the types (ragged arrays).  Loops may take their
trip count from an array's size (``ceildiv(dim, tile)``) and the grid may be a
``tile.grid_dims`` expression; ``divisibility`` states facts that hold for every case.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

CUDA_TARGETS = ("sm_80", "sm_90", "sm_90a")
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

    # copy gemm fill add sub mul max div exp log sqrt rsqrt cast reduce broadcast iota
    # cmp select
    op: str
    operands: tuple[str, ...]
    tile: tuple[str, ...]
    # axis, kind, value, transpose_a/b, dim (iota), predicate (cmp)
    attrs: dict = field(default_factory=dict)

    def written(self) -> str:
        return self.operands[-1]


@dataclass
class Loop:
    body: list[Stmt]
    lb: int = 0
    step: int = 1
    trips: int | None = 1  # None: the kernel's %n argument
    # The trip count is ceildiv(along extent, tile) of the kernel's first global
    # array (``trips`` then unused): every tile of that array, the last one partial.
    from_dim: bool = False
    num_stages: int | None = 2
    stage: list[int] | None = None
    order: list[int] | None = None

    @property
    def depth(self) -> int:
        if self.stage:
            return max(self.stage) + 1
        return self.num_stages or 1


Item = Stmt | Loop


@dataclass(frozen=True)
class Case:
    """One run of a check: the value of ``%n`` (None: no %n) and the sizes of the
    dynamically shaped arguments by name (none: every array is static)."""

    trips: int | None = None
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def index_args(self) -> dict[str, int]:
        return {} if self.trips is None else {TRIP_COUNT_ARG: self.trips}

    @property
    def shape_map(self) -> dict[str, tuple[int, ...]]:
        return dict(self.shapes)

    def __str__(self) -> str:
        parts = [] if self.trips is None else [f"{TRIP_COUNT_ARG} = {self.trips}"]
        parts += [f"%{name} = {'x'.join(map(str, shape))}" for name, shape in self.shapes]
        return ", ".join(parts) or "static sizes"

    def header(self) -> str:
        """The reproducer header's form: ``n=3 A=17x32`` (:func:`parse_case`)."""
        parts = [] if self.trips is None else [f"{TRIP_COUNT_ARG}={self.trips}"]
        parts += [f"{name}={'x'.join(map(str, shape))}" for name, shape in self.shapes]
        return " ".join(parts)


def parse_case(text: str) -> Case:
    """The inverse of :meth:`Case.header`."""
    trips, shapes = None, []
    for part in text.split():
        name, _, value = part.partition("=")
        if name == TRIP_COUNT_ARG:
            trips = int(value)
        else:
            shapes.append((name, tuple(int(v) for v in value.split("x"))))
    return Case(trips, tuple(shapes))


# A shape case: symbol -> (along extent, across extent).
Sizes = dict[str, tuple[int, int]]


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
    # Drawn extents (a case each; see the module doc).  Empty: whole tiles minus ragged.
    shape_cases: tuple[Sizes, ...] = ()
    dynamic: bool = False  # global arrays typed memref<?x...>, sized per case
    # (role, symbol) -> k with role "along"/"across": the extent is a multiple of k in
    # every case, stated as tile.divisibility on each dynamic array.
    divisibility: dict[tuple[str, str], int] = field(default_factory=dict)
    grid_from_shape: bool = False  # tile.grid_dims ceildiv(first array's extent, span)
    seed: int = 0
    name: str = "fuzz"

    @property
    def loops(self) -> list[Loop]:
        return [item for item in self.items if isinstance(item, Loop)]

    @property
    def is_dynamic(self) -> bool:
        return any(loop.trips is None and not loop.from_dim for loop in self.loops)

    @property
    def is_ascend(self) -> bool:
        return self.target == ASCEND_TARGET

    def trip_counts(self) -> list[int | None]:
        """The values of %n a check runs the kernel with ([None]: no %n)."""
        return list(self.dynamic_trips) if self.is_dynamic else [None]

    def cases(self) -> list[Case]:
        """The runs a check makes: each value of %n, each shape case (zipped, the
        shorter list repeated)."""
        trips = self.trip_counts()
        if not self.dynamic or not self.shape_cases:
            return [Case(n) for n in trips]
        globals_ = [b for b in self.used_buffers() if b.is_global]
        count = max(len(trips), len(self.shape_cases))
        return [
            Case(trips[i % len(trips)], tuple(
                (b.name, self.global_shape(b, self.shape_cases[i % len(self.shape_cases)]))
                for b in globals_
            ))
            for i in range(count)
        ]

    def global_shape(self, buffer: Buffer, sizes: Sizes | None) -> tuple[int, ...]:
        """A global array's extents: drawn ones, or whole tiles minus ``ragged``."""
        if sizes:
            return tuple(
                sizes[d][0 if axis == buffer.iter_axis else 1] for axis, d in enumerate(buffer.dims)
            )
        shape = [self.dims[d] for d in buffer.dims]
        if buffer.iter_axis is not None:
            full = shape[buffer.iter_axis] * self.grid * self.slots()
            shape[buffer.iter_axis] = max(1, full - self.ragged)
        return tuple(shape)

    def slots(self) -> int:
        largest = max(self.dynamic_trips, default=0)
        spans = [
            loop.lb + loop.step * max((largest if loop.trips is None else loop.trips) - 1, 0) + 1
            for loop in self.loops
            if not loop.from_dim  # only in one-block kernels, where slots do not matter
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
        return replace(
            self, dims=dict(self.dims), buffers=dict(self.buffers), items=items,
            shape_cases=tuple(dict(c) for c in self.shape_cases),
            divisibility=dict(self.divisibility),
        )

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
        if not buffer.is_global:
            shape = "x".join(str(self.p.dims[d]) for d in buffer.dims)
            return f'memref<{shape}x{buffer.dtype}, "{buffer.space}">'
        if self.p.dynamic:
            shape = "x".join("?" for _ in buffer.dims)
        else:
            sizes = self.p.shape_cases[0] if self.p.shape_cases else None
            shape = "x".join(map(str, self.p.global_shape(buffer, sizes)))
        return f"memref<{shape}x{buffer.dtype}>"

    def argument(self, buffer: Buffer) -> str:
        text = f"%{buffer.name}: {self.memref_type(buffer)}"
        facts = [
            self.p.divisibility.get(("along" if axis == buffer.iter_axis else "across", d), 1)
            for axis, d in enumerate(buffer.dims)
        ]
        if self.p.dynamic and any(k > 1 for k in facts):
            text += f" {{tile.divisibility = array<i64: {', '.join(map(str, facts))}>}}"
        return text

    def extent(self, name: str, first: Buffer, tile: int) -> list[str]:
        """``%{name} = ceildiv(first's along extent, tile)``."""
        return [
            f"  %{name}_dim = memref.dim %{first.name}, {self.index(first.iter_axis)} : "
            f"{self.memref_type(first)}",
            f"  %{name} = arith.ceildivui %{name}_dim, {self.index(tile)} : index",
        ]

    def first_global(self) -> Buffer | None:
        """The array whose size sets loop bounds and the grid (the minimizer may have
        dropped every use of the one the generator meant: then any other)."""
        return next(
            (b for b in self.p.used_buffers() if b.is_global and b.iter_axis is not None), None
        )

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
        if op in ("fill", "iota"):
            value = self.scalar(stmt.attrs["value"], b[0].dtype)
            dim = f" dim {stmt.attrs['dim']}" if op == "iota" else ""
            return f"tile.{op}<{tile}> {value} -> {regions[0]}{dim} : {b[0].dtype} -> {types[0]}"
        if op == "gemm":
            flags = "".join(f" {f}" for f in ("transpose_a", "transpose_b") if stmt.attrs.get(f))
            return (
                f"tile.gemm<{tile}> {regions[0]}, {regions[1]} -> {regions[2]}{flags} : "
                f"{types[0]}, {types[1]} -> {types[2]}"
            )
        if op in ("add", "sub", "mul", "max", "div", "cmp", "select"):
            predicate = f" {stmt.attrs['predicate']}" if op == "cmp" else ""
            *inputs, out = regions
            *input_types, out_type = types
            return (
                f"tile.{op}<{tile}>{predicate} {', '.join(inputs)} -> {out} : "
                f"{', '.join(input_types)} -> {out_type}"
            )
        if op in ("reduce", "broadcast"):
            kind = f" {stmt.attrs['kind']}" if op == "reduce" else ""
            return (
                f"tile.{op}<{tile}>{kind} {regions[0]} -> {regions[1]} axis "
                f"{stmt.attrs['axis']} : {types[0]} -> {types[1]}"
            )
        # copy, exp, log, sqrt, rsqrt, cast
        return f"tile.{op}<{tile}> {regions[0]} -> {regions[1]} : {types[0]} -> {types[1]}"

    def loop_header(self, index: int, loop: Loop) -> tuple[list[str], str]:
        """Scalar ops at the kernel's top (a dynamic bound) and the loop's first line."""
        before: list[str] = []
        lb, step = self.index(loop.lb), self.index(loop.step)
        first = self.first_global() if loop.from_dim else None
        if first is not None:
            before += self.extent(f"trips{index}", first, self.p.dims[first.dims[first.iter_axis]])
            before.append(f"  %span{index} = arith.muli %trips{index}, {step} : index")
            before.append(f"  %end{index} = arith.addi %span{index}, {lb} : index")
            ub = f"%end{index}"
        elif loop.trips is None and not loop.from_dim:
            before.append(f"  %span{index} = arith.muli %{TRIP_COUNT_ARG}, {step} : index")
            before.append(f"  %end{index} = arith.addi %span{index}, {lb} : index")
            ub = f"%end{index}"
        else:  # static (or from_dim without any array left: one trip)
            trips = 1 if loop.from_dim else loop.trips
            ub = self.index(loop.lb + loop.step * trips)
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
        args = [self.argument(b) for b in used if b.is_global]
        if p.is_dynamic:
            args.append(f"%{TRIP_COUNT_ARG}: index")
        first = self.first_global() if p.grid_from_shape else None
        if first is not None:
            span = p.dims[first.dims[first.iter_axis]] * p.slots()
            prelude = [*self.extent("grid", first, span), "  tile.grid_dims %grid", *prelude]
            attrs = []
        else:
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
