"""How ``ascend.reduce`` reduces a UB tile: a plan of vector-unit steps that adds in
exactly the order ``tile.reduce`` defines (``tile_reduce_order``), so the Ascend
result is the tile level's bit for bit.

The tile level sums a line of ``n`` elements as numpy does: eight partial sums fed
round by round (``p[l] += x[8 r + l]``), combined as a butterfly
``((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))``, longer lines split in two
halves summed apart, then ``+0`` (``numerics.reduce_sum``).  The vector unit does
that with whole instructions:

* **along the last axis** (row sums, the softmax/RMS-norm case), ``R x C``: the
  partials of every row are one 32-byte block of f32 (8 lanes) in a work buffer.
  Each round is one strided ``Add`` (mask 8, one repeat per row, the source rows
  ``C / 8`` blocks apart); ``BlockReduceSum`` then sums each block as a binary tree,
  ``((d0 + d1) + (d2 + d3)) + ((d4 + d5) + (d6 + d7))`` (asc-devkit's
  ReduceDataBlock doc: "以二叉树的形式计算每个DataBlock内的结果"), which is the
  butterfly.  ``C`` must be a multiple of 8, so no run has a sequential tail;
* **along the first axis of a 2-d tile** (column sums), each partial is a whole row
  of ``C`` elements, so every step is a plain ``Add`` of ``C`` elements: the
  partials, the butterfly and the tail exactly as the tree says.

f16/bf16 tiles are widened to f32 first (``Cast``, exact) and the result narrowed
last (``Cast`` with ``CAST_RINT``): the tile level sums them in f32 and rounds once.
``max`` follows the same plan with ``Max``/``BlockReduceMax`` (order does not matter
for a maximum).  The pipe simulator executes the plan step by step
(:mod:`tilepipe.semantics.ascend.data_unit`), the AscendC printer prints one call per
step (:mod:`tilepipe.lowering.ascend.ascendc_vector`).

Plan buffers: ``src`` (the source tile), ``work`` (a kernel-wide f32 UB scratch,
``reduce_work``) and ``dst`` (the destination tile).  Offsets and widths count
elements; every view of ``work`` starts on a 32-byte boundary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilepipe.dialects.tile_reduce_order import LANES, Run, Split, SumTree, sum_tree

F32_BLOCK = 8  # f32 elements of one 32-byte block
MAX_REPEATS = 255  # repeatTime and the repeat strides are uint8_t


class PlanError(ValueError):
    """The vector unit cannot reduce this tile exactly (the lowering's diagnostic)."""


@dataclass(frozen=True)
class View:
    """``rows`` runs of ``width`` elements of a plan buffer, ``row_stride`` apart."""

    buffer: str  # "src", "work" or "dst"
    offset: int
    rows: int
    width: int
    row_stride: int

    @property
    def count(self) -> int:
        return self.rows * self.width


@dataclass(frozen=True)
class Step:
    """One vector call.

    * ``widen`` / ``narrow``: ``out = a`` converted (f16/bf16 <-> f32);
    * ``combine``: ``out = a (+|max) b`` element by element, row by row;
    * ``copy``: ``out = a``, exactly (a strided ``DataCopy``; one run as ``Adds`` of
      ``-0``, the identity of IEEE addition: ``+0 + -0 = +0``, ``-0 + -0 = -0``);
    * ``block``: ``out[r] = tree(a[r, 0:8])``, one block per row (``BlockReduce*``);
    * ``add_zero``: ``out = a + 0`` (the tile level's closing ``+0``: a sum of -0
      elements is +0).
    """

    kind: str
    out: View
    a: View
    b: View | None = None


@dataclass
class ReducePlan:
    reduce_kind: str  # "sum" or "max"
    steps: list[Step] = field(default_factory=list)
    work_elements: int = 0

    def alloc(self, rows: int, width: int) -> View:
        """A fresh view of the work buffer, rows packed, 32-byte aligned."""
        view = View("work", self.work_elements, rows, width, width)
        size = rows * width
        self.work_elements += -(-size // F32_BLOCK) * F32_BLOCK
        return view

    def combine(self, a: View, b: View) -> View:
        """``a (op) b`` into ``a`` when it is a work view (in place), else a new one."""
        out = a if a.buffer == "work" else self.alloc(a.rows, a.width)
        self.steps.append(Step("combine", out, a, b))
        return out


def reduce_plan(
    kind: str, shape: tuple[int, ...], axis: int, widen: bool, narrow: bool
) -> ReducePlan:
    """The plan of ``tile.reduce<shape> kind ... axis`` on a UB tile; ``widen``: the
    source is f16/bf16, ``narrow``: the destination is.  Raises PlanError for what the
    vector unit cannot do exactly."""
    if len(shape) not in (1, 2):
        raise PlanError(f"reduces a rank-{len(shape)} tile; the vector unit reduces 1-d and 2-d tiles")
    rows, columns = (1, shape[0]) if len(shape) == 1 else shape
    if columns % F32_BLOCK:
        raise PlanError(
            f"reduces rows of {columns} elements; the vector unit's exact order needs "
            f"whole 32-byte blocks of f32, a multiple of {F32_BLOCK}"
        )
    plan = ReducePlan(kind)
    source = View("src", 0, rows, columns, columns)
    if widen:
        wide = plan.alloc(rows, columns)
        plan.steps.append(Step("widen", wide, source))
        source = wide
    along_rows = axis == len(shape) - 1
    if along_rows:
        if rows > MAX_REPEATS or columns // F32_BLOCK > MAX_REPEATS:
            raise PlanError(
                f"reduces a {rows}x{columns} tile along its rows; the strided vector calls "
                f"take at most {MAX_REPEATS} rows of at most {MAX_REPEATS * F32_BLOCK} elements"
            )
        result = _row_tree(plan, source, sum_tree(columns))
        length = rows
    else:
        result = _column_tree(plan, source, sum_tree(rows))
        length = columns
    dst = View("dst", 0, 1, length, length)
    if kind == "sum" and narrow:
        closed = result if result.buffer == "work" else plan.alloc(1, length)
        plan.steps.append(Step("add_zero", closed, result))
        plan.steps.append(Step("narrow", dst, closed))
    elif kind == "sum":
        plan.steps.append(Step("add_zero", dst, result))
    else:
        plan.steps.append(Step("narrow" if narrow else "copy", dst, result))
    return plan


def _row_tree(plan: ReducePlan, source: View, tree: SumTree) -> View:
    """The row sums of ``source`` over the columns of ``tree``: R values in ``work``."""
    rows, stride = source.rows, source.row_stride
    if isinstance(tree, Split):
        left = _row_tree(plan, source, tree.left)
        right = _row_tree(plan, source, tree.right)
        return plan.combine(left, right)
    assert isinstance(tree, Run) and not tree.tail  # whole blocks (reduce_plan checks)

    def column_block(k: int) -> View:
        return View(source.buffer, source.offset + tree.start + k * LANES, rows, LANES, stride)

    # BlockReduce* reduces 8 blocks per repeat: the partials are padded to whole repeats
    # (the padding's sums land past the R results and are never read).
    padded = -(-rows // F32_BLOCK) * F32_BLOCK
    partials = plan.alloc(padded, LANES)
    partials = View("work", partials.offset, rows, LANES, LANES)
    if tree.rounds == 1:
        plan.steps.append(Step("copy", partials, column_block(0)))
    else:
        plan.steps.append(Step("combine", partials, column_block(0), column_block(1)))
        for k in range(2, tree.rounds):
            plan.steps.append(Step("combine", partials, partials, column_block(k)))
    sums = plan.alloc(1, padded)
    plan.steps.append(
        Step("block", View("work", sums.offset, 1, rows, rows),
             View("work", partials.offset, padded, LANES, LANES))
    )
    return View("work", sums.offset, 1, rows, rows)


def _column_tree(plan: ReducePlan, source: View, tree: SumTree) -> View:
    """The column sums of ``source`` over the rows of ``tree``: C values."""
    if isinstance(tree, Split):
        left = _column_tree(plan, source, tree.left)
        right = _column_tree(plan, source, tree.right)
        return plan.combine(left, right)
    columns = source.width

    def row(index: int) -> View:
        return View(source.buffer, source.offset + index * source.row_stride, 1, columns, columns)

    partials = [row(tree.start + lane) for lane in range(LANES if tree.rounds else 0)]
    for round_ in range(1, tree.rounds):
        for lane in range(LANES):
            partials[lane] = plan.combine(partials[lane], row(tree.start + round_ * LANES + lane))
    while len(partials) > 1:
        partials = [plan.combine(partials[i], partials[i + 1]) for i in range(0, len(partials), 2)]
    result = partials[0] if partials else None
    for index in tree.tail:
        result = row(index) if result is None else plan.combine(result, row(index))
    assert result is not None
    return result
