"""``pipeline.warp_specialize``: the warp-specialized form of a pipelined loop (sm_90a),
written by ``warp-specialize`` before planning (the chapter's §8.3).

    pipeline.warp_specialize producer_threads = 128, producer_registers = 24,
        consumer_registers = 240 producer {
      scf.for ... { wait empty[s]; bulk copies into slot s; arrive full[s] }
    } consumer {
      ... scf.for ... { wait full[s]; compute on slot s; arrive empty[s] } ...
    }

The block's first ``tile.threads`` threads run the consumer region, the
``producer_threads`` after them the producer region, both at once; each role first
sets its per-thread register budget (``setmaxnreg``).  The two regions share nothing
but the ring: the shared buffers the producer fills and the mbarriers that hand each
slot over (full: the producer's copies landed; empty: every consumer thread is done
with it).  Those barriers belong to this op: the pipeline passes leave them alone,
and a block-wide barrier inside either region is an error (the other role never
reaches it).  Semantics: docs/semantics.md, "Warp roles"; lowering: docs/nvvm.md,
"Warp specialization".
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, region_def, traits_def
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.nvvm_warp_roles import MAX_REGISTERS, MIN_REGISTERS, REGISTER_STEP

WARPGROUP_THREADS = 128
REGISTER_FILE = 65536  # 32-bit registers per SM: what the roles' budgets share

# A unit attribute ``warp-specialize`` puts on a consumer loop whose one gemm may
# stay in flight into the next iteration: each slot is released one iteration late,
# after the next gemm is issued.  The NVVM lowering then ends the gemm with
# ``wgmma.wait_group 1`` and carries its accumulators through the loop
# (``lowering/nvvm/wgmma_in_flight.py``); without the attribute a gemm retires all
# its wgmmas before it ends.
WGMMA_IN_FLIGHT_ATTR = "pipeline.wgmma_in_flight"


@irdl_op_definition
class WarpSpecializeOp(IRDLOperation):
    name = "pipeline.warp_specialize"

    producer_threads = prop_def(IntegerAttr[IntegerType])
    producer_registers = prop_def(IntegerAttr[IntegerType])
    consumer_registers = prop_def(IntegerAttr[IntegerType])
    producer = region_def("single_block")
    consumer = region_def("single_block")
    traits = traits_def(NoTerminator())

    assembly_format = (
        "`producer_threads` `=` $producer_threads `,` `producer_registers` `=` "
        "$producer_registers `,` `consumer_registers` `=` $consumer_registers "
        "`producer` $producer `consumer` $consumer attr-dict"
    )

    def __init__(
        self,
        producer: Region,
        consumer: Region,
        *,
        producer_threads: int,
        producer_registers: int,
        consumer_registers: int,
    ):
        super().__init__(
            regions=[producer, consumer],
            properties={
                "producer_threads": IntegerAttr(producer_threads, i64),
                "producer_registers": IntegerAttr(producer_registers, i64),
                "consumer_registers": IntegerAttr(consumer_registers, i64),
            },
        )

    @property
    def producer_thread_count(self) -> int:
        return self.producer_threads.value.data

    @property
    def registers(self) -> tuple[int, int]:
        """(producer, consumer) per-thread register budgets."""
        return self.producer_registers.value.data, self.consumer_registers.value.data

    def role_of(self, op: Operation) -> str | None:
        """``producer`` or ``consumer``: the region of this op ``op`` lies in."""
        for region, role in ((self.producer, "producer"), (self.consumer, "consumer")):
            if region.is_ancestor(op):
                return role
        return None

    def verify_(self) -> None:
        from tilepipe.dialects.kernel_attrs import kernel_launch_shape
        from tilepipe.dialects.pipeline_sync import BarrierOp

        producers = self.producer_thread_count
        if producers <= 0 or producers % WARPGROUP_THREADS:
            raise VerifyException(
                f"producer_threads must be whole warpgroups ({WARPGROUP_THREADS} threads), "
                f"got {producers}"
            )
        for role, count in zip(("producer", "consumer"), self.registers):
            if not (MIN_REGISTERS <= count <= MAX_REGISTERS and count % REGISTER_STEP == 0):
                raise VerifyException(
                    f"{role}_registers must be a multiple of {REGISTER_STEP} in "
                    f"[{MIN_REGISTERS}, {MAX_REGISTERS}], got {count}"
                )
        kernel = self.parent_op()
        while kernel is not None and not isinstance(kernel, FuncOp):
            if isinstance(kernel, WarpSpecializeOp):
                raise VerifyException("warp-specialized regions do not nest")
            kernel = kernel.parent_op()
        if kernel is None:
            raise VerifyException("expected inside a kernel function")
        if self.parent_block() is not kernel.body.block:
            raise VerifyException(
                "expected at the top level of its kernel (the roles split the whole block once)"
            )
        consumers = kernel_launch_shape(kernel)[1]
        if consumers % WARPGROUP_THREADS:
            raise VerifyException(
                f"the kernel's {consumers} threads (the consumers) are not whole warpgroups"
            )
        used = producers * self.registers[0] + consumers * self.registers[1]
        if used > REGISTER_FILE:
            raise VerifyException(
                f"the roles' register budgets need {used} registers "
                f"({producers} x {self.registers[0]} + {consumers} x {self.registers[1]}), "
                f"the register file has {REGISTER_FILE}"
            )
        for op in self.walk():
            if isinstance(op, BarrierOp) and op.thread_count is None:
                raise VerifyException(
                    "a block-wide barrier inside a warp-specialized region deadlocks: the "
                    "other role never reaches it (the roles synchronize through the "
                    "ring's mbarriers only)"
                )


def warp_specialization_of(kernel: Operation) -> WarpSpecializeOp | None:
    """The kernel's warp-specialized region, if it has one."""
    block = kernel.regions[0].blocks.first if kernel.regions else None
    if block is None:
        return None
    return next((op for op in block.ops if isinstance(op, WarpSpecializeOp)), None)


PIPELINE_WS_OPS: list[type[IRDLOperation]] = [WarpSpecializeOp]
