"""Interpreter functions for the standard dialects a kernel uses around its tile ops:
``arith`` (integer, index and float, with casts), ``scf`` and ``memref``.

Values: ``index`` and integers are Python ints (wrapped to their width), ``i1`` is 0/1,
floats are numpy scalars of their format (bf16 as f32 rounded to bf16), memrefs are
:class:`~tilepipe.semantics.memory.Buffer` views.  xDSL's own arith/scf/memref
interpreters use attributes as values and lack views, float division and most casts,
hence these.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.interpreter import (
    Interpreter,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.memory import (
    OutOfBounds,
    UninitializedRead,
    element_format,
    new_buffer,
    strided_view,
    typed_view,
)
from tilepipe.semantics.tile.interpreter_base import RuntimeFunctions, value_name

# --------------------------------------------------------------------------- integers


def _width(type_: Attribute) -> int:
    if isinstance(type_, IntegerType):
        return type_.width.data
    return 64  # index


def wrap_signed(value: int, type_: Attribute) -> int:
    width = _width(type_)
    if width == 1:
        return value & 1
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def as_unsigned(value: int, type_: Attribute) -> int:
    return value & ((1 << _width(type_)) - 1)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _signed_rem(a: int, b: int) -> int:
    return a - _trunc_div(a, b) * b


INTEGER_BINARY: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: operator.add,
    arith.SubiOp: operator.sub,
    arith.MuliOp: operator.mul,
    arith.DivSIOp: _trunc_div,
    arith.RemSIOp: _signed_rem,
    arith.FloorDivSIOp: operator.floordiv,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.AndIOp: operator.and_,
    arith.OrIOp: operator.or_,
    arith.XOrIOp: operator.xor,
    arith.ShLIOp: operator.lshift,
    arith.ShRSIOp: operator.rshift,
}
UNSIGNED_BINARY: dict[type[Operation], Callable[[int, int], int]] = {
    arith.DivUIOp: operator.floordiv,
    arith.RemUIOp: operator.mod,
    arith.CeilDivUIOp: lambda a, b: -((-a) // b),
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
    arith.ShRUIOp: operator.rshift,
}
DIVISIONS = (
    arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp,
    arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp,
)
COMPARISONS = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
    "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}

# --------------------------------------------------------------------------- floats

FLOAT_BINARY: dict[type[Operation], Callable] = {
    arith.AddfOp: operator.add,
    arith.SubfOp: operator.sub,
    arith.MulfOp: operator.mul,
    arith.DivfOp: operator.truediv,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
}


def float_value(value, type_: Attribute):
    """``value`` rounded to the float type ``type_`` (a numpy scalar)."""
    return element_format(type_).scalar(value)


def _cmpf(predicate: str, a, b) -> bool:
    if predicate in ("false", "true"):
        return predicate == "true"
    unordered = bool(np.isnan(a) or np.isnan(b))
    if predicate == "ord":
        return not unordered
    if predicate == "uno":
        return unordered
    compare = COMPARISONS[predicate[1:]]
    if predicate[0] == "o":
        return not unordered and bool(compare(a, b))
    return unordered or bool(compare(a, b))


def _dispatching(table, method: str):
    """Register one impl per op of ``table`` that forwards to ``method``."""

    def decorate(cls):
        for op_type in table:
            forward = impl(op_type)(
                lambda self, interpreter, op, args: getattr(self, method)(op, args)
            )
            setattr(cls, f"run_{op_type.__name__}", forward)
        return cls

    return decorate


@register_impls
@_dispatching(FLOAT_BINARY, "_float_binary")
@_dispatching((*INTEGER_BINARY, *UNSIGNED_BINARY), "_integer_binary")
class ArithFunctions(RuntimeFunctions):
    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args):
        value = op.value
        if isinstance(value, IntegerAttr):
            return (wrap_signed(value.value.data, op.result.type),)
        if isinstance(value, FloatAttr):
            return (float_value(value.value.data, op.result.type),)
        raise KernelError(op, f"unsupported constant {value}")

    def _integer_binary(self, op: Operation, args: PythonValues) -> PythonValues:
        type_ = op.results[0].type
        lhs, rhs = args
        if isinstance(op, DIVISIONS) and rhs == 0:
            raise KernelError(op, "divides by zero")
        if type(op) in UNSIGNED_BINARY:
            value = UNSIGNED_BINARY[type(op)](as_unsigned(lhs, type_), as_unsigned(rhs, type_))
        else:
            value = INTEGER_BINARY[type(op)](lhs, rhs)
        return (wrap_signed(value, type_),)

    def _float_binary(self, op: Operation, args: PythonValues) -> PythonValues:
        lhs, rhs = args
        type_ = op.results[0].type
        with np.errstate(all="ignore"):
            computed = FLOAT_BINARY[type(op)](np.float64(lhs), np.float64(rhs))
        # Exact for f16/bf16/f32: the double result rounds once to the narrower type.
        return (float_value(computed, type_),)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter, op: arith.NegfOp, args):
        return (float_value(-np.float64(args[0]), op.result.type),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter, op: arith.CmpiOp, args):
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        lhs, rhs = args
        if predicate.startswith("u"):
            lhs, rhs = as_unsigned(lhs, op.lhs.type), as_unsigned(rhs, op.lhs.type)
        compare = COMPARISONS[predicate if predicate in COMPARISONS else predicate[1:]]
        return (int(compare(lhs, rhs)),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interpreter, op: arith.CmpfOp, args):
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        return (int(_cmpf(predicate, *args)),)

    @impl(arith.SelectOp)
    def run_select(self, interpreter, op: arith.SelectOp, args):
        condition, true_value, false_value = args
        return (true_value if condition else false_value,)

    # -- casts

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interpreter, op: arith.IndexCastOp, args):
        return (wrap_signed(args[0], op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter, op: arith.ExtSIOp, args):
        return (wrap_signed(args[0], op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter, op: arith.ExtUIOp, args):
        return (as_unsigned(args[0], op.input.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter, op: arith.TruncIOp, args):
        return (wrap_signed(args[0], op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter, op: arith.SIToFPOp, args):
        return (float_value(args[0], op.result.type),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interpreter, op: arith.UIToFPOp, args):
        return (float_value(as_unsigned(args[0], op.input.type), op.result.type),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter, op: arith.FPToSIOp, args):
        if not np.isfinite(args[0]):
            raise KernelError(op, f"converts {args[0]} to an integer")
        return (wrap_signed(math.trunc(float(args[0])), op.result.type),)

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter, op: arith.ExtFOp, args):
        return (float_value(args[0], op.result.type),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter, op: arith.TruncFOp, args):
        return (float_value(args[0], op.result.type),)


# --------------------------------------------------------------------------- scf


@register_impls
class ScfFunctions(RuntimeFunctions):
    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args):
        lb, ub, step, *carried = args
        if step <= 0:
            raise KernelError(op, f"has a non-positive step {step}")
        return self.run_loop(interpreter, op.body, lb, ub, step, tuple(carried))

    @impl(scf.IfOp)
    def run_if(self, interpreter: Interpreter, op: scf.IfOp, args):
        region = op.true_region if args[0] else op.false_region
        if not region.blocks:
            return ()
        return interpreter.run_ssacfg_region(region, (), "scf.if")

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interpreter, op: scf.YieldOp, args):
        return ReturnedValues(args), ()


# --------------------------------------------------------------------------- memref


@register_impls
class MemRefFunctions(RuntimeFunctions):
    @impl(memref.AllocOp)
    def run_alloc(self, interpreter, op: memref.AllocOp, args):
        return (self._allocate(op, op.memref, args),)

    @impl(memref.AllocaOp)
    def run_alloca(self, interpreter, op: memref.AllocaOp, args):
        return (self._allocate(op, op.memref, args),)

    def _allocate(self, op: Operation, result: SSAValue, dynamic_sizes) -> object:
        memref_type = result.type
        assert isinstance(memref_type, MemRefType)
        sizes = iter(dynamic_sizes)
        shape = [d if d >= 0 else next(sizes) for d in memref_type.get_shape()]
        try:
            return new_buffer(memref_type, value_name(result), shape=shape)
        except ValueError as err:
            raise KernelError(op, str(err)) from None

    @impl(memref.DimOp)
    def run_dim(self, interpreter, op: memref.DimOp, args):
        buffer, dim = args
        if not 0 <= dim < len(buffer.shape):
            raise KernelError(op, f"dimension {dim} is out of range for {buffer.name}")
        return (buffer.shape[dim],)

    @impl(memref.DeallocOp)
    def run_dealloc(self, interpreter, op, args):
        return ()

    @impl(memref.ViewOp)
    def run_view(self, interpreter, op: memref.ViewOp, args):
        source, shift, *dynamic_sizes = args
        result_type = op.result.type
        sizes = iter(dynamic_sizes)
        shape = [d if d >= 0 else next(sizes) for d in result_type.get_shape()]
        try:
            return (typed_view(source, shift, result_type, shape, value_name(op.result)),)
        except OutOfBounds as err:
            raise KernelError(op, str(err)) from None

    @impl(memref.SubviewOp)
    def run_subview(self, interpreter, op: memref.SubviewOp, args):
        source, *dynamic_values = args
        dynamic = iter(dynamic_values)

        def values(static) -> list[int]:
            return [
                next(dynamic) if v == DYNAMIC_INDEX else v
                for v in static.get_values()
            ]

        offsets = values(op.static_offsets)
        sizes = values(op.static_sizes)
        strides = values(op.static_strides)
        rank = len(op.result.type.get_shape())
        try:
            view = strided_view(source, offsets, sizes, strides, rank, value_name(op.result))
        except OutOfBounds as err:
            raise KernelError(op, str(err)) from None
        return (view,)

    @impl(memref.LoadOp)
    def run_load(self, interpreter, op: memref.LoadOp, args):
        buffer, *indices = args
        region = self.scalar_region(op, buffer, indices)
        event = self.machine.begin(op, threads=[0])
        self.machine.track(event, buffer, region, True, False, self.thread_zero(region))
        try:
            value = buffer.read(region).reshape(-1)[0]
        except UninitializedRead as err:
            raise KernelError(op, self.uninitialized_message(buffer, err)) from None
        return (value if buffer.element.is_float else int(value),)

    @impl(memref.StoreOp)
    def run_store(self, interpreter, op: memref.StoreOp, args):
        value, buffer, *indices = args
        region = self.scalar_region(op, buffer, indices)
        event = self.machine.begin(op, threads=[0])
        self.machine.track(event, buffer, region, False, True, self.thread_zero(region))
        buffer.write(region, np.asarray([value]))
        return ()

    @impl(memref.CopyOp)
    def run_copy(self, interpreter, op: memref.CopyOp, args):
        source, destination = args
        if source.shape != destination.shape:
            raise KernelError(
                op, f"copies a {source.shape} memref into a {destination.shape} one"
            )
        event = self.machine.begin(op)
        src_region, dst_region = source.whole(), destination.whole()
        self.machine.track(event, source, src_region, True, False, self.machine.cooperative(src_region))
        self.machine.track(event, destination, dst_region, False, True, self.machine.cooperative(dst_region))
        try:
            values = source.read(src_region)
        except UninitializedRead as err:
            raise KernelError(op, self.uninitialized_message(source, err)) from None
        destination.write(dst_region, values)
        return ()

