"""Seeded random *valid* tile kernels over the surface the dialect admits:
``generate(seed, target)`` returns a :class:`~tilepipe.fuzz.program.Program`, the
same for the same seed and target.  What is drawn, and why it is valid by
construction: docs/fuzzing.md, "What is generated"."""

from __future__ import annotations

import math
import random

from tilepipe.fuzz.program import ASCEND_TARGET, Buffer, Loop, Program, Stmt

CUDA_SPACES = ("shared", "shared", "shared", "fragment", "fragment", "local")
FILL_VALUES = (0.0, 1.0, -0.5, 2.0)
BINARY = ("add", "sub", "mul", "max", "div")
UNARY_MATH = ("exp", "exp", "log", "sqrt", "rsqrt")
ATOMIC_ADD_DTYPES = ("f32", "f16", "i32")  # tile.atomic_add's element types
PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


class _Builder:
    """Draws statements while tracking which on-chip buffers hold data."""

    def __init__(self, rng: random.Random, program: Program, spaces, binary, unary, extra):
        self.rng = rng
        self.p = program
        self.spaces = spaces
        self.binary = binary
        self.unary = unary  # of exp, cast
        self.extra = extra  # of gemm, reduce, broadcast, move
        self.count = 0
        # Which element-wise op a drawn statement is (exp or log, add or cmp, fill or
        # iota, ...) comes from a stream of its own: the main stream, and so each
        # seed's program structure, stays what it was before those ops existed.
        self.variety = random.Random(f"variety:{program.kind}:{program.seed}")
        # Whether a store into an output is an atomic add: a stream of its own too.
        self.atomics = random.Random(f"atomics:{program.kind}:{program.seed}")
        # A buffer a loop writes (other than a gemm accumulator) may get versions, and
        # the passes reject any use of a versioned buffer outside its loop: such a
        # buffer is private to its loop, and a loop writes no buffer used outside it.
        self.private: set[str] = set()
        self.outside: set[str] = set()
        self.in_loop = False
        # Statements added after drawn ones from a stream of their own (Ascend: div,
        # cast, reduce, UB -> UB copies), writing buffers named apart (``ux0``, ...):
        # the main stream, and each seed's program otherwise, stay what they were.
        self.extras: random.Random | None = None
        self.extra_count = 0

    def open_loop(self) -> None:
        self.in_loop = True

    def close_loop(self, body: list[Stmt], live: list[str]) -> None:
        self.in_loop = False
        written = {s.written() for s in body if s.op != "gemm"}
        self.private |= written
        self.outside |= {n for s in body for n in s.operands} - written
        for name in written:  # what the loop wrote is not certainly written after it
            if name in live:
                live.remove(name)

    def compares(self, dims, dtype: str) -> bool:
        """May a ``dims`` tile of ``dtype`` be compared (a mask, a cmp operand)?"""
        return True

    def writable(self, name: str) -> bool:
        return name not in self.private and not (self.in_loop and name in self.outside)

    # -- buffers

    def buffer(self, prefix: str, dims, dtype: str, space: str, iter_axis=None) -> str:
        name = f"{prefix}{self.count}"
        self.count += 1
        self.p.buffers[name] = Buffer(name, tuple(dims), dtype, space, iter_axis)
        return name

    def global_in(self, dims, dtype: str) -> str:
        for b in self.p.buffers.values():
            if b.is_global and b.name.startswith("in") and b.dims == tuple(dims) and b.dtype == dtype:
                return b.name
        return self.buffer("in", dims, dtype, "global", 0)

    def destination(self, dims, dtype: str, spaces=None, avoid: str = "") -> str:
        """An existing on-chip buffer of this shape (a reuse: WAR/WAW hazards) or a new
        one; never ``avoid`` (a copy's source: copies do not work in place)."""
        spaces = spaces or self.spaces
        same = [
            b.name for b in self.p.buffers.values()
            if not b.is_global and b.dims == tuple(dims) and b.dtype == dtype
            and b.space in spaces and b.name != avoid and self.writable(b.name)
        ]
        if same and self.rng.random() < 0.5:
            return self.rng.choice(same)
        prefix = {"shared": "s", "fragment": "f", "local": "l"}.get(spaces[0], spaces[0])
        return self.buffer(prefix, dims, dtype, self.rng.choice(spaces))

    def ready(self, live: list[str], dims=None, dtype=None, spaces=None) -> list[str]:
        out = []
        for name in live:
            b = self.p.buffers[name]
            if dims is not None and b.dims != tuple(dims):
                continue
            if dtype is not None and b.dtype != dtype:
                continue
            if spaces is not None and b.space not in spaces:
                continue
            out.append(name)
        return out

    def ensure(self, out: list[Stmt], live: list[str], dims, dtype, spaces=None) -> str:
        """A buffer holding data of this shape: a live one, or one loaded now."""
        candidates = self.ready(live, dims, dtype, spaces)
        if candidates and self.rng.random() < 0.7:
            return self.rng.choice(candidates)
        dst = self.destination(dims, dtype, spaces)
        self.emit(out, live, Stmt("copy", (self.global_in(dims, dtype), dst), tuple(dims)))
        return dst

    def emit(self, out: list[Stmt], live: list[str], stmt: Stmt) -> None:
        out.append(stmt)
        if not self.in_loop:
            self.outside.update(stmt.operands)
        written = stmt.written()
        if not self.p.buffers[written].is_global and written not in live:
            live.append(written)

    # -- statements

    def shape(self) -> tuple[str, ...]:
        return self.rng.choice([("m", "n"), ("m", "k"), ("k", "n"), ("m", "n"), ("n",), ("m",)])

    def dtype(self) -> str:
        return self.rng.choice(self.dtypes)

    dtypes = ("f32", "f16", "bf16")

    def store(self, out: list[Stmt], live: list[str]) -> None:
        if not live:
            return
        src = self.rng.choice(live)
        b = self.p.buffers[src]
        dst = self.buffer("out", b.dims, b.dtype, "global", 0)
        self.emit(out, live, Stmt(self.store_op(b.dtype), (src, dst), b.dims))

    def store_op(self, dtype: str) -> str:
        """``copy``, or now and then on CUDA ``atomic_add``: the outputs start with
        the run's random inputs, and the grid is one-dimensional, so every
        interpreter adds in the same block order (docs/semantics.md)."""
        atomic = self.atomics.random() < 0.25
        if atomic and self.p.kind == "cuda" and dtype in ATOMIC_ADD_DTYPES:
            return "atomic_add"
        return "copy"

    def draw(self, out: list[Stmt], live: list[str]) -> None:
        kinds = ["load", "binary", "binary", "fill", "store", *self.unary, *self.extra]
        kind = self.rng.choice(kinds)
        rng = self.rng
        if kind == "load":
            dims, dtype = self.shape(), self.dtype()
            dst = self.destination(dims, dtype)
            self.emit(out, live, Stmt("copy", (self.global_in(dims, dtype), dst), dims))
        elif kind == "fill":
            dims, dtype = self.shape(), self.dtype()
            value = rng.choice(FILL_VALUES)
            dst = self.destination(dims, dtype)
            if self.variety.random() < 0.3:  # coordinates instead
                attrs = {"value": value, "dim": self.variety.randrange(len(dims))}
                self.emit(out, live, Stmt("iota", (dst,), dims, attrs))
            else:
                self.emit(out, live, Stmt("fill", (dst,), dims, {"value": value}))
        elif kind == "store":
            self.store(out, live)
        elif kind in ("binary", "exp", "move"):
            dims, dtype = self.shape(), self.dtype()
            lhs = self.ensure(out, live, dims, dtype)
            if kind == "binary":
                rhs = self.ensure(out, live, dims, dtype)
                op = rng.choice(self.binary)
                self.emit(out, live, self.elementwise(op, lhs, rhs, self.destination(dims, dtype), dims, live))
            else:
                op = self.variety.choice(UNARY_MATH) if kind == "exp" else "copy"
                dst = self.destination(dims, dtype, avoid=lhs if op == "copy" else "")
                self.emit(out, live, Stmt(op, (lhs, dst), dims))
        elif kind == "cast":
            dims = self.shape()
            src_type, dst_type = rng.sample(self.dtypes, 2)
            src = self.ensure(out, live, dims, src_type)
            self.emit(out, live, Stmt("cast", (src, self.destination(dims, dst_type)), dims))
        elif kind == "reduce":
            dims, dtype, axis = ("m", "n"), self.dtype(), rng.choice((0, 1))
            src = self.ensure(out, live, dims, dtype)
            dst = self.destination((dims[1 - axis],), dtype)
            stmt = Stmt("reduce", (src, dst), dims, {"axis": axis, "kind": rng.choice(("sum", "max"))})
            self.emit(out, live, stmt)
        elif kind == "broadcast":
            dims, dtype, axis = ("m", "n"), self.dtype(), rng.choice((0, 1))
            src = self.ensure(out, live, (dims[1 - axis],), dtype)
            self.emit(out, live, Stmt("broadcast", (src, self.destination(dims, dtype)), dims, {"axis": axis}))
        elif kind == "gemm":
            self.gemm(out, live)
        if self.extras is not None and self.extras.random() < 0.4:
            self.draw_extra(out, live)

    def draw_extra(self, out: list[Stmt], live: list[str]) -> None:
        """One more statement on a live buffer, every choice from ``self.extras``."""
        pick = self.extras
        assert pick is not None
        sources = [n for n in live if not self.p.buffers[n].is_global]
        if not sources:
            return
        src = self.p.buffers[pick.choice(sources)]
        kind = pick.choice(("div", "cast", "reduce", "move"))

        def fresh(dims, dtype: str) -> str:
            name = f"ux{self.extra_count}"
            self.extra_count += 1
            self.p.buffers[name] = Buffer(name, tuple(dims), dtype, src.space, None)
            return name

        if kind == "div":
            peers = [n for n in self.ready(live, src.dims, src.dtype, (src.space,))]
            rhs = pick.choice(peers)
            stmt = Stmt("div", (src.name, rhs, fresh(src.dims, src.dtype)), src.dims)
        elif kind == "cast":
            other = "f16" if src.dtype == "f32" else "f32"
            stmt = Stmt("cast", (src.name, fresh(src.dims, other)), src.dims)
        elif kind == "reduce" and len(src.dims) == 2:
            axis = pick.choice((0, 1))
            attrs = {"axis": axis, "kind": pick.choice(("sum", "max"))}
            stmt = Stmt("reduce", (src.name, fresh((src.dims[1 - axis],), src.dtype)), src.dims, attrs)
        else:
            stmt = Stmt("copy", (src.name, fresh(src.dims, src.dtype)), src.dims)
        self.emit(out, live, stmt)

    def elementwise(self, op: str, lhs: str, rhs: str, dst: str, dims, live: list[str]) -> Stmt:
        """The binary ``op`` drawn, or at times a comparison of its operands or a
        selection between them by a mask of the same shape (any live one that may be
        compared, else ``lhs``)."""
        dtype = self.p.buffers[lhs].dtype
        choice = self.variety.random()
        if choice < 0.2 and self.compares(dims, dtype):
            predicate = self.variety.choice(PREDICATES)
            return Stmt("cmp", (lhs, rhs, dst), dims, {"predicate": predicate})
        if choice < 0.35:
            masks = [
                name for name in self.ready(live, dims)
                if self.compares(dims, self.p.buffers[name].dtype)
            ]
            if masks:
                return Stmt("select", (self.variety.choice(masks), lhs, rhs, dst), dims)
        return Stmt(op, (lhs, rhs, dst), dims)

    def gemm(self, out: list[Stmt], live: list[str]) -> None:
        rng = self.rng
        accumulators = self.ready(live, ("m", "n"), "f32", ("fragment",))
        if not accumulators:
            return  # accumulators are zero-filled in the prologue (CUDA)
        dtype = rng.choice(self.dtypes)
        ta, tb = rng.random() < 0.3, rng.random() < 0.3
        a = self.ensure(out, live, ("k", "m") if ta else ("m", "k"), dtype, ("shared", "fragment"))
        b = self.ensure(out, live, ("n", "k") if tb else ("k", "n"), dtype, ("shared",))
        attrs = {"transpose_a": ta, "transpose_b": tb}
        self.emit(out, live, Stmt("gemm", (a, b, rng.choice(accumulators)), ("m", "n", "k"), attrs))


# --------------------------------------------------------------------------- loops


def _schedule(rng: random.Random, loop: Loop) -> None:
    """num_stages 1-5, or TileLang-style stage/order arrays (checked by
    :func:`_valid_schedule` once the whole program exists)."""
    if rng.random() < 0.35 and len(loop.body) >= 2:
        depth = rng.randint(2, 4)
        size = len(loop.body)
        stages = sorted(rng.randint(0, depth - 1) for _ in range(size))
        shift = rng.randint(0, size - 1) if rng.random() < 0.4 else 0
        loop.stage, loop.order, loop.num_stages = stages, [(i + shift) % size for i in range(size)], None
    else:
        loop.num_stages = rng.choice((1, 2, 2, 3, 3, 4, 5))


def _trips(rng: random.Random, loop: Loop, dynamic: bool, least: int = 0) -> None:
    if dynamic:
        loop.trips = None
        return
    depth = loop.depth
    loop.trips = max(least, rng.choice((0, 1, 2, max(depth - 1, 0), depth, rng.randint(6, 10))))


def _valid_schedule(program: Program, index: int) -> bool:
    from tilepipe.core.diagnostics import OpDiagnosticError
    from tilepipe.dialects.pipeline import ForOp
    from tilepipe.passes.pipelining.pipeline_validate import validate_pipeline_loop
    from tilepipe.semantics import KernelError, load_module

    try:
        module = load_module(program.text())
    except KernelError:
        return False
    loops = [op for op in module.walk() if isinstance(op, ForOp)]
    try:
        validate_pipeline_loop(loops[index])
    except OpDiagnosticError:
        return False
    return True


def _settle_schedules(rng: random.Random, program: Program) -> None:
    for index, loop in enumerate(program.loops):
        for _ in range(4):
            if loop.stage is None or _valid_schedule(program, index):
                break
            _schedule(rng, loop)
        if loop.stage is not None and not _valid_schedule(program, index):
            loop.stage = loop.order = None
            loop.num_stages = rng.choice((2, 3))


# --------------------------------------------------------------------------- CUDA


RING_GEMM_EVERY = 5  # CUDA seeds that are multiples of 5 draw the ring GEMM (_ring_gemm)


def _ring_gemm(rng: random.Random, target: str, seed: int) -> Program:
    """A pipelined GEMM whose loop only copies tiles into shared memory and multiplies
    them into a fragment: on sm_90a a warp-specialized producer/consumer ring when the
    copies can be tensor copies and the gemm runs on wgmma (one or two warpgroups,
    64-row slabs), elsewhere an ordinary pipelined loop; ragged arrays reach past the
    boxes, transposed operands, f16 or bf16."""
    m = rng.choice((64, 64, 128))
    dims = {"m": m, "n": rng.choice((16, 32, 64)), "k": rng.choice((16, 32, 64))}
    program = Program(target, "cuda", dims, {}, [], seed=seed)
    program.threads = 256 if m == 128 and rng.random() < 0.5 else 128
    program.grid = rng.choice((1, 2, 2))
    program.use_block_id = program.grid > 1
    program.dynamic_trips = tuple(sorted(rng.sample((0, 1, 2, 3, 5, 7), 3)))
    b = _Builder(rng, program, CUDA_SPACES, BINARY, (), ())
    live: list[str] = []
    acc = b.buffer("acc", ("m", "n"), "f32", "fragment")
    b.emit(program.items, live, Stmt("fill", (acc,), ("m", "n"), {"value": 0.0}))
    dtype = rng.choice(("f16", "bf16"))
    ta, tb = rng.random() < 0.25, rng.random() < 0.25
    a_dims, b_dims = ("k", "m") if ta else ("m", "k"), ("n", "k") if tb else ("k", "n")
    a, bb = b.buffer("s", a_dims, dtype, "shared"), b.buffer("s", b_dims, dtype, "shared")
    b.open_loop()
    body = [
        Stmt("copy", (b.global_in(a_dims, dtype), a), a_dims),
        Stmt("copy", (b.global_in(b_dims, dtype), bb), b_dims),
        Stmt("gemm", (a, bb, acc), ("m", "n", "k"), {"transpose_a": ta, "transpose_b": tb}),
    ]
    loop = Loop(body, lb=rng.choice((0, 0, 1)), step=rng.choice((1, 1, 2)))
    loop.num_stages = rng.choice((1, 2, 2, 3, 4))
    _trips(rng, loop, rng.random() < 0.5)
    program.items.append(loop)
    b.close_loop(body, live)
    out = b.buffer("out", ("m", "n"), "f32", "global", 0)
    program.items.append(Stmt("copy", (acc, out), ("m", "n")))
    _real_shapes(rng, program)
    return program


def _cuda(rng: random.Random, target: str, seed: int) -> Program:
    if seed % RING_GEMM_EVERY == 0:
        return _ring_gemm(rng, target, seed)
    # m = 64 with 128 threads is a wgmma gemm's shape (one warpgroup, one slab) on sm_90a.
    dims = {"m": rng.choice((16, 32, 32, 64, 64)), "n": rng.choice((16, 32)), "k": rng.choice((16, 32))}
    program = Program(target, "cuda", dims, {}, [], seed=seed)
    program.threads = rng.choice((32, 64, 128, 128))
    program.grid = rng.choice((1, 1, 1, 1, 2, 2, 3))
    program.use_block_id = program.grid > 1 or rng.random() < 0.2
    program.dynamic_trips = tuple(sorted(rng.sample((0, 1, 2, 3, 5, 7), 3)))
    extra = ["gemm", "gemm", "reduce", "broadcast", "move"]
    b = _Builder(rng, program, CUDA_SPACES, BINARY, ("exp", "cast"), extra)
    live: list[str] = []
    prologue: list[Stmt] = []
    if rng.random() < 0.7:
        acc = b.buffer("acc", ("m", "n"), "f32", "fragment")
        b.emit(prologue, live, Stmt("fill", (acc,), ("m", "n"), {"value": 0.0}))
    for _ in range(rng.randint(0, 2)):
        b.draw(prologue, live)
    program.items += prologue
    dynamic = rng.random() < 0.4
    for _ in range(rng.choice((1, 1, 1, 1, 2, 2, 3))):
        body: list[Stmt] = []
        inner = list(live)
        b.open_loop()
        for _ in range(rng.randint(1, 4)):
            b.draw(body, inner)
        if not any(program.buffers[s.written()].is_global for s in body):
            b.store(body, [n for n in inner if n not in live] or inner)
        loop = Loop(body, lb=rng.choice((0, 0, 0, 1, 3)), step=rng.choice((1, 1, 1, 2, 3)))
        _schedule(rng, loop)
        _trips(rng, loop, dynamic and rng.random() < 0.8)
        program.items.append(loop)
        b.close_loop(body, live)
        between: list[Stmt] = []
        for _ in range(rng.randint(0, 1)):
            b.draw(between, live)
        program.items += between
    epilogue: list[Stmt] = []
    for name in b.ready(live, ("m", "n"), "f32", ("fragment",)):
        if rng.random() < 0.5:  # through shared memory: a shared-memory epilogue
            staged = b.destination(("m", "n"), "f32", ("shared",))
            b.emit(epilogue, live, Stmt("copy", (name, staged), ("m", "n")))
            name = staged
        dst = b.buffer("out", ("m", "n"), "f32", "global", 0)
        b.emit(epilogue, live, Stmt("copy", (name, dst), ("m", "n")))
    program.items += epilogue
    _settle_schedules(rng, program)
    _real_shapes(rng, program)
    return program


def _along(rng: random.Random, tile: int, reach: int) -> int:
    """An extent along the slots: 1, just below or above a tile multiple, the whole
    reach of the grid or past it (elements no block touches)."""
    return max(1, rng.choice((1, tile - 1, tile + 1, 2 * tile - 1, reach - 1, reach, reach + 3)))


def _across(rng: random.Random, tile: int) -> int:
    return max(1, rng.choice((1, tile - 1, tile, tile, tile + 1, 2 * tile - 3)))


def _real_shapes(rng: random.Random, program: Program) -> None:
    """Global arrays that are not whole tiles (docs/semantics.md, boundary tiles).

    Drawn after everything else so that a seed's whole-tile kernel stays the one it
    was; about two kernels in three keep whole tiles.  A static kernel gets one drawn
    case written into its types (its grid may reach past the arrays: blocks that read
    zeros and write nothing); a dynamic one ``?`` dimensions checked at three cases,
    on one block with its ``%n`` loops bounded by ``ceildiv(extent, tile)``, or on a
    grid that is either static or ``tile.grid_dims`` of an extent.  Divisibility facts are made
    true by rounding every case's extent up to a multiple."""
    draw = rng.random()
    if draw < 0.65:
        return
    p = program
    p.dynamic = draw >= 0.8
    if p.dynamic and not p.use_block_id:
        # A loop bounded by %n bounds itself by the array it walks instead: still a
        # trip count the compiler cannot see, so the kernel costs the passes what it
        # did (thread-sync's hazards are much slower on symbolic trip counts).
        for loop in p.loops:
            loop.from_dim = loop.trips is None and rng.random() < 0.8
    elif p.dynamic:
        p.grid_from_shape = rng.random() < 0.5
    facts: dict[tuple[str, str], int] = {}
    if p.dynamic and rng.random() < 0.35:
        # The (role, symbol) pairs some array's dimension has, in program order.
        pairs: list[tuple[str, str]] = []
        for b in p.used_buffers():
            for axis, symbol in enumerate(b.dims if b.is_global else ()):
                pair = ("along" if axis == b.iter_axis else "across", symbol)
                if pair not in pairs:
                    pairs.append(pair)
        for pair in pairs:
            if rng.random() < 0.5:
                facts[pair] = rng.choice((2, 4, 8, 16))
    p.divisibility = facts
    reach = p.grid * p.slots()
    cases = []
    for _ in range(3 if p.dynamic else 1):
        sizes = {}
        for symbol in sorted(p.dims):
            tile = p.dims[symbol]
            # A one-block dynamic kernel's loops run ceildiv(extent, tile) times: keep
            # them short (the interpreters' time grows with the trip count).
            along = _along(rng, tile, tile * reach if not p.dynamic or p.use_block_id else 3 * tile)
            if not p.dynamic and p.grid > 1 and rng.random() < 0.3:
                along = max(1, tile * reach - tile * p.slots() - 3)  # the last block: all past
            extents = [along, _across(rng, tile)]
            for i, role in enumerate(("along", "across")):
                k = facts.get((role, symbol), 1)
                extents[i] = -(-extents[i] // k) * k
            sizes[symbol] = (extents[0], extents[1])
        cases.append(sizes)
    p.shape_cases = tuple(cases)


# --------------------------------------------------------------------------- Ascend


def _ascend_vector(rng: random.Random, program: Program, b: _Builder, loops: int) -> None:
    live: list[str] = []
    dynamic = rng.random() < 0.3
    if rng.random() < 0.5:
        dims = b.shape()
        b.emit(program.items, live, Stmt("fill", (b.destination(dims, b.dtypes[0]),), dims, {"value": rng.choice(FILL_VALUES)}))
    for index in range(loops):
        body: list[Stmt] = []
        inner = list(live)
        b.open_loop()
        for _ in range(rng.randint(1, 4)):
            b.draw(body, inner)
        if not any(program.buffers[s.written()].is_global for s in body):
            b.store(body, [n for n in inner if n not in live] or inner)
        loop = Loop(body, lb=rng.choice((0, 0, 1)), step=rng.choice((1, 1, 2)))
        _schedule(rng, loop)
        _trips(rng, loop, dynamic)
        program.items.append(loop)
        b.close_loop(body, live)
        if rng.random() < 0.3:  # straight-line vector code between loops
            b.draw(program.items, live)


def _ascend_cube(rng: random.Random, program: Program, b: _Builder, dynamic: bool) -> str:
    """GM -> L1 -> L0A/L0B, mmad into L0C, L0C -> GM; returns the GM result."""
    a = b.buffer("in", ("m", "k"), "f16", "global", 1)
    bb = b.buffer("in", ("k", "n"), "f16", "global", 0)
    a1, b1 = b.buffer("a_l1_", ("m", "k"), "f16", "l1"), b.buffer("b_l1_", ("k", "n"), "f16", "l1")
    a0, b0 = b.buffer("a_l0a", ("m", "k"), "f16", "l0a"), b.buffer("b_l0b", ("k", "n"), "f16", "l0b")
    c0 = b.buffer("c_l0c", ("m", "n"), "f32", "l0c")
    program.items.append(Stmt("fill", (c0,), ("m", "n"), {"value": 0.0}))
    body = [
        Stmt("copy", (a, a1), ("m", "k")),
        Stmt("copy", (bb, b1), ("k", "n")),
        Stmt("copy", (a1, a0), ("m", "k")),
        Stmt("copy", (b1, b0), ("k", "n")),
        Stmt("gemm", (a0, b0, c0), ("m", "n", "k"), {}),
    ]
    if rng.random() < 0.3:
        body[0], body[1] = body[1], body[0]
    loop = Loop(body, lb=rng.choice((0, 0, 1)), step=rng.choice((1, 1, 2)))
    _schedule(rng, loop)
    # L0C's zero fill folds into the first mmad: the loop must run (docs/ascend.md).
    _trips(rng, loop, dynamic, least=1)
    program.items.append(loop)
    out = b.buffer("out", ("m", "n"), "f32", "global", 0)
    program.items.append(Stmt("copy", (c0, out), ("m", "n")))
    return out


def _ascend(rng: random.Random, seed: int) -> Program:
    kind = rng.choice(("ascend-vector", "ascend-vector", "ascend-cube", "ascend-mixed"))
    dims = {"m": rng.choice((16, 32)), "n": rng.choice((16, 32, 64)), "k": rng.choice((16, 32))}
    program = Program(ASCEND_TARGET, kind, dims, {}, [], threads=None, seed=seed)
    b = _Builder(rng, program, ("ub",), ("add", "sub", "mul", "max"), ("exp",), ())
    b.dtypes = ("f32", "f16")
    b.extras = random.Random(f"ascend-extras:{seed}")
    # The vector unit compares whole 256-byte repeats (lowering/ascend/ascendc_masks.py).
    b.compares = lambda dims, dtype: (  # type: ignore[method-assign]
        math.prod(program.dims[d] for d in dims) * (2 if dtype == "f16" else 4) % 256 == 0
    )
    b.shape = lambda: rng.choice((("m", "n"), ("n",), ("m", "n")))  # type: ignore[method-assign]
    dynamic = rng.random() < 0.3
    program.dynamic_trips = tuple(sorted(rng.sample((1, 2, 3, 5), 3))) if kind != "ascend-vector" else tuple(sorted(rng.sample((0, 1, 2, 3, 5), 3)))
    if kind == "ascend-vector":
        _ascend_vector(rng, program, b, rng.choice((1, 1, 2)))
    elif kind == "ascend-cube":
        _ascend_cube(rng, program, b, dynamic)
    else:
        w = _ascend_cube(rng, program, b, dynamic)
        # The vector core reads the cube's result back from GM (a cross-core hand-over).
        w_ub = b.buffer("w_ub", ("m", "n"), "f32", "ub")
        live = [w_ub]
        program.items.append(Stmt("copy", (w, w_ub), ("m", "n")))
        for _ in range(rng.randint(1, 3)):
            b.draw(program.items, live)
        b.store(program.items, live)
    _settle_schedules(rng, program)
    # Multi-block grids with block_id offsets (the pipe simulator runs every block);
    # drawn last, so a seed's one-block kernel is the one it always was.
    program.grid = rng.choice((1, 1, 1, 2, 3))
    program.use_block_id = program.grid > 1
    # Ragged arrays (boundary tiles: DataCopyPad, InitConstValue + ND->NZ, a partial
    # Fixpipe); every tile extent is at least 16, so the last tile keeps elements.
    program.ragged = rng.choice((0, 0, 0, 1, 5, 15))
    return program


SAME_DRAW = {"sm_90a": "sm_90"}


def generate(seed: int, target: str) -> Program:
    """The kernel of ``seed`` for ``target`` (sm_80, sm_90, sm_90a or ascend910b).
    sm_90a draws sm_90's kernel (the same program, retargeted): a seed then runs the
    same kernel through the row-wise bulk copies and the tensor-map ones."""
    rng = random.Random(f"{SAME_DRAW.get(target, target)}:{seed}")
    if target == ASCEND_TARGET:
        return _ascend(rng, seed)
    return _cuda(rng, target, seed)
