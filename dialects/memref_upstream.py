"""``memref`` ops in MLIR 22.1.8's custom form, where xDSL 0.75 has only the generic one.

``lower-to-nvvm`` views the block's dynamic shared memory in NVVM's shared address
space (``memref.memory_space_cast``) and hands mbarrier and bulk-copy addresses to
``nvvm`` as integers (``memref.extract_aligned_pointer_as_index``), and a kernel's own
``memref.cast`` passes through; upstream prints the nvvm level it gives back
(``tilepipe compile --emit nvvm``) with each in its custom form.  :data:`MEMREF` is xDSL's ``memref`` dialect with the classes below in
place of xDSL's, registered by tile-opt and every tilepipe context instead of xDSL's
(``registry.OVERRIDES``), so that upstream's text reads back.  They are subclasses
of xDSL's ops, so passes that match xDSL's classes match them; they print the
generic form (:func:`~tilepipe.dialects.upstream_syntax.reads_custom_form`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, MemRefType, UnrankedMemRefType
from xdsl.dialects.memref import CastOp as XDSL_CastOp
from xdsl.dialects.memref import MemRef as XDSL_MEMREF
from xdsl.dialects.memref import (
    ExtractAlignedPointerAsIndexOp as XDSL_ExtractAlignedPointerAsIndexOp,
)
from xdsl.dialects.memref import MemorySpaceCastOp as XDSL_MemorySpaceCastOp
from xdsl.ir import Dialect
from xdsl.irdl import base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect

from tilepipe.dialects.upstream_syntax import reads_custom_form


# irdl_op_definition reads the fields a class defines itself: each repeats xDSL's.


@reads_custom_form
@irdl_op_definition
class MemorySpaceCastOp(XDSL_MemorySpaceCastOp):
    """``memref.memory_space_cast %m : memref<...> to memref<...>``"""

    name = "memref.memory_space_cast"
    source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
    dest = result_def(base(MemRefType) | base(UnrankedMemRefType))
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"


@reads_custom_form
@irdl_op_definition
class CastOp(XDSL_CastOp):
    """``memref.cast %m : memref<4xf16> to memref<?xf16>``"""

    name = "memref.cast"
    source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
    dest = result_def(base(MemRefType) | base(UnrankedMemRefType))
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"


@reads_custom_form
@irdl_op_definition
class ExtractAlignedPointerAsIndexOp(XDSL_ExtractAlignedPointerAsIndexOp):
    """``memref.extract_aligned_pointer_as_index %m : memref<...> -> index``"""

    name = "memref.extract_aligned_pointer_as_index"
    source = operand_def(MemRefType)
    aligned_pointer = result_def(IndexType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$source `:` type($source) `->` type(results) attr-dict"


_OPS = (MemorySpaceCastOp, CastOp, ExtractAlignedPointerAsIndexOp)
_REPLACED = {op.name for op in _OPS}

MEMREF = Dialect(
    "memref",
    [*(op for op in XDSL_MEMREF.operations if op.name not in _REPLACED), *_OPS],
    list(XDSL_MEMREF.attributes),
)
