"""``gpu`` ops and attributes as MLIR 22.1.8 spells them, where xDSL 0.75 differs.

xDSL's ``gpu.func`` keeps ``kernel`` as a property and has no workgroup attributions,
its ``gpu.module`` and ``gpu.launch_func`` print in generic form only, and xDSL has
neither ``gpu.dynamic_shared_memory`` nor ``#gpu.address_space``.  The NVVM lowering
builds these classes instead, so that the generic text it hands to upstream is
exactly upstream's (``gpu.kernel`` and ``workgroup_attributions`` are discardable
attributes, ``known_block_size``/``known_grid_size`` and ``workgroup_attrib_attrs``
are properties) and the custom text tile-opt prints is what upstream prints and
parses.

:data:`GPU` is xDSL's ``gpu`` dialect with these ops in place of xDSL's
``gpu.module``, ``gpu.func``, ``gpu.return`` and ``gpu.launch_func``: tile-opt,
every tilepipe context and the stock ``xdsl-opt -f tilepipe`` (the universe's
frontend, ``tilepipe.core.source.TilepipeFrontend``) register it instead of xDSL's, so
that they read back what ``lower-to-nvvm`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.llvm import FuncOp
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.dialects.gpu import (
    GPU as XDSL_GPU,
    AsyncTokenType,
    BlockIdOp as XDSL_BlockIdOp,
    DimensionAttr,
    LaunchFuncOp as XDSL_LaunchFuncOp,
    ModuleOp as XDSL_ModuleOp,
    ThreadIdOp as XDSL_ThreadIdOp,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
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
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tilepipe.dialects.upstream_syntax import reads_custom_form


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


class KernelModuleOp(XDSL_ModuleOp):
    """``gpu.module @name [targets] attributes {...} { ... }``: xDSL's gpu.module with
    upstream's custom form (a plain subclass, as :class:`LaunchFuncOp`: only the syntax
    differs).  The compile targets upstream's ``nvvm-attach-target`` adds at the
    ``llvm`` level (``[#nvvm.target<...>]``) are kept under ``targets``, upstream's
    name for them, so that the level reads back and prints as it came."""

    def __init__(self, name: StringAttr, body: Region):
        super().__init__(name, body)  # type: ignore[arg-type]  (xDSL's hint is wrong)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        targets = self.attributes.get(TARGETS)
        if isinstance(targets, ArrayAttr):
            printer.print_string(" [")
            printer.print_list(targets.data, printer.print_attribute)
            printer.print_string("]")
        printer.print_op_attributes(
            self.attributes, print_keyword=True, reserved_attr_names=(TARGETS,)
        )
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> KernelModuleOp:
        name = parser.parse_symbol_name()
        targets = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_attribute
        )
        attributes = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, parser.parse_region())
        if targets is not None:
            op.attributes[TARGETS] = ArrayAttr(targets)
        if attributes is not None:
            op.attributes.update(attributes.data)
        return op


TARGETS = "targets"


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
    # The tile kernel's argument attributes (tile.divisibility facts) while
    # lower-to-nvvm proves access widths inside the body; it drops them before it
    # ends, as they mean nothing to upstream, so the custom form never prints them.
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), HasParent(KernelModuleOp), SymbolOpInterface())

    def __init__(
        self,
        sym_name: str,
        inputs: Sequence[Attribute],
        workgroup_buffers: Sequence[tuple[MemRefType, int]],
        block_size: Sequence[int],
        grid_size: Sequence[int] | None,
    ):
        """``workgroup_buffers``: (type, alignment in bytes) per attribution;
        ``grid_size`` None: not known at compile time (a ``tile.grid_dims`` grid)."""
        properties: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists(inputs, []),
            "known_block_size": DenseArrayBase.from_list(i32, block_size),
        }
        if grid_size is not None:
            properties["known_grid_size"] = DenseArrayBase.from_list(i32, grid_size)
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

        def located_argument() -> Parser.Argument:
            # Upstream prints an argument's location after its type with
            # --mlir-print-debuginfo (`%arg0: memref<...> loc(unknown)`), also on
            # workgroup attributions (before their attribute dictionary); the
            # region gives it to the block argument.
            argument = parser.parse_argument()
            argument.location = parser.parse_optional_location()
            return argument

        inputs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, located_argument)
        workgroup: list = []
        aligns: list[DictionaryAttr] = []
        if parser.parse_optional_keyword("workgroup") is not None:

            def attribution():
                workgroup.append(located_argument())
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


class LaunchFuncOp(XDSL_LaunchFuncOp):
    """xDSL's ``gpu.launch_func`` with upstream 22.1.8's custom form (xDSL prints it
    generic only)::

        gpu.launch_func [async] [[%deps]] [<%object : T>] @module::@kernel
            [clusters in (%x, %y, %z)] blocks in (%x, %y, %z) threads in (%x, %y, %z)
            [: T] [dynamic_shared_memory_size %bytes] [args(%a : T, ...)] [attr-dict]

    The sizes are ``index`` unless ``: T`` says otherwise (one type for all of them).
    A plain subclass (IRDL definitions cannot be redefined): the operands, properties
    and verifier are xDSL's, only the syntax is upstream's, and code that matches
    xDSL's op matches this one too."""

    def verify_(self) -> None:
        super().verify_()
        if (problem := launched_kernel_problem(self)) is not None:
            raise VerifyException(problem)

    def print(self, printer: Printer) -> None:
        if self.asyncToken is not None:
            printer.print_string(" async")
        if self.asyncDependencies:
            printer.print_string(" [")
            printer.print_list(self.asyncDependencies, printer.print_operand)
            printer.print_string("]")
        if self.asyncObject is not None:
            printer.print_string(" <")
            printer.print_operand(self.asyncObject)
            printer.print_string(" : ")
            printer.print_attribute(self.asyncObject.type)
            printer.print_string(">")
        printer.print_string(" ")
        printer.print_attribute(self.kernel)
        for keyword, sizes in self._launch_sizes():
            if sizes:
                printer.print_string(f" {keyword} in (")
                printer.print_list(sizes, printer.print_operand)
                printer.print_string(")")
        if not isinstance(self.gridSizeX.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(self.gridSizeX.type)
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        if self.kernelOperands:
            printer.print_string(" args(")

            def argument(value: SSAValue) -> None:
                printer.print_operand(value)
                printer.print_string(" : ")
                printer.print_attribute(value.type)

            printer.print_list(self.kernelOperands, argument)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    def _launch_sizes(self) -> list[tuple[str, list[SSAValue]]]:
        clusters = [self.clusterSizeX, self.clusterSizeY, self.clusterSizeZ]
        return [
            ("clusters", [c for c in clusters if c is not None]),
            ("blocks", [self.gridSizeX, self.gridSizeY, self.gridSizeZ]),
            ("threads", [self.blockSizeX, self.blockSizeY, self.blockSizeZ]),
        ]

    @classmethod
    def parse(cls, parser: Parser) -> LaunchFuncOp:
        asynchronous = parser.parse_optional_keyword("async") is not None
        dependencies = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE,
            lambda: parser.resolve_operand(parser.parse_unresolved_operand(), AsyncTokenType()),
        ) or []
        async_object: list[SSAValue] = []
        if parser.parse_optional_punctuation("<") is not None:
            unresolved = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            async_object.append(parser.resolve_operand(unresolved, parser.parse_type()))
            parser.parse_punctuation(">")
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr):
            parser.raise_error("expected the kernel's symbol, e.g. @module::@kernel")

        def sizes(keyword: str) -> list[UnresolvedOperand]:
            parser.parse_keyword("in")
            values = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
            if len(values) != 3:
                parser.raise_error(f"expected three {keyword} sizes (x, y, z)")
            return values

        clusters = (
            sizes("clusters") if parser.parse_optional_keyword("clusters") is not None else []
        )
        parser.parse_keyword("blocks")
        grid = sizes("blocks")
        parser.parse_keyword("threads")
        block = sizes("threads")
        size_type: Attribute = IndexType()
        if parser.parse_optional_punctuation(":") is not None:
            size_type = parser.parse_type()
        dynamic_shared: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            dynamic_shared.append(
                parser.resolve_operand(parser.parse_unresolved_operand(), i32)
            )
        arguments: list[SSAValue] = []
        if parser.parse_optional_keyword("args") is not None:

            def argument() -> SSAValue:
                unresolved = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                return parser.resolve_operand(unresolved, parser.parse_type())

            arguments = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
        attributes = parser.parse_optional_attr_dict()

        def resolved(values: list[UnresolvedOperand]) -> list[SSAValue]:
            return [parser.resolve_operand(value, size_type) for value in values]

        cluster_values = resolved(clusters)
        return cls.build(
            operands=[
                dependencies,
                *resolved(grid),
                *resolved(block),
                *([[v] for v in cluster_values] if cluster_values else [[], [], []]),
                dynamic_shared,
                arguments,
                async_object,
            ],
            result_types=[[AsyncTokenType()] if asynchronous else []],
            properties={"kernel": kernel},
            attributes=attributes,
        )


def launched_kernel_problem(launch: LaunchFuncOp) -> str | None:
    """What upstream's symbol verifier (``GPUDialect::verifyOperationAttribute``) says
    about the kernel ``launch`` names, or ``None``: checked here, where the op has its
    place in the user's file, instead of first in upstream's parser after lowering.
    A launch outside any symbol table (an op being built) is not checked."""
    from xdsl.traits import SymbolTable

    table = launch.parent_op()
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op()
    if table is None:
        return None
    container_name = launch.kernel.root_reference.data
    container = SymbolTable.lookup_symbol(table, container_name)
    if container is None:
        return f"kernel container '{container_name}' is undefined"
    if container.name == "gpu.binary":
        return None  # a serialized module: its kernels are not visible as ops
    if not isinstance(container, KernelModuleOp):
        return f"kernel module '{container_name}' is undefined"
    kernel = SymbolTable.lookup_symbol(table, launch.kernel)
    if kernel is None:
        return f"kernel function '{launch.kernel}' is undefined"
    if not isinstance(kernel, KernelFuncOp | FuncOp):
        return f"referenced kernel '{launch.kernel}' is not a function"
    if "gpu.kernel" not in kernel.attributes:
        return "kernel function is missing the 'gpu.kernel' attribute"
    if isinstance(kernel, FuncOp):
        # The kernel at the llvm level, host not yet lowered: its arguments are the
        # memref descriptors' fields, so (as upstream) the types are not compared.
        return None
    inputs = kernel.function_type.inputs.data
    if len(inputs) != len(launch.kernelOperands):
        return f"got {len(launch.kernelOperands)} kernel operands but expected {len(inputs)}"
    for number, (operand, expected) in enumerate(zip(launch.kernelOperands, inputs)):
        if operand.type != expected:
            return f"type of function argument {number} does not match"
    return None


# `gpu.block_id  x`: xDSL's ids have no custom form.  Subclasses (passes match xDSL's
# classes, which lower-to-nvvm builds) with their fields again, as irdl_op_definition
# reads a class's own, and upstream's optional `upper_bound`.
_ID_FORMAT = "$dimension (`upper_bound` $upper_bound^)? attr-dict"


@reads_custom_form
@irdl_op_definition
class BlockIdOp(XDSL_BlockIdOp):
    name = "gpu.block_id"
    dimension = prop_def(DimensionAttr)
    upper_bound = opt_prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    assembly_format = _ID_FORMAT


@reads_custom_form
@irdl_op_definition
class ThreadIdOp(XDSL_ThreadIdOp):
    name = "gpu.thread_id"
    dimension = prop_def(DimensionAttr)
    upper_bound = opt_prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    assembly_format = _ID_FORMAT


# xDSL's gpu.func/gpu.return model another MLIR (``kernel`` as a property, no
# workgroup attributions) and its gpu.module has no custom form; upstream 22.1.8's,
# above, replace them.
_REPLACED = {
    KernelFuncOp.name, KernelReturnOp.name, KernelModuleOp.name, LaunchFuncOp.name,
    BlockIdOp.name, ThreadIdOp.name,
}

GPU = Dialect(
    "gpu",
    [
        *(op for op in XDSL_GPU.operations if op.name not in _REPLACED),
        DynamicSharedMemoryOp,
        KernelModuleOp,
        KernelFuncOp,
        KernelReturnOp,
        LaunchFuncOp,
        BlockIdOp,
        ThreadIdOp,
    ],
    [*XDSL_GPU.attributes, AddressSpaceAttr],
)
