"""Tile-size parameters that a kernel declares for ``tilepipe tune``.

A kernel declares the candidates of its tile sizes in the function attribute
``tile.tune = {block_M = [64, 128], block_K = [32, 64]}`` and is written at one value
of each parameter -- its default, what it compiles to untuned.  The ops whose numbers
follow a parameter name it (docs/schedule_sim.md, "Declared tile sizes"):

* ``arith.constant {tile.param = "block_K"} 64 : index`` is the parameter's value (the
  offsets into global memory are computed from it);
* ``arith.constant {tile.tiles_of = "block_K"} 16 : index`` counts tiles of the
  parameter over a fixed extent (here 16 x 64 = 1024): a loop's trip count;
* ``{tile.dims = ["block_M", "block_K"]}`` on a ``memref.alloc`` or a tile op names, per
  dimension of its memref type or tile shape, the parameter that dimension is (``""``
  keeps a dimension);
* ``tile.grid_tiles_of = ["block_N", "block_M"]`` on the kernel counts, per dimension of
  ``tile.grid``, the tiles of a parameter over a fixed extent.

Every number that names a parameter is its default (they must agree), so the kernel
as written is one concrete configuration; ``instantiate-tile-params`` rewrites it at
other values.  This module verifies the declarations (the dialect attribute verifier
calls :func:`verify_tune_attribute`) and lists the uses the pass rewrites.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.dialects.memref import AllocOp
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.kernel_errors import KernelAttributeError
from tilepipe.dialects.tile_base import TileOp

TUNE = "tile.tune"
PARAM = "tile.param"
TILES_OF = "tile.tiles_of"
DIMS = "tile.dims"
GRID_TILES_OF = "tile.grid_tiles_of"
PARAMETER_ATTRS = (TUNE, PARAM, TILES_OF, DIMS, GRID_TILES_OF)


@dataclass(frozen=True)
class ParameterUse:
    """One number of the kernel that follows a parameter."""

    op: Operation
    attr: str  # PARAM, TILES_OF, DIMS or GRID_TILES_OF
    param: str
    position: int  # the dimension (DIMS, GRID_TILES_OF); 0 otherwise
    written: int  # the number as the kernel writes it

    @property
    def is_value(self) -> bool:
        """The number is the parameter itself (not a count of its tiles)."""
        return self.attr in (PARAM, DIMS)


def tune_candidates(func: Operation) -> dict[str, tuple[int, ...]]:
    """The candidates ``func`` declares, in declaration order (empty when none)."""
    attr = func.attributes.get(TUNE)
    if attr is None:
        return {}
    if not isinstance(attr, DictionaryAttr) or not attr.data:
        raise VerifyException(
            f"'{TUNE}' must be a dictionary of candidate lists, e.g. "
            "{block_M = [64, 128]}"
        )
    candidates = {}
    for name, values in attr.data.items():
        numbers = _integers(values)
        if not numbers or any(v <= 0 for v in numbers) or len(set(numbers)) != len(numbers):
            raise VerifyException(
                f"'{TUNE}' candidates of '{name}' must be a non-empty list of distinct "
                f"positive integers, got {values}"
            )
        candidates[name] = numbers
    return candidates


def _integers(attr: Attribute) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase):
        values = attr.get_values()
        return tuple(values) if all(isinstance(v, int) for v in values) else None
    if isinstance(attr, ArrayAttr) and all(isinstance(v, IntegerAttr) for v in attr.data):
        return tuple(v.value.data for v in attr.data)  # type: ignore[union-attr]
    return None


def declaring_kernel(op: Operation) -> FuncOp | None:
    """The function around (or at) ``op`` that declares ``tile.tune``."""
    parent: Operation | None = op
    while parent is not None:
        if isinstance(parent, FuncOp):
            return parent if TUNE in parent.attributes else None
        parent = parent.parent_op()
    return None


def uses_of_op(op: Operation, declared: dict[str, tuple[int, ...]]) -> list[ParameterUse]:
    """The parameter uses ``op``'s own attributes declare, checked against ``declared``
    (a malformed one raises :class:`KernelAttributeError` pointing at ``op``)."""
    uses: list[ParameterUse] = []
    if PARAM in op.attributes and TILES_OF in op.attributes:
        raise KernelAttributeError(
            op, f"a number is a parameter ('{PARAM}') or a count of its tiles "
            f"('{TILES_OF}'), not both"
        )
    for attr in (PARAM, TILES_OF):
        if attr in op.attributes:
            name = _parameter_name(op, attr, op.attributes[attr], declared)
            if not (isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType)):
                raise KernelAttributeError(op, f"'{attr}' belongs on an index arith.constant")
            assert isinstance(op.value, IntegerAttr)
            uses.append(ParameterUse(op, attr, name, 0, op.value.value.data))
    if DIMS in op.attributes:
        if isinstance(op, AllocOp) and isinstance(op.memref.type, MemRefType):
            shape = tuple(op.memref.type.get_shape())
        elif isinstance(op, TileOp):
            shape = op.tile_shape
        else:
            raise KernelAttributeError(op, f"'{DIMS}' belongs on a memref.alloc or a tile op")
        uses.extend(_per_dimension(op, DIMS, shape, "dimensions", declared))
    if GRID_TILES_OF in op.attributes:
        grid = op.attributes.get("tile.grid")
        if not isinstance(op, FuncOp) or not isinstance(grid, DenseArrayBase):
            raise KernelAttributeError(op, f"'{GRID_TILES_OF}' belongs on a kernel with a 'tile.grid'")
        extents = tuple(grid.get_values())
        uses.extend(_per_dimension(op, GRID_TILES_OF, extents, "grid dimensions", declared))
    return uses


def _per_dimension(op, attr, numbers, what, declared) -> list[ParameterUse]:
    names = op.attributes[attr]
    if not isinstance(names, ArrayAttr) or not all(isinstance(n, StringAttr) for n in names.data):
        raise KernelAttributeError(op, f"'{attr}' must be an array of parameter names (\"\" for none)")
    if len(names.data) != len(numbers):
        raise KernelAttributeError(
            op, f"'{attr}' names {len(names.data)} dimensions, but the op has {len(numbers)} {what}"
        )
    uses = [
        ParameterUse(op, attr, _parameter_name(op, attr, name, declared), i, numbers[i])
        for i, name in enumerate(names.data)
        if name.data  # type: ignore[union-attr]
    ]
    for use in uses:
        if use.written <= 0:
            raise KernelAttributeError(
                op, f"'{attr}' names '{use.param}' for dimension {use.position}, which is "
                "not a static size"
            )
    return uses


def _parameter_name(op: Operation, attr: str, value: Attribute, declared) -> str:
    if not isinstance(value, StringAttr):
        raise KernelAttributeError(op, f"'{attr}' must name a parameter (a string), got {value}")
    if value.data not in declared:
        raise KernelAttributeError(
            op, f"'{attr}' names '{value.data}', which the kernel's '{TUNE}' does not declare "
            f"(declared: {', '.join(declared)})"
        )
    return value.data


def parameter_uses(func: Operation) -> list[ParameterUse]:
    """Every use of ``func``'s parameters, in program order (the kernel's own first)."""
    declared = tune_candidates(func)
    return [use for op in func.walk() for use in uses_of_op(op, declared)]


def parameter_defaults(func: Operation) -> dict[str, int]:
    """The value the kernel is written at, per parameter: every number that is the
    parameter itself must agree, and one must exist (a tile count alone does not say
    what the tile is)."""
    declared = tune_candidates(func)
    uses = parameter_uses(func)
    defaults: dict[str, int] = {}
    first: dict[str, ParameterUse] = {}
    for use in uses:
        if not use.is_value:
            continue
        if use.param not in defaults:
            defaults[use.param], first[use.param] = use.written, use
        elif use.written != defaults[use.param]:
            where = f" (dimension {use.position})" if use.attr == DIMS else ""
            raise KernelAttributeError(
                use.op,
                f"is written with {use.param} = {use.written}{where}, but with "
                f"{use.param} = {defaults[use.param]} at '{first[use.param].op.name}' before: "
                "a parameter has one value in the kernel as written",
            )
    for name in declared:
        if name not in defaults:
            counted = any(use.param == name for use in uses)
            raise VerifyException(
                f"'{TUNE}' declares '{name}', but "
                + ("only tile counts name it: give its value with 'tile.param' or 'tile.dims'"
                   if counted else "nothing in the kernel names it")
            )
    return defaults


def verify_parameter_attribute(op: Operation, name: str) -> None:
    """The dialect attribute verifier's check of one of :data:`PARAMETER_ATTRS`."""
    if name == TUNE:
        if not isinstance(op, FuncOp):
            raise VerifyException(f"'{TUNE}' belongs on a kernel function")
        parameter_defaults(op)  # checks every use in the kernel
        return
    kernel = declaring_kernel(op)
    # Outside a declaring kernel the names mean nothing: a lowering that moves ops
    # into a new function keeps their discardable attributes.
    if kernel is not None:
        uses_of_op(op, tune_candidates(kernel))
