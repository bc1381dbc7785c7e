"""Random kernels for the fragment properties of test_nvvm_property.py: register
fragments the software pipeline versions (a fragment that crosses stages), and tile ops
over parts of fragments, fragments of other layouts and broadcasts from fragments --
the cases ``lower-to-nvvm`` once refused and now lowers (``nvvm_fragment_slots``,
``nvvm_relayout``)."""

from __future__ import annotations

from hypothesis import strategies as st

from nvvm_kernel_gen import Case, Kernel, THREADS, _dims
from tilepipe.lowering.nvvm.layout import choose_warp_grid

TRIP_COUNTS = (0, 1, 2, 5, 17)
MAX_TRIPS = max(TRIP_COUNTS)


@st.composite
def versioned_fragment_kernels(draw) -> Case:
    """A loop that loads one row block of X per iteration into shared memory, copies
    it into a fragment, runs a chain of fill/exp/add/mul/max, each into a fragment of
    its own, and stores one of them to the iteration's row block of O, each statement
    at a stage no earlier than the one before: a fragment read at a later stage than
    its write gets versions from the pipeliner."""
    rows, cols = draw(st.sampled_from((8, 16))), draw(st.sampled_from((16, 32)))
    tile, dims = (rows, cols), _dims((rows, cols))
    kernel = Kernel("versioned", draw(st.sampled_from(THREADS)))
    x = kernel.arg("X", (rows * MAX_TRIPS, cols), "f32")
    out = kernel.arg("O", (rows * MAX_TRIPS, cols), "f32")
    kernel.index_args.append("n")
    shared = kernel.alloc("S", tile, "f32", "shared")
    f_type = kernel.alloc("F0", tile, "f32", "fragment").type
    statements = [
        f"tile.copy<{dims}> %X[%r, {kernel.index(0)}] -> %S : {x.type} -> {shared.type}",
        f"tile.copy<{dims}> %S -> %F0 : {shared.type} -> {f_type}",
    ]
    part = draw(st.booleans())
    if part:
        # The lower half of F0 replaced by the exp of its upper half: a part of a
        # (versioned) fragment read and written through shared memory.
        half = rows // 2
        statements.append(
            f"tile.exp<{half}x{cols}> %F0[{kernel.index(0)}, {kernel.index(0)}] -> "
            f"%F0[{kernel.index(half)}, {kernel.index(0)}] : {f_type} -> {f_type}"
        )
    # Otherwise each fragment is written by one statement (a buffer written at two
    # stages and never read later is a loop-carried dependence the schedule inverts:
    # pipeline-validate refuses it; the property skips such draws).
    written = ["F0"]
    for step in range(1, draw(st.integers(2, 5))):
        dst = f"F{step}"
        kernel.alloc(dst, tile, "f32", "fragment")
        kind = draw(st.sampled_from(["fill", "exp", "binary"]))
        if kind == "fill":
            value = kernel.scalar(draw(st.sampled_from((0.5, -1.0, 2.0))), "f32")
            statements.append(f"tile.fill<{dims}> {value} -> %{dst} : f32 -> {f_type}")
        elif kind == "exp":
            src = draw(st.sampled_from(written))
            statements.append(f"tile.exp<{dims}> %{src} -> %{dst} : {f_type} -> {f_type}")
        else:
            op = draw(st.sampled_from(["add", "mul", "max"]))
            lhs, rhs = (draw(st.sampled_from(written)) for _ in range(2))
            statements.append(
                f"tile.{op}<{dims}> %{lhs}, %{rhs} -> %{dst} : {f_type}, {f_type} -> {f_type}"
            )
        written.append(dst)
    result = draw(st.sampled_from(written))
    statements.append(f"tile.copy<{dims}> %{result} -> %O[%r, {kernel.index(0)}] : {f_type} -> {out.type}")
    num_stages = draw(st.integers(2, 4))
    # Non-decreasing stages from 0 to num_stages - 1, in program order.
    cuts = sorted(draw(st.lists(st.integers(1, len(statements) - 1), min_size=num_stages - 1, max_size=num_stages - 1)))
    stages = [sum(1 for c in cuts if c <= i) for i in range(len(statements))]
    stages[-1] = num_stages - 1
    order = list(range(len(statements)))
    start, one, step = kernel.index(0), kernel.index(1), kernel.index(rows)
    kernel.line(
        f"pipeline.for %k = {start} to %n step {one} stage = {stages} order = {order} {{"
    )
    kernel.indent = "  "
    kernel.line(f"%r = arith.muli %k, {step} : index")
    for statement in statements:
        kernel.line(statement)
    kernel.indent = ""
    kernel.line("}")
    trips = draw(st.sampled_from(TRIP_COUNTS))
    return Case(
        kernel, draw(st.integers(0, 2**32 - 1)), {"n": trips, "stages": stages, "part": part}
    )


@st.composite
def fragment_region_kernels(draw) -> Case:
    """A fragment ``F`` -- loaded from X, or the accumulator of a tensor-core gemm --
    and ops over parts of it at random constant offsets: a part copied into a smaller
    fragment ``G``, ``G`` (or its exp) written back into a part of ``F``, a part of
    ``F`` combined with ``G``, and a row vector fragment broadcast into ``G``.  The
    parts of ``F`` are in another layout than ``G`` (another shape, or the mma
    accumulator layout), so they cross threads through shared memory."""
    threads = draw(st.sampled_from(THREADS))
    kernel = Kernel("regions", threads)
    big = (draw(st.sampled_from((16, 32))), draw(st.sampled_from((16, 32))))
    small = (draw(st.integers(1, big[0])), draw(st.sampled_from([c for c in (4, 8, 16) if c <= big[1]])))
    grid = choose_warp_grid(big[0], big[1], threads // 32)
    gemm = grid is not None and draw(st.booleans())
    f = kernel.alloc("F", big, "f32", "fragment")
    g = kernel.alloc("G", small, "f32", "fragment")
    v = kernel.alloc("V", (small[1],), "f32", "fragment")
    if gemm:
        a = kernel.arg("A", (big[0], 16), "f16")
        b = kernel.arg("B", (16, big[1]), "f16")
        a_s = kernel.alloc("A_s", (big[0], 16), "f16", "shared")
        b_s = kernel.alloc("B_s", (16, big[1]), "f16", "shared")
        kernel.copy(a_s.shape, a, a_s)
        kernel.copy(b_s.shape, b, b_s)
        kernel.barrier()
        zero = kernel.scalar(0.0, "f32")
        kernel.line(f"tile.fill<{_dims(big)}> {zero} -> %F : f32 -> {f.type}")
        kernel.line(
            f"tile.gemm<{_dims(big)}x16> %A_s, %B_s -> %F : {a_s.type}, {b_s.type} -> {f.type}"
        )
    else:
        kernel.copy(big, kernel.arg("X", big, "f32"), f)
    kernel.copy(v.shape, kernel.arg("Y", v.shape, "f32"), v)

    def part() -> str:
        row = draw(st.integers(0, big[0] - small[0]))
        col = draw(st.integers(0, big[1] - small[1]))
        return f"%F[{kernel.index(row)}, {kernel.index(col)}]"

    dims = _dims(small)
    kernel.line(f"tile.copy<{dims}> {part()} -> %G : {f.type} -> {g.type}")
    for _ in range(draw(st.integers(1, 4))):
        kernel.barrier()
        kind = draw(st.sampled_from(["read", "write", "exp_back", "combine", "broadcast"]))
        if kind == "read":
            kernel.line(f"tile.copy<{dims}> {part()} -> %G : {f.type} -> {g.type}")
        elif kind == "write":
            kernel.line(f"tile.copy<{dims}> %G -> {part()} : {g.type} -> {f.type}")
        elif kind == "exp_back":
            kernel.line(f"tile.exp<{dims}> %G -> {part()} : {g.type} -> {f.type}")
        elif kind == "combine":
            op = draw(st.sampled_from(["add", "sub", "mul", "max"]))
            place = part()
            dst = draw(st.sampled_from(["%G", place]))
            kernel.line(
                f"tile.{op}<{dims}> {place}, %G -> {dst} : {f.type}, {g.type} -> "
                f"{g.type if dst == '%G' else f.type}"
            )
        else:
            kernel.line(f"tile.broadcast<{dims}> %V -> %G axis 0 : {v.type} -> {g.type}")
    kernel.barrier()
    kernel.copy(big, f, kernel.arg("OF", big, "f32"))
    kernel.copy(small, g, kernel.arg("OG", small, "f32"))
    return Case(kernel, draw(st.integers(0, 2**32 - 1)), {"gemm": gemm})
