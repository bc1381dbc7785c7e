"""``gpu`` ops and attributes as MLIR 22.1.8 spells them, where xDSL 0.75 differs.

xDSL's ``gpu.func`` keeps ``kernel`` as a property and has no workgroup attributions,
and xDSL has neither ``gpu.dynamic_shared_memory`` nor ``#gpu.address_space``.  The
NVVM lowering builds these classes instead, so that the generic text it hands to
upstream is exactly upstream's: ``gpu.kernel`` and ``workgroup_attributions`` are
discardable attributes, ``known_block_size``/``known_grid_size`` and
``workgroup_attrib_attrs`` are properties.

:data:`GPU` is xDSL's ``gpu`` dialect with these ops in place of xDSL's ``gpu.func``
and ``gpu.return``: tile-opt and every tilepipe context register it instead of
xDSL's, so that tilepipe reads back what ``lower-to-nvvm`` prints.  (It is not in the
``xdsl.universe`` entry point, which may not define a dialect twice: the stock
``xdsl-opt`` reads the lowered level with ``--allow-unregistered-dialect`` only.)
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    SymbolNameConstraint,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.dialects.gpu import GPU as XDSL_GPU
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Dialect, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class AddressSpace(StrEnum):
    GLOBAL = "global"
    WORKGROUP = "workgroup"
    PRIVATE = "private"


@irdl_attr_definition
class AddressSpaceAttr(EnumAttribute[AddressSpace]):
    """``#gpu.address_space<workgroup>``"""

    name = "gpu.address_space"

    def print_parameter(self, printer) -> None:
        printer.print_string(f"<{self.data.value}>")

    @classmethod
    def parse_parameter(cls, parser) -> AddressSpace:
        # The inverse of print_parameter: upstream's angle-bracketed spelling.
        with parser.in_angle_brackets():
            return parser.parse_str_enum(AddressSpace)


@irdl_op_definition
class DynamicSharedMemoryOp(IRDLOperation):
    """The block's dynamic shared memory as ``memref<?xi8, #gpu.address_space<workgroup>>``."""

    name = "gpu.dynamic_shared_memory"
    resultMemref = result_def(MemRefType)
    assembly_format = "attr-dict `:` type($resultMemref)"

    def __init__(self):
        super().__init__(
            result_types=[
                MemRefType(
                    i8,
                    [DYNAMIC_INDEX],
                    memory_space=AddressSpaceAttr(AddressSpace.WORKGROUP),
                )
            ]
        )


@irdl_op_definition
class KernelModuleOp(IRDLOperation):
    """``gpu.module @name { ... }``: xDSL's gpu.module with upstream's custom form."""

    name = "gpu.module"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface(), SymbolTable())

    def __init__(self, name: StringAttr, body: Region):
        super().__init__(properties={"sym_name": name}, regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> KernelModuleOp:
        name = parser.parse_symbol_name()
        attributes = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, parser.parse_region())
        if attributes is not None:
            op.attributes.update(attributes.data)
        return op



# Discardable attributes the custom form of gpu.func spells by its syntax.
_IMPLIED_ATTRIBUTES = ("sym_name", "gpu.kernel", "workgroup_attributions")


@irdl_op_definition
class KernelFuncOp(IRDLOperation):
    """``gpu.func @name(args) workgroup(attributions) kernel`` (MLIR 22.1.8 form).

    The entry block's arguments are the function inputs followed by one memref per
    workgroup (static shared memory) attribution.
    """

    name = "gpu.func"
    body = region_def("single_block")
    function_type = prop_def(FunctionType)
    known_block_size = opt_prop_def(DenseArrayBase.constr(i32))
    known_grid_size = opt_prop_def(DenseArrayBase.constr(i32))
    workgroup_attrib_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), HasParent(KernelModuleOp), SymbolOpInterface())

    def __init__(
        self,
        sym_name: str,
        inputs: Sequence[Attribute],
        workgroup_buffers: Sequence[tuple[MemRefType, int]],
        block_size: Sequence[int],
        grid_size: Sequence[int],
    ):
        """``workgroup_buffers``: (type, alignment in bytes) per attribution."""
        properties: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists(inputs, []),
            "known_block_size": DenseArrayBase.from_list(i32, block_size),
            "known_grid_size": DenseArrayBase.from_list(i32, grid_size),
        }
        if workgroup_buffers:
            properties["workgroup_attrib_attrs"] = ArrayAttr(
                [
                    DictionaryAttr({"llvm.align": IntegerAttr(align, i64)})
                    for _, align in workgroup_buffers
                ]
            )
        super().__init__(
            properties=properties,
            attributes={
                "sym_name": StringAttr(sym_name),
                "gpu.kernel": UnitAttr(),
                "workgroup_attributions": IntegerAttr(len(workgroup_buffers), i64),
            },
            regions=[
                Region(Block(arg_types=[*inputs, *(t for t, _ in workgroup_buffers)]))
            ],
        )

    @property
    def num_inputs(self) -> int:
        return len(self.function_type.inputs.data)

    # -- upstream's custom form:
    #    gpu.func @k(%a: T, ...) workgroup(%w : T {llvm.align = 16 : i64}) kernel
    #        attributes {known_block_size = ..., ...} { ... }

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.attributes["sym_name"].data)
        args = self.body.block.args
        printer.print_string("(")
        printer.print_list(args[: self.num_inputs], printer.print_block_argument)
        printer.print_string(")")
        workgroup = args[self.num_inputs :]
        if workgroup:
            aligns = self.workgroup_attrib_attrs.data if self.workgroup_attrib_attrs else ()
            printer.print_string(" workgroup(")
            for index, arg in enumerate(workgroup):
                if index:
                    printer.print_string(", ")
                printer.print_block_argument(arg)
                if index < len(aligns) and aligns[index].data:
                    printer.print_string(" ")
                    printer.print_attr_dict(aligns[index].data)
            printer.print_string(")")
        if "gpu.kernel" in self.attributes:
            printer.print_string(" kernel")
        shown = {
            **{name: value for name, value in self.properties.items()
               if name not in ("function_type", "workgroup_attrib_attrs")},
            **{name: value for name, value in self.attributes.items()
               if name not in _IMPLIED_ATTRIBUTES},
        }
        printer.print_op_attributes(shown, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> KernelFuncOp:
        name = parser.parse_symbol_name()
        inputs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument()
        )
        workgroup: list = []
        aligns: list[DictionaryAttr] = []
        if parser.parse_optional_keyword("workgroup") is not None:

            def attribution():
                workgroup.append(parser.parse_argument())
                aligns.append(DictionaryAttr(parser.parse_optional_dictionary_attr_dict()))

            parser.parse_comma_separated_list(parser.Delimiter.PAREN, attribution)
        kernel = parser.parse_optional_keyword("kernel") is not None
        extra = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region([*inputs, *workgroup])
        op = cls.__new__(cls)
        properties: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists([a.type for a in inputs], []),
        }
        attributes: dict[str, Attribute] = {"sym_name": name}
        for key, value in (extra.data if extra is not None else {}).items():
            if key in ("known_block_size", "known_grid_size"):
                properties[key] = value
            else:
                attributes[key] = value
        if kernel:
            attributes["gpu.kernel"] = UnitAttr()
        # As __init__ (and upstream's parser) do: the count is always there.
        attributes["workgroup_attributions"] = IntegerAttr(len(workgroup), i64)
        if workgroup:
            properties["workgroup_attrib_attrs"] = ArrayAttr(aligns)
        IRDLOperation.__init__(op, properties=properties, attributes=attributes, regions=[region])
        return op

    def verify_(self) -> None:
        attributions = self.attributes.get("workgroup_attributions")
        count = attributions.value.data if isinstance(attributions, IntegerAttr) else 0
        arg_types = self.body.block.arg_types
        if tuple(arg_types[: self.num_inputs]) != tuple(self.function_type.inputs.data):
            raise VerifyException("entry block arguments must start with the inputs")
        if len(arg_types) != self.num_inputs + count:
            raise VerifyException("one entry block argument per workgroup attribution")


@irdl_op_definition
class KernelReturnOp(IRDLOperation):
    """``gpu.return`` of a :class:`KernelFuncOp` (xDSL's expects its own gpu.func)."""

    name = "gpu.return"
    traits = traits_def(IsTerminator(), HasParent(KernelFuncOp))
    assembly_format = "attr-dict"


# xDSL's gpu.func/gpu.return model another MLIR (``kernel`` as a property, no
# workgroup attributions) and its gpu.module has no custom form; upstream 22.1.8's,
# above, replace them.
_REPLACED = {KernelFuncOp.name, KernelReturnOp.name, KernelModuleOp.name}

GPU = Dialect(
    "gpu",
    [
        *(op for op in XDSL_GPU.operations if op.name not in _REPLACED),
        DynamicSharedMemoryOp,
        KernelModuleOp,
        KernelFuncOp,
        KernelReturnOp,
    ],
    [*XDSL_GPU.attributes, AddressSpaceAttr],
)
