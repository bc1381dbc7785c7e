"""Which gemms ``wgmma`` takes on sm_90a, and how a matrix descriptor addresses their
shared operands (the emission is ``wgmma.py``).

A ``wgmma.mma_async`` reads A (64 x 16) and B (16 x N) from shared memory through
64-bit matrix descriptors (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start
address, 16-29 the leading byte offset (LBO), 32-45 the stride byte offset (SBO), all
three in 16-byte units, and bits 62-63 the swizzle mode (1: 128B, 2: 64B, 3: 32B).
The operand must lie in one of the canonical layouts, built of 8-row "atoms" of ``S``
bytes per row whose 16-byte units are XOR-permuted by the address bits above them --
the tensor-map copy's swizzle modes, and the permutations ``swizzle.py`` gives a tile:

* **K-major** (A row-major M x K, B stored N x K): row ``mn`` of the operand at
  ``(mn % 8) S + (mn / 8) SBO``, its 16 K-elements contiguous (32 bytes, inside one
  row of the atom); SBO = 8 S, LBO unused;
* **MN-major** (A stored K x M, B row-major K x N; f16/bf16 only, the instruction's
  transpose bit): K-row ``k`` at ``(k % 8) S + (k / 8) SBO``, ``S / 2`` consecutive
  MN-elements per atom row, the next ``S / 2`` at LBO.

A tile whose rows are exactly ``S`` bytes (32, 64 or 128) is one column of atoms; a
tile a tensor-map copy lands in panels (rows longer than 128 bytes) is one column of
128B atoms per panel, the panels ``rows x 128`` bytes apart -- for K-major operands
a K-step never leaves its panel, for MN-major ones LBO steps from panel to panel.
Either way the origin of a descriptor for the operand's element (row, col) of the
stored tile is :meth:`OperandForm.offset`, and its pattern must start at an
address aligned to 8 S bytes (the permutation is of absolute address bits).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, Float16Type, MemRefType

from tilepipe.passes.cuda.warpgroup_mma import ATOM_ROWS, ELEMENT_BYTES, SWIZZLE_MODES

from tilepipe.lowering.nvvm.layout import FragmentLayout, MmaAccumulatorLayout, WarpgroupGrid

UNIT = 16  # bytes: the descriptor's address unit


@dataclass(frozen=True)
class OperandForm:
    """How descriptors address one stored shared tile (``rows`` x ``columns`` of
    2-byte elements): in atoms of ``swizzle`` bytes per row, in ``panels`` panels."""

    k_major: bool
    swizzle: int
    rows: int
    panels: int

    @property
    def panel_columns(self) -> int:
        return self.swizzle // ELEMENT_BYTES

    @property
    def panel_bytes(self) -> int:
        return self.rows * self.swizzle

    @property
    def alignment(self) -> int:
        """The start of the tile: where the first atom's pattern begins."""
        return ATOM_ROWS * self.swizzle

    @property
    def stride_bytes(self) -> int:
        return ATOM_ROWS * self.swizzle

    @property
    def leading_bytes(self) -> int:
        """Panel to panel for an MN-major operand; unused (one unit) otherwise."""
        return self.panel_bytes if not self.k_major and self.panels > 1 else UNIT

    @property
    def mode(self) -> int:
        return SWIZZLE_MODES[self.swizzle]

    def offset(self, row: int, col: int) -> int:
        """The byte offset (unpermuted) of stored element (row, col) in the tile, for
        constant coordinates; ``row`` a multiple of 8, ``col`` of 8 elements."""
        panel, within = divmod(col, self.panel_columns)
        return panel * self.panel_bytes + row * self.swizzle + within * ELEMENT_BYTES

    def spans(self, mn_extent: int) -> bool:
        """Can one instruction read ``mn_extent`` consecutive M (or N) elements
        starting at a multiple of it?  K-major: any whole 8-row groups; MN-major:
        within one atom column, or whole panels."""
        if self.k_major:
            return mn_extent % ATOM_ROWS == 0
        return mn_extent <= self.panel_columns or mn_extent % self.panel_columns == 0


def operand_form(
    buffer_type: MemRefType,
    k_major: bool,
    panels: int,
    panel_columns: int,
) -> OperandForm | None:
    """The form of a shared tile of ``buffer_type`` (its two trailing dimensions)
    whose rows ``swizzle.py`` permutes in the 32/64/128B pattern (``panels`` > 1:
    stored in panels of ``panel_columns``), or None when no descriptor addresses it."""
    shape = buffer_type.get_shape()
    if len(shape) < 2 or not isinstance(buffer_type.element_type, Float16Type | BFloat16Type):
        return None
    rows, columns = shape[-2], shape[-1]
    if rows % ATOM_ROWS:
        return None
    if panels > 1:
        if panel_columns * ELEMENT_BYTES != 128 or panel_columns * panels != columns:
            return None
        return OperandForm(k_major, 128, rows, panels)
    row_bytes = columns * ELEMENT_BYTES
    if row_bytes not in SWIZZLE_MODES:
        return None
    return OperandForm(k_major, row_bytes, rows, 1)


def reads_a_from_registers(a: FragmentLayout | None, c: FragmentLayout | None) -> bool:
    """Does wgmma read a register-fragment A of layout ``a`` from registers, in a gemm
    into an accumulator of layout ``c`` (``wgmma_register_a.py``)?  Both must be
    wgmma's accumulator layout over the same warpgroups and rows: a thread's registers
    of A's columns 16j .. 16j + 15 in a slab are then its A fragment of k-step j."""
    if not (isinstance(a, MmaAccumulatorLayout) and isinstance(c, MmaAccumulatorLayout)):
        return False
    grid_a, grid_c = a.grid, c.grid
    return (
        isinstance(grid_a, WarpgroupGrid)
        and isinstance(grid_c, WarpgroupGrid)
        and (grid_a.m, grid_a.warps_m, grid_a.block_warps)
        == (grid_c.m, grid_c.warps_m, grid_c.block_warps)
        and grid_a.n % 16 == 0
    )
