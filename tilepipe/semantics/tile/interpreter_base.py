"""What every group of interpreter functions shares: the running block's machine and
helpers to turn op operands into checked buffer regions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Operation, Region, SSAValue

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.block_machine import BlockMachine
from tilepipe.semantics.memory import Buffer, OutOfBounds, Region as BufferRegion, UninitializedRead
from tilepipe.semantics.tile.races import Agents
from tilepipe.semantics.work_limit import WorkLimit, trip_count


class KernelRuntime:
    """Holds the machine of the block being run (swapped per block) and the run's
    work limit."""

    machine: BlockMachine

    def __init__(self, work: WorkLimit | None = None):
        self.work = work or WorkLimit()


def value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"%<{value.type}>"


class RuntimeFunctions(InterpreterFunctions):
    def __init__(self, runtime: KernelRuntime):
        self.runtime = runtime

    @property
    def machine(self) -> BlockMachine:
        return self.runtime.machine

    # -- regions

    def region_of(
        self, op: Operation, buffer: Buffer, offsets: Sequence[int], sizes: Sequence[int],
        *, tile: bool = False,
    ) -> BufferRegion:
        """A checked region; ``tile``: a tile op's, clipped at a global array's edge."""
        try:
            return buffer.region(offsets, sizes, tile=tile)
        except OutOfBounds as err:
            raise KernelError(op, str(err)) from None

    def scalar_region(self, op: Operation, buffer: Buffer, indices) -> BufferRegion:
        return self.region_of(op, buffer, indices, (1,) * len(buffer.shape))

    def thread_zero(self, region: BufferRegion) -> Agents:
        return Agents(np.zeros(region.sizes, dtype=np.int64))

    def read(self, op: Operation, buffer: Buffer, region: BufferRegion) -> np.ndarray:
        if self.machine.tracker is not None:
            # Under race detection a racy read may see memory an unwaited copy has
            # not filled yet: the race report explains it, the value is poison.
            return buffer.element.from_storage(buffer.read_stored(region))
        try:
            return buffer.read(region)
        except UninitializedRead as err:
            raise KernelError(op, self.uninitialized_message(buffer, err)) from None

    def read_stored(self, op: Operation, buffer: Buffer, region: BufferRegion) -> np.ndarray:
        if self.machine.tracker is None:
            self.read(op, buffer, region)  # the initialization check
        return buffer.read_stored(region)

    @staticmethod
    def uninitialized_message(buffer: Buffer, err: UninitializedRead) -> str:
        index = ", ".join(str(i) for i in err.element)
        return (
            f"reads uninitialized memory: {buffer.name}[{index}] was never written "
            "(or an async copy into it has not been waited for)"
        )

    # -- loops

    def run_loop(
        self,
        interpreter: Interpreter,
        body: Region,
        lb: int,
        ub: int,
        step: int,
        carried: tuple = (),
    ) -> tuple:
        if (problem := self.runtime.work.charge(trip_count(lb, ub, step))) is not None:
            raise KernelError(body.parent_op(), problem)
        induction_var = body.block.args[0]
        name = induction_var.name_hint or "iv"
        iteration = self.machine.iteration
        for value in range(lb, ub, step):
            iteration.append((name, value))
            try:
                carried = interpreter.run_ssacfg_region(body, (value, *carried), name)
            finally:
                iteration.pop()
        return carried
