"""The nvvm/nvgpu subset is spelled as MLIR 22.1.8 spells it: the generic text xDSL
prints for every op parses and verifies in the real upstream bindings, and upstream
prints back the same operand and property names."""

import re

import pytest
from mlir import ir
from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    i32,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects import nvgpu, nvvm
from tilepipe.core.registry import get_all_dialects

SHARED_F16 = MemRefType(Float16Type(), [64, 64], memory_space=IntegerAttr(3, i64))
GLOBAL_F16 = MemRefType(Float16Type(), [64, 64])
SHARED_PTR = LLVMPointerType(IntAttr(3))
GLOBAL_PTR = LLVMPointerType(IntAttr(1))


def build(arg_types, body):
    """A func whose body ``body(args, c0, i32_one)`` builds the ops under test."""
    module = ModuleOp([])
    with ImplicitBuilder(module.body):
        fn = func.FuncOp("f", (arg_types, []))
    with ImplicitBuilder(fn.body) as args:
        c0 = arith.ConstantOp.from_int_and_width(0, IndexType())
        one = arith.ConstantOp.from_int_and_width(1, i32)
        body(args, c0, one)
        func.ReturnOp()
    module.verify()
    return module


def generic(module) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def upstream_roundtrip(text: str) -> str:
    with ir.Context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
        return module.operation.get_asm(print_generic_op_form=True)


def property_names(text: str) -> set[str]:
    """Names in the ``<{...}>`` property dicts of nvvm/nvgpu ops."""
    names: set[str] = set()
    for props in re.findall(r'"(?:nvvm|nvgpu)\.[\w.]+"\([^)]*\) <\{(.*?)\}>', text):
        names.update(re.findall(r"(\w+) = ", props))
    return names


def nvvm_ops(args, c0, one):
    dst, src, bar = args
    nvvm.Barrier0Op()
    nvvm.BarrierOp()
    nvvm.BarrierOp(one, arith.ConstantOp.from_int_and_width(64, i32))
    nvvm.CpAsyncSharedGlobalOp(dst, src, 16, nvvm.LoadCacheModifier.CG)
    nvvm.CpAsyncSharedGlobalOp(dst, src, 4, nvvm.LoadCacheModifier.CA)
    nvvm.CpAsyncCommitGroupOp()
    nvvm.CpAsyncWaitGroupOp(2)
    nvvm.CpAsyncBulkSharedClusterGlobalOp(dst, src, bar, one)
    nvvm.FenceProxyOp()
    nvvm.MBarrierInitOp(bar, one)
    state = nvvm.MBarrierArriveOp(bar)
    nvvm.MBarrierTestWaitOp(bar, state)
    nvvm.MBarrierTestWaitOp(bar, one)
    nvvm.MBarrierArriveExpectTxOp(bar, one)
    nvvm.MBarrierCompleteTxOp(bar, one)
    nvvm.MBarrierTryWaitParityOp(bar, one, one)
    value = arith.ConstantOp(FloatAttr(1.0, Float32Type()))
    mask = arith.ConstantOp.from_int_and_width(-1, i32)
    width = arith.ConstantOp.from_int_and_width(31, i32)
    nvvm.ShflSyncOp(nvvm.ShflKind.BFLY, mask, value.result, one, width)
    # bf16 mma.sync: A/B registers are i32 (packed bf16 pairs), C f32.
    nvvm.MmaOp([one] * 4, [one] * 2, [value.result] * 4)


CLUSTER_PTR = LLVMPointerType(IntAttr(7))
GENERIC_PTR = LLVMPointerType()


def tensor_copy_ops(args, c0, one):
    dst, tensor_map, bar = args
    nvvm.CpAsyncBulkTensorSharedClusterGlobalOp(dst, tensor_map, [one, one], bar)
    nvvm.CpAsyncBulkTensorSharedClusterGlobalOp(dst, tensor_map, [one, one, one, one, one], bar)


def nvgpu_ops(args, c0, one):
    shared, glob = args
    token = nvgpu.DeviceAsyncCopyOp(shared, [c0, c0], glob, [c0, c0], 8, bypass_l1=True)
    group = nvgpu.DeviceAsyncCreateGroupOp([token])
    nvgpu.DeviceAsyncWaitOp(group, 1)
    a = nvgpu.LdMatrixOp(shared, [c0, c0], 4, False, VectorType(Float16Type(), [4, 2]))
    b = nvgpu.LdMatrixOp(shared, [c0, c0], 2, True, VectorType(Float16Type(), [2, 2]))
    c = arith.ConstantOp(FloatAttr(0.0, Float32Type()))
    from xdsl.dialects.vector import BroadcastOp

    acc = BroadcastOp(c, VectorType(Float32Type(), [2, 2]))
    nvgpu.MmaSyncOp(a, b, acc.vector)


def warp_role_ops(args, c0, one):
    nvvm.SetMaxRegisterOp("decrease", 24)
    nvvm.SetMaxRegisterOp("increase", 240)
    nvvm.ElectSyncOp()


@pytest.mark.parametrize(
    "arg_types, body",
    [
        ([SHARED_PTR, GLOBAL_PTR, SHARED_PTR], nvvm_ops),
        ([CLUSTER_PTR, GENERIC_PTR, SHARED_PTR], tensor_copy_ops),
        ([SHARED_F16, GLOBAL_F16], nvgpu_ops),
        ([], warp_role_ops),
    ],
    ids=["nvvm", "nvvm-tensor-copy", "nvgpu", "nvvm-warp-roles"],
)
def test_generic_form_is_upstream_form(arg_types, body):
    ours = generic(build(arg_types, body))
    theirs = upstream_roundtrip(ours)
    op_names = re.findall(r'"((?:nvvm|nvgpu)\.[\w.]+)"', ours)
    assert op_names and op_names == re.findall(r'"((?:nvvm|nvgpu)\.[\w.]+)"', theirs)
    # Every property we print is a property upstream prints under the same name.
    ours_props, theirs_props = property_names(ours), property_names(theirs)
    assert ours_props and ours_props <= theirs_props


def test_generic_form_reads_back_in_xdsl():
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    for dialect in ("arith", "func", "builtin", "vector", "llvm"):
        from xdsl.dialects import get_all_dialects as xdsl_dialects

        ctx.register_dialect(dialect, xdsl_dialects()[dialect])
    for arg_types, body in (
        ([SHARED_PTR, GLOBAL_PTR, SHARED_PTR], nvvm_ops),
        ([CLUSTER_PTR, GENERIC_PTR, SHARED_PTR], tensor_copy_ops),
        ([SHARED_F16, GLOBAL_F16], nvgpu_ops),
    ):
        text = generic(build(arg_types, body))
        module = Parser(ctx, text).parse_module()
        module.verify()
        assert generic(module) == text


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda a, c0, one: nvvm.CpAsyncSharedGlobalOp(a[0], a[1], 8, nvvm.LoadCacheModifier.CG), "cg needs a 16-byte"),
        (lambda a, c0, one: nvvm.CpAsyncSharedGlobalOp(a[0], a[1], 2, nvvm.LoadCacheModifier.CA), "4, 8 or 16"),
        (lambda a, c0, one: nvvm.BarrierOp(None, one), "needs a barrierId"),
        (lambda a, c0, one: nvvm.MmaOp([one] * 4, [one] * 2, [one] * 4), "C must be 4 f32 or 2 vector<2xf16>"),
        (lambda a, c0, one: nvvm.MmaOp([one] * 2, [one] * 2, [one] * 4), "4 A and 2 B registers"),
        (lambda a, c0, one: nvvm.MmaOp([one] * 4, [one] * 2, [one] * 4, nvvm.MMAType.F16), "must be vector<2xf16>"),
        (lambda a, c0, one: nvvm.SetMaxRegisterOp("increase", 250), "multiple of 8 in \\[24, 256\\]"),
        (lambda a, c0, one: nvvm.SetMaxRegisterOp("decrease", 16), "multiple of 8 in \\[24, 256\\]"),
    ],
)
def test_verifier_rejects(make, message):
    with pytest.raises(VerifyException, match=message):
        build([SHARED_PTR, GLOBAL_PTR, SHARED_PTR], make)


def test_a_tensor_copy_takes_one_to_five_coordinates():
    def body(args, c0, one):
        nvvm.CpAsyncBulkTensorSharedClusterGlobalOp(args[0], args[1], [one] * 6, args[2])

    with pytest.raises(VerifyException, match="1 to 5 coordinates"):
        build([CLUSTER_PTR, GENERIC_PTR, SHARED_PTR], body)


def test_async_copy_size_is_checked():
    def body(args, c0, one):
        nvgpu.DeviceAsyncCopyOp(args[0], [c0, c0], args[1], [c0, c0], 3)

    with pytest.raises(VerifyException, match="4, 8 or 16 bytes"):
        build([SHARED_F16, GLOBAL_F16], body)


def test_i64_state_and_i32_phase_are_the_only_test_wait_operands():
    def body(args, c0, one):
        nvvm.MBarrierTestWaitOp(args[2], c0)

    with pytest.raises(VerifyException, match="stateOrPhase"):
        build([SHARED_PTR, GLOBAL_PTR, SHARED_PTR], body)
    assert i64  # the i64 state is exercised by nvvm_ops
