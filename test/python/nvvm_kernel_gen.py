"""Random tile kernels for the ``lower-to-nvvm`` property tests
(test_nvvm_property.py): a small model of kernel text (buffers, statements), the
hypothesis strategies that draw copy, elementwise, reduction and gemm kernels, and the helpers that lower, run and compare them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.diagnostics import op_location
from tilepipe.lowering.nvvm.layout import choose_mma_grid, choose_warp_grid
from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

SIZES = (8, 16, 32, 64)
THREADS = (32, 64, 128)
NUMPY = {"f16": np.float16, "f32": np.float32, "bf16": np.float32}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
FILE = "kernel.mlir"


# --------------------------------------------------------------------- kernel text


@dataclass
class Buffer:
    """A memref the kernel touches: a global argument or a local allocation, and
    where in it the kernel's tile sits (None: the whole buffer, no offsets)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    space: str  # "global", "shared" or "fragment"
    offsets: tuple[int, ...] | None = None

    @property
    def type(self) -> str:
        dims = "x".join(map(str, self.shape))
        space = "" if self.space == "global" else f', "{self.space}"'
        return f"memref<{dims}x{self.dtype}{space}>"


@dataclass
class Kernel:
    """Builds the text of a one-block tile kernel line by line."""

    name: str
    threads: int
    args: list[Buffer] = field(default_factory=list)
    allocs: list[Buffer] = field(default_factory=list)
    constants: dict[int, None] = field(default_factory=dict)
    floats: dict[tuple[float, str], str] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)
    indent: str = ""
    index_args: list[str] = field(default_factory=list)  # trailing ``%name: index``

    def line(self, text: str) -> None:
        self.body.append(self.indent + text)

    def arg(self, name: str, shape, dtype: str, offsets=None) -> Buffer:
        buffer = Buffer(name, tuple(shape), dtype, "global", offsets)
        self.args.append(buffer)
        return buffer

    def alloc(self, name: str, shape, dtype: str, space: str, offsets=None) -> Buffer:
        buffer = Buffer(name, tuple(shape), dtype, space, offsets)
        self.allocs.append(buffer)
        return buffer

    def index(self, value: int) -> str:
        self.constants[value] = None
        return f"%c{value}"

    def scalar(self, value: float, dtype: str) -> str:
        key = (value, dtype)
        if key not in self.floats:
            self.floats[key] = f"%f{len(self.floats)}"
        return self.floats[key]

    def region(self, buffer: Buffer, offsets=None) -> str:
        offsets = buffer.offsets if offsets is None else offsets
        if offsets is None:
            return f"%{buffer.name}"
        if isinstance(offsets[0], int):
            offsets = [self.index(o) for o in offsets]
        return f"%{buffer.name}[{', '.join(offsets)}]"

    def text(self) -> str:
        args = ", ".join(
            [f"%{b.name}: {b.type}" for b in self.args] + [f"%{n}: index" for n in self.index_args]
        )
        lines = [
            "",
            f"func.func @{self.name}({args})",
            f'    attributes {{tile.threads = {self.threads} : i64, tile.target = "sm_80"}} {{',
        ]
        lines += [f"  %c{v} = arith.constant {v} : index" for v in self.constants]
        lines += [
            f"  {name} = arith.constant {value!r} : {dtype}"
            for (value, dtype), name in self.floats.items()
        ]
        lines += [f"  %{b.name} = memref.alloc() : {b.type}" for b in self.allocs]
        lines += [f"  {line}" for line in self.body]
        lines += ["  func.return", "}", ""]
        return "\n".join(lines)

    def copy(self, tile, src: Buffer, dst: Buffer, src_offsets=None) -> None:
        self.line(
            f"tile.copy<{_dims(tile)}> {self.region(src, src_offsets)} -> "
            f"{self.region(dst)} : {src.type} -> {dst.type}"
        )

    def barrier(self) -> None:
        self.line("pipeline.barrier")


def _dims(shape) -> str:
    return "x".join(map(str, shape))


def line_of(text: str, needle: str, start: int = 0) -> int:
    """1-based line number of the first line at or after ``start`` containing ``needle``."""
    for number, line in enumerate(text.splitlines(), 1):
        if number > start and needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the kernel")


# --------------------------------------------------------------------- running


def lower(text: str, swizzle_shared: bool = True):
    module = parse_kernel(text, FILE)
    if swizzle_shared:
        get_all_passes()["lower-to-nvvm"]()().apply(make_context(), module)
    else:
        LowerToNVVM(swizzle_shared=False).apply(make_context(), module)
    return module


def random_inputs(kernel: Kernel, seed: int, dyadic: bool = False):
    """Seeded random contents in [-1, 1] for every argument (outputs too: what the
    kernel does not write must come back unchanged); ``dyadic``: multiples of 1/16."""
    rng = np.random.default_rng(seed)
    inputs = {}
    for buffer in kernel.args:
        if dyadic:
            values = rng.integers(-16, 17, buffer.shape) / 16
        else:
            values = rng.uniform(-1, 1, buffer.shape)
        if buffer.dtype == "bf16":
            values = bf16_bits_to_f32(round_f32_to_bf16_bits(values.astype(np.float32)))
        inputs[buffer.name] = values.astype(NUMPY[buffer.dtype])
    return inputs


def run_nvvm(module, kernel: Kernel, inputs) -> dict[str, np.ndarray]:
    """The per-thread run; races fail, NvvmExecutionErrors propagate (and fail)."""
    run = run_nvvm_kernel(
        module, [inputs[b.name].copy() for b in kernel.args], check_races=True
    )
    assert run.races == [], "\n".join(run.races)
    return {b.name: out for b, out in zip(kernel.args, run.outputs)}


def run_tile(text: str, inputs) -> dict[str, np.ndarray]:
    """The tile-level run: strict (reading memory never written is an error), and
    race free at tile level too."""
    assert find_races(text, inputs={k: v.copy() for k, v in inputs.items()}) == []
    return run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()})


def assert_same(nvvm, tile, text: str, *, exact: bool = True, rtol=0.0, atol=0.0) -> None:
    for name, expected in tile.items():
        got = nvvm[name]
        assert got.dtype == expected.dtype, (name, got.dtype, expected.dtype)
        if exact:
            np.testing.assert_array_equal(got, expected, err_msg=f"%{name} of\n{text}")
        else:
            np.testing.assert_allclose(
                got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                equal_nan=True, err_msg=f"%{name} of\n{text}",
            )


def vector_lines(module) -> set[int]:
    """Kernel lines of the tile ops whose lowering used a vector memory access."""
    lines = set()
    for op in module.walk():
        if op.name in ("vector.load", "vector.store"):
            location = op_location(op)
            if location is not None:
                lines.add(location.line)
    return lines


# --------------------------------------------------------------------- strategies


@st.composite
def placement(draw, tile: tuple[int, int], pads=(0, 0, 1, 2, 3, 4, 8, 9, 16)):
    """A buffer shape holding ``tile`` at an offset: row and column padding, the
    column padding often a non-multiple of any vector width."""
    rows, cols = tile
    pad_r = draw(st.integers(0, 3))
    pad_c = draw(st.sampled_from(pads))
    offset = (draw(st.integers(0, pad_r)), draw(st.integers(0, pad_c)))
    return (rows + pad_r, cols + pad_c), offset


@dataclass
class Case:
    kernel: Kernel
    seed: int
    notes: dict = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.kernel.text()

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis' report: the text
        printer.text(f"Case(seed={self.seed}, kernel=<{self.kernel.name}: the note below>)")


@st.composite
def copy_kernels(draw) -> Case:
    dtype = draw(st.sampled_from(["f16", "f32"]))
    tile = (draw(st.sampled_from(SIZES)), draw(st.sampled_from(SIZES)))
    kernel = Kernel("copies", draw(st.sampled_from(THREADS)))
    shape, offsets = draw(placement(tile))
    x = kernel.arg("X", shape, dtype, offsets)
    shape, offsets = draw(placement(tile))
    out = kernel.arg("O", shape, dtype, offsets)
    # The first hop is into shared memory; then shared or register buffers.
    spaces = ["shared"] + draw(st.lists(st.sampled_from(["shared", "fragment"]), max_size=2))
    hops = []
    for i, space in enumerate(spaces):
        if space == "shared":
            shape, offsets = draw(placement(tile, pads=(0, 0, 0, 1, 4, 8)))
            hops.append(kernel.alloc(f"S{i}", shape, dtype, space, offsets))
        else:
            hops.append(kernel.alloc(f"F{i}", tile, dtype, space))
    path = [x, *hops, out]
    copies = []  # (src, dst) of every copy, in program order
    for step, (src, dst) in enumerate(zip(path, path[1:])):
        if step:
            kernel.barrier()
        kernel.copy(tile, src, dst)
        copies.append((src, dst))
    return Case(kernel, draw(st.integers(0, 2**32 - 1)), {"tile": tile, "copies": copies})


FLOAT_VALUES = (0.0, 1.0, -0.5, 2.25, 3.0)


@st.composite
def elementwise_kernels(draw) -> Case:
    tile = (draw(st.sampled_from((8, 16, 32))), draw(st.sampled_from(SIZES)))
    kernel = Kernel("elementwise", draw(st.sampled_from(THREADS)))
    inputs = {}
    for name, dtype in (("X", "f32"), ("Y", "f32"), ("Z", "f16")):
        shape, offsets = draw(placement(tile))
        inputs[name] = kernel.arg(name, shape, dtype, offsets)
    pool = []
    for name, dtype, space in (
        ("S0", "f32", "shared"), ("S1", "f32", "shared"), ("F0", "f32", "fragment"),
        ("F1", "f32", "fragment"), ("H0", "f16", "shared"), ("H1", "f16", "fragment"),
    ):
        if space == "shared":
            shape, offsets = draw(placement(tile, pads=(0, 0, 1, 4, 8)))
            pool.append(kernel.alloc(name, shape, dtype, space, offsets))
        else:
            pool.append(kernel.alloc(name, tile, dtype, space))
    written: list[Buffer] = []
    uses_exp = False

    def typed(dtype: str) -> list[Buffer]:
        return [b for b in pool if b.dtype == dtype]

    def done(dst: Buffer) -> None:
        if dst not in written:
            written.append(dst)

    dims = _dims(tile)
    steps = draw(st.integers(1, 7))
    kernel.copy(tile, inputs["X"], first := draw(st.sampled_from(typed("f32"))))
    done(first)
    for _ in range(steps):
        kernel.barrier()
        f32_written = [b for b in written if b.dtype == "f32"]
        f16_written = [b for b in written if b.dtype == "f16"]
        kinds = ["load", "fill", "binary", "exp", "cast_down"]
        if f16_written:
            kinds += ["cast_up", "binary16"]
        kind = draw(st.sampled_from(kinds))
        if kind == "load":
            src = inputs[draw(st.sampled_from(["X", "Y", "Z"]))]
            dst = draw(st.sampled_from(typed(src.dtype)))
            kernel.copy(tile, src, dst)
        elif kind == "fill":
            dst = draw(st.sampled_from(pool))
            value = kernel.scalar(draw(st.sampled_from(FLOAT_VALUES)), dst.dtype)
            kernel.line(
                f"tile.fill<{dims}> {value} -> {kernel.region(dst)} : {dst.dtype} -> {dst.type}"
            )
        elif kind in ("binary", "binary16"):
            dtype = "f32" if kind == "binary" else "f16"
            ready = f32_written if dtype == "f32" else f16_written
            lhs, rhs = draw(st.sampled_from(ready)), draw(st.sampled_from(ready))
            dst = draw(st.sampled_from(typed(dtype)))
            op = draw(st.sampled_from(["add", "sub", "mul", "max", "div"]))
            kernel.line(
                f"tile.{op}<{dims}> {kernel.region(lhs)}, {kernel.region(rhs)} -> "
                f"{kernel.region(dst)} : {lhs.type}, {rhs.type} -> {dst.type}"
            )
        elif kind == "exp":
            src = draw(st.sampled_from(f32_written))
            dst = draw(st.sampled_from(typed("f32")))
            uses_exp = True
            kernel.line(
                f"tile.exp<{dims}> {kernel.region(src)} -> {kernel.region(dst)} : "
                f"{src.type} -> {dst.type}"
            )
        else:
            src = draw(st.sampled_from(f32_written if kind == "cast_down" else f16_written))
            dst = draw(st.sampled_from(typed("f16" if kind == "cast_down" else "f32")))
            kernel.line(
                f"tile.cast<{dims}> {kernel.region(src)} -> {kernel.region(dst)} : "
                f"{src.type} -> {dst.type}"
            )
        done(dst)
    kernel.barrier()
    for buffer in written:
        shape, offsets = draw(placement(tile))
        out = kernel.arg(f"O{buffer.name}", shape, buffer.dtype, offsets)
        kernel.copy(tile, buffer, out)
    return Case(kernel, draw(st.integers(0, 2**32 - 1)), {"exp": uses_exp})


# Gemm extents: tensor cores' multiples of 16 (and of 8 for N), and the shapes they
# take only in part (K tails) or not at all (odd, or no whole 16x8 blocks).
TENSOR_CORE_EXTENTS = (16, 32, 64)
GEMM_M = TENSOR_CORE_EXTENTS * 2 + (8, 24, 5, 12)
GEMM_N = TENSOR_CORE_EXTENTS * 2 + (8, 24, 40, 5, 9)
GEMM_K = TENSOR_CORE_EXTENTS * 2 + (8, 24, 7, 20)
TENSOR_CORE_INPUTS = ("f16", "bf16")


@st.composite
def gemm_kernels(draw, tensor_cores_only: bool = False) -> Case:
    if tensor_cores_only:
        dtype = draw(st.sampled_from(TENSOR_CORE_INPUTS))
        m, n, k = (draw(st.sampled_from(TENSOR_CORE_EXTENTS)) for _ in range(3))
    else:
        dtype = draw(st.sampled_from(TENSOR_CORE_INPUTS * 2 + ("f32",)))
        m, n, k = (draw(st.sampled_from(extents)) for extents in (GEMM_M, GEMM_N, GEMM_K))
    threads = draw(st.sampled_from(THREADS))
    transpose_a, transpose_b = draw(st.booleans()), draw(st.booleans())
    k_steps = draw(st.sampled_from((1, 1, 2)))
    kernel = Kernel("gemm", threads)
    a_tile = (k, m) if transpose_a else (m, k)
    b_tile = (n, k) if transpose_b else (k, n)
    # The k loop walks A's and B's k dimension in steps of K.
    a_k_axis, b_k_axis = (0 if transpose_a else 1), (1 if transpose_b else 0)
    loads = []  # (global, shared, tile, k axis, how) per operand

    def operand(name: str, tile, k_axis):
        # How the shared tile is filled: copied from global memory, copied and then
        # doubled in place, or cast from an f32 register fragment -- or the operand
        # is a register fragment itself (P of P V), copied from global memory.
        hows = ["copy", "copy", "double"] + (["cast"] if dtype != "f32" else [])
        how = draw(st.sampled_from(hows)) if k_steps == 1 else "copy"
        if draw(st.sampled_from((False,) * 5 + (True,))):
            how = "registers"
        whole = list(tile)
        whole[k_axis] *= k_steps
        shape, offsets = draw(placement(tuple(whole)))
        glob = kernel.arg(name, shape, "f32" if how == "cast" else dtype, offsets)
        if how == "registers":
            fragment = kernel.alloc(f"{name}_r", tile, dtype, "fragment")
            loads.append((glob, fragment, tile, k_axis, how))
            return fragment
        # Shared tiles: row-major (swizzled when their rows allow), sometimes wider
        # (rows of 3, 5, 6, ... units are not swizzled; 16 + 16 or 16 + 48 columns
        # are) with the tile at a 16-byte aligned column (ldmatrix reads 16-byte
        # rows: see test_gemm_operand_at_an_unaligned_column), sometimes taller,
        # sometimes one slot of two (as the software pipeline's versions are).
        # Mostly 16-byte aligned rows and columns; now and then rows of an odd
        # number of 8 bytes (pad 4, 20) or a column offset of 4 elements, which must
        # be diagnosed.
        unit = draw(st.sampled_from((8,) * 7 + (4,)))
        pad_c = draw(st.sampled_from((0, 0, 0, 8, 16, 48) if unit == 8 else (4, 8, 20)))
        pad_r = draw(st.sampled_from((0, 0, 3, 16)))
        slots = draw(st.sampled_from((0, 0, 2)))
        shape = (tile[0] + pad_r, tile[1] + pad_c)
        placed = (draw(st.integers(0, pad_r)), unit * draw(st.integers(0, pad_c // unit)))
        if slots:
            shape, placed = (slots, *shape), (draw(st.integers(0, slots - 1)), *placed)
        shared_offsets = placed if any(placed) or slots else None
        shared = kernel.alloc(f"{name}_s", shape, dtype, "shared", shared_offsets)
        loads.append((glob, shared, tile, k_axis, how))
        return shared

    a_s = operand("A", a_tile, a_k_axis)
    b_s = operand("B", b_tile, b_k_axis)
    acc = kernel.alloc("C_f", (m, n), "f32", "fragment")
    fill = kernel.scalar(draw(st.sampled_from((0.0, 0.5, -1.0))), "f32")
    kernel.line(f"tile.fill<{m}x{n}> {fill} -> %C_f : f32 -> {acc.type}")

    def load(k_offset: str | None) -> None:
        for glob, shared, tile, k_axis, how in loads:
            offsets = [kernel.index(o) for o in glob.offsets]
            if k_offset is not None:
                kernel.line(f"%{glob.name}_k = arith.addi {offsets[k_axis]}, {k_offset} : index")
                offsets[k_axis] = f"%{glob.name}_k"
            if how == "cast":
                wide = kernel.alloc(f"{glob.name}_f", tile, "f32", "fragment")
                kernel.copy(tile, glob, wide, src_offsets=offsets)
                kernel.line(
                    f"tile.cast<{_dims(tile)}> %{wide.name} -> {kernel.region(shared)} : "
                    f"{wide.type} -> {shared.type}"
                )
            else:
                kernel.copy(tile, glob, shared, src_offsets=offsets)
        if any(how == "double" for *_, how in loads):
            kernel.barrier()
            for _, shared, tile, _, how in loads:
                if how == "double":
                    region = kernel.region(shared)
                    kernel.line(
                        f"tile.add<{_dims(tile)}> {region}, {region} -> {region} : "
                        f"{shared.type}, {shared.type} -> {shared.type}"
                    )

    gemm = (
        f"tile.gemm<{m}x{n}x{k}> {kernel.region(a_s)}, {kernel.region(b_s)} -> %C_f"
        f"{' transpose_a' if transpose_a else ''}{' transpose_b' if transpose_b else ''}"
        f" : {a_s.type}, {b_s.type} -> {acc.type}"
    )
    if k_steps == 1:
        load(None)
        kernel.barrier()
        kernel.line(gemm)
    else:
        start, one, stop = kernel.index(0), kernel.index(1), kernel.index(k_steps)
        kernel.line(f"pipeline.for %ko = {start} to {stop} step {one} num_stages = 1 {{")
        kernel.indent = "  "
        kernel.line(f"%k0 = arith.muli %ko, {kernel.index(k)} : index")
        kernel.barrier()  # the previous iteration's gemm read the tiles
        load("%k0")
        kernel.barrier()
        kernel.line(gemm)
        kernel.indent = ""
        kernel.line("}")
    result = acc
    epilogue = draw(st.sampled_from(["none", "fragment", "shared"]))
    if epilogue != "none":
        op = draw(st.sampled_from(["add", "sub", "mul", "max"]))
        if epilogue == "fragment":
            other = kernel.alloc("D_f", (m, n), "f32", "fragment")
        else:
            shape, offsets = draw(placement((m, n), pads=(0, 0, 1, 2, 4)))
            other = kernel.alloc("D_s", shape, "f32", "shared", offsets)
        shape, offsets = draw(placement((m, n)))
        d = kernel.arg("D", shape, "f32", offsets)
        kernel.copy((m, n), d, other)
        if epilogue == "shared":
            kernel.barrier()
        dst = acc if draw(st.booleans()) else kernel.alloc("E_f", (m, n), "f32", "fragment")
        operands = [acc, other] if draw(st.booleans()) else [other, acc]
        kernel.line(
            f"tile.{op}<{m}x{n}> {kernel.region(operands[0])}, {kernel.region(operands[1])} -> "
            f"{kernel.region(dst)} : {operands[0].type}, {operands[1].type} -> {dst.type}"
        )
        result = dst
    softmax, reduced = draw(st.booleans()), None
    if softmax:
        # Flash attention's row statistics: the rows' max and sum reduced with warp
        # shuffles into shared memory, broadcast back into the fragment's layout.
        dims, rows = f"{m}x{n}", result
        reduced = rows
        stats = []
        for name in ("max", "sum"):
            shape, offsets = draw(placement((m, 1), pads=(0,)))
            stat = kernel.alloc(f"{name}_s", (shape[0],), "f32", "shared", (offsets[0],))
            stats.append(stat)
        spread = kernel.alloc("P_f", (m, n), "f32", "fragment")
        for kind, stat, combine in (("max", stats[0], "sub"), ("sum", stats[1], "div")):
            kernel.line(
                f"tile.reduce<{dims}> {kind} %{rows.name} -> {kernel.region(stat)} axis 1 : "
                f"{rows.type} -> {stat.type}"
            )
            kernel.barrier()
            kernel.line(
                f"tile.broadcast<{dims}> {kernel.region(stat)} -> %P_f axis 1 : "
                f"{stat.type} -> {spread.type}"
            )
            kernel.line(
                f"tile.{combine}<{dims}> %{rows.name}, %P_f -> %{rows.name} : "
                f"{rows.type}, {spread.type} -> {rows.type}"
            )
            if kind == "max":
                kernel.line(
                    f"tile.exp<{dims}> %{rows.name} -> %{rows.name} : {rows.type} -> {rows.type}"
                )
        for stat in stats:
            shape, offsets = draw(placement((m, 1), pads=(0, 1, 2)))
            out = kernel.arg(f"O_{stat.name}", (shape[0],), "f32", (offsets[0],))
            kernel.copy((m,), stat, out)
    out_dtype = draw(st.sampled_from(["f32", "f32", "f16"]))
    if out_dtype == "f16":
        half = kernel.alloc("H_f", (m, n), "f16", "fragment")
        kernel.line(
            f"tile.cast<{m}x{n}> {kernel.region(result)} -> %H_f : {result.type} -> {half.type}"
        )
        result = half
    shape, offsets = draw(placement((m, n), pads=(0, 1, 2, 3, 8)))
    out = kernel.arg("C", shape, out_dtype, offsets)
    kernel.copy((m, n), result, out)
    # The accumulator's layout (lowering/nvvm/kernel.py): the mma layout for f16/bf16
    # inputs and whole 16x8 blocks over some warps -- all of them, whole rows each
    # where a grid allows, when the accumulator (or a fragment combined with it, which
    # takes its layout) is reduced along rows -- else dealt out cooperatively.
    warps = threads // 32
    grid = None
    if dtype in TENSOR_CORE_INPUTS:
        if reduced is not None:
            grid = choose_warp_grid(m, n, warps, True) or choose_warp_grid(m, n, warps)
        else:
            grid = choose_mma_grid(m, n, warps)
    tensor_cores = grid is not None and k >= 16
    return Case(
        kernel,
        draw(st.integers(0, 2**32 - 1)),
        {
            "mnk": (m, n, k), "warps": warps, "a_s": a_s, "b_s": b_s, "out": out,
            "softmax": softmax, "grid": grid, "threads": threads,
            # ldmatrix/mma.sync for the whole 16-wide K steps, the scalar path for the
            # rest; ldmatrix needs 16-byte rows at 16-byte columns.
            "tensor_cores": tensor_cores,
            # (A register operand is staged in a shared tile of exactly its shape.)
            "ldmatrix": tensor_cores and all(provably_aligned(b, 8) for b in (a_s, b_s)),
        },
    )


@st.composite
def reduction_kernels(draw) -> Case:
    """A tile (optionally squared or doubled in place) reduced along a random axis
    into a vector in shared memory or registers, optionally broadcast back and
    subtracted; f32, f16 or bf16 (summed in f32, rounded once:
    test_f16_sums_accumulate_in_f32)."""
    in_registers = draw(st.sampled_from([True, True, False]))
    # A third of the register reductions the warp shuffles take (f32 rows of at most
    # 32 into shared memory), the others any the tile level admits (most through a
    # shared scratch).
    shuffled = in_registers and draw(st.sampled_from([True, False, False]))
    tile = (
        draw(st.sampled_from(SIZES)),
        draw(st.sampled_from((8, 16, 32) if shuffled else SIZES)),
    )
    threads = draw(st.sampled_from(THREADS))
    dtype = "f32" if shuffled else draw(st.sampled_from(["f32", "f32", "f16", "bf16"]))
    kind = draw(st.sampled_from(["sum", "max"]))
    axis = 1 if shuffled else draw(st.integers(0, 1))
    kernel = Kernel("reduction", threads)
    shape, offsets = draw(placement(tile))
    x = kernel.arg("X", shape, dtype, offsets)
    if not in_registers:
        shape, offsets = draw(placement(tile, pads=(0, 0, 1, 4, 8)))
        src = kernel.alloc("S", shape, dtype, "shared", offsets)
    else:
        src = kernel.alloc("F", tile, dtype, "fragment")
    kernel.copy(tile, x, src)
    dims = _dims(tile)
    pre = draw(st.sampled_from(["none", "add", "mul"]))
    if pre != "none":
        kernel.barrier()
        region = kernel.region(src)
        kernel.line(
            f"tile.{pre}<{dims}> {region}, {region} -> {region} : {src.type}, {src.type} -> {src.type}"
        )
    kernel.barrier()
    extent = tile[1 - axis]
    if shuffled or draw(st.booleans()):
        shape, offsets = draw(placement((extent, 1), pads=(0,)))
        vec = kernel.alloc("V", (shape[0],), dtype, "shared", (offsets[0],))
    else:
        vec = kernel.alloc("V", (extent,), dtype, "fragment")
    kernel.line(
        f"tile.reduce<{dims}> {kind} {kernel.region(src)} -> {kernel.region(vec)} axis {axis} : "
        f"{src.type} -> {vec.type}"
    )
    kernel.barrier()
    # A fragment source crosses threads through shared memory (nvvm_relayout).
    broadcast = draw(st.booleans())
    if broadcast:
        if draw(st.booleans()):
            shape, offsets = draw(placement(tile, pads=(0, 0, 1, 4, 8)))
            spread = kernel.alloc("B", shape, dtype, "shared", offsets)
        else:
            spread = kernel.alloc("B", tile, dtype, "fragment")
        kernel.line(
            f"tile.broadcast<{dims}> {kernel.region(vec)} -> {kernel.region(spread)} axis {axis} : "
            f"{vec.type} -> {spread.type}"
        )
        kernel.barrier()  # the broadcast and an op with a fragment map threads differently
        kernel.line(
            f"tile.sub<{dims}> {kernel.region(src)}, {kernel.region(spread)} -> "
            f"{kernel.region(spread)} : {src.type}, {spread.type} -> {spread.type}"
        )
        kernel.barrier()
        shape, offsets = draw(placement(tile))
        kernel.copy(tile, spread, kernel.arg("OB", shape, dtype, offsets))
    shape, offsets = draw(placement((extent, 1), pads=(0, 1, 3)))
    kernel.copy((extent,), vec, kernel.arg("OV", (shape[0],), dtype, (offsets[0],)))
    # Register fragments are reduced with shuffles along rows, f32, cooperative layout
    # with C <= 32 a power of two filling every thread's registers, into shared memory;
    # any other way through the shared scratch (docs).
    rows, cols = tile
    if src.space != "fragment":
        path = "memory"
    elif (
        axis == 1 and dtype == "f32" and cols <= 32 and (rows * cols) % threads == 0
        and vec.space == "shared"
    ):
        path = "shuffles"
    else:
        path = "scratch"
    return Case(kernel, draw(st.integers(0, 2**32 - 1)), {"path": path})


# --------------------------------------------------------------------- properties


def chunk_width(tile, dtype: str) -> int:
    """Elements per cooperative chunk: the widest of 16/8/4/2 bytes dividing a row."""
    size = ELEMENT_BYTES[dtype]
    for chunk_bytes in (16, 8, 4, 2):
        if chunk_bytes >= size and tile[-1] % (chunk_bytes // size) == 0:
            return chunk_bytes // size
    return 1


def provably_aligned(buffer: Buffer, width: int) -> bool:
    """The docs' rule: a row length and an innermost offset that are multiples of
    the width (a register fragment is accessed in its layout's runs)."""
    offset = 0 if buffer.offsets is None else buffer.offsets[-1]
    return buffer.shape[-1] % width == 0 and offset % width == 0


def is_swizzled(buffer: Buffer) -> bool:
    """The docs' table: rows of 2, 4 or a multiple of 8 16-byte units."""
    row_bytes = buffer.shape[-1] * ELEMENT_BYTES[buffer.dtype]
    if row_bytes % 16:
        return False
    units = row_bytes // 16
    return units in (2, 4) or (units >= 8 and units % 8 == 0)
