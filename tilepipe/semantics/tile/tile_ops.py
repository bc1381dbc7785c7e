"""Interpreter functions for the ``tile`` dialect and the ``pipeline.for`` loop.

Every tile op reads its input tiles whole, computes with numpy, and writes its output
tile whole.  Numerics (documented in docs/semantics.md):

* elementwise ops compute in f32 for f16 and bf16 (in their own format otherwise) and
  are rounded once when stored (``numerics.exp``/``numerics.binary``, shared with the
  NVVM interpreter and the Ascend pipe simulator);
* ``tile.gemm``: ``C + A @ B`` with A and B widened to f32, accumulated into C in f32
  one 16-wide step of K at a time, each step summed by ``numpy.einsum`` (no BLAS) --
  the order of the tensor-core lowering (``numerics.gemm_accumulate``); f32 operands
  one K at a time, a rounded product then a rounded sum (the scalar path's order);
* ``tile.reduce``: sum in f32 (f64 for f64) in the order the op defines (``numerics.reduce_sum``:
  numpy's pairwise order along every axis, ``tilepipe.dialects.tile_reduce_order``);
  integers in their own type, wrapping;
* ``tile.cast``: round to nearest even; integers are signed, float to integer rounds
  toward zero and saturates, NaN to 0 (``numerics.float_to_integer``);
* ``tile.atomic_add``: ``dst + src`` in the element type, rounded once per add
  (``numerics.atomic_add``, shared with the NVVM interpreter and the Ascend pipe
  simulator); blocks run in order, so a grid's adds of one element happen in
  block order;
* ``tile.broadcast``: exact (copies the source element into each repetition);
* ``tile.log/sqrt/rsqrt`` as ``tile.exp`` (``numerics.unary``); ``tile.iota``
  ``start + coordinate`` (``numerics.iota``); ``tile.cmp`` 1 or 0, NaN false but for
  ``ne``; ``tile.select`` exact.

``pipeline.for`` runs its iterations in order: the reference semantics every
pipelined schedule must reproduce.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from xdsl.dialects.builtin import IntegerType
from xdsl.interpreter import Interpreter, ReturnedValues, impl, impl_terminator, register_impls

from tilepipe.dialects import ascend, pipeline, tile
from tilepipe.dialects.tile_base import ElementMapping, TileOp

from tilepipe.passes.cuda.warpgroup_mma import reads_through_async_proxy
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.memory import Buffer, Region
from tilepipe.semantics import numerics
from tilepipe.semantics.numerics import gemm_accumulate, gemm_k_step
from tilepipe.semantics.tile.races import Agents, fragment_threads, warp_tiled_threads
from tilepipe.semantics.tile.interpreter_base import RuntimeFunctions

class TileOperands:
    """The checked regions of one tile op, by role."""

    def __init__(self, functions: RuntimeFunctions, interpreter: Interpreter, op: TileOp):
        self.op = op
        self.functions = functions
        self.regions: dict[str, tuple[Buffer, Region]] = {}
        for access in op.buffer_accesses():
            (buffer,) = interpreter.get_values((access.buffer,))
            offsets = interpreter.get_values(access.offsets)
            self.regions[access.operand_name] = (
                buffer,
                functions.region_of(op, buffer, offsets, access.sizes, tile=True),
            )

    def read(self, role: str) -> np.ndarray:
        buffer, region = self.regions[role]
        values = self.functions.read(self.op, buffer, region)
        return values.reshape(self.op.operand_tile_shape(role))

    def write(self, role: str, values: np.ndarray) -> None:
        buffer, region = self.regions[role]
        buffer.write(region, values)

    def track(self, event: int, agents_of=None) -> None:
        """Record every access with the op's element mapping (ElementMapping): the
        given one, every thread for the roles read by all threads, the fragment's
        layout for ops touching registers, else chunks."""
        machine = self.functions.machine
        registers = self.op.touches_registers()
        chunk = self.op.cooperative_chunk()
        for access in self.op.buffer_accesses():
            buffer, region = self.regions[access.operand_name]
            if access.operand_name in self.op.ROLES_READ_BY_ALL_THREADS:
                agents = Agents(None)
            elif agents_of is not None:
                agents = agents_of(access.operand_name, region)
            elif registers:
                shape = self.op.operand_tile_shape(access.operand_name)
                owners = fragment_threads(shape, machine.threads)
                agents = Agents(owners.reshape(region.sizes))
            else:
                agents = machine.cooperative(region, chunk=chunk)
            if access.atomic:
                agents = replace(agents, atomic=True)
            machine.track(event, buffer, region, access.reads, access.writes, agents)


@register_impls
class TileFunctions(RuntimeFunctions):
    def _start(self, interpreter: Interpreter, op: TileOp) -> TileOperands:
        operands = TileOperands(self, interpreter, op)
        event = self.machine.begin(op)
        if op.ELEMENT_MAPPING is ElementMapping.WARP_TILED:
            operands.track(event, self._warp_tiled_agents(op))
        else:
            operands.track(event)
        return operands

    def _warp_tiled_agents(self, op: TileOp):
        threads = self.machine.threads
        # A gemm on wgmma (sm_90a) reads its shared A and B through the async proxy.
        async_reads = isinstance(op, tile.GemmOp) and reads_through_async_proxy(op)

        def agents_of(role: str, region: Region) -> Agents:
            if role != "c":  # every warp reads its operands' whole tiles
                return Agents(None, async_proxy=async_reads)
            m, n = op.operand_tile_shape("c")
            return Agents(warp_tiled_threads(m, n, threads).reshape(region.sizes))

        return agents_of

    @impl(tile.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: tile.CopyOp, args):
        operands = self._start(interpreter, op)
        src, src_region = operands.regions["src"]
        dst, dst_region = operands.regions["dst"]
        stored = self.read_stored(op, src, src_region)
        dst.write_stored(dst_region, stored)
        return ()

    @impl(tile.AtomicAddOp)
    def run_atomic_add(self, interpreter: Interpreter, op: tile.AtomicAddOp, args):
        """Each element of the destination plus its source element, rounded once in
        the element type (an integer wraps); adds past the array's edge are dropped.
        The block's update of an element is one atomic add: blocks run one after
        the other, so the grid's result is that of one order of the adds."""
        operands = self._start(interpreter, op)
        total = numerics.atomic_add(operands.read("dst"), operands.read("src"))
        operands.write("dst", total)
        return ()

    @impl(tile.FillOp)
    def run_fill(self, interpreter: Interpreter, op: tile.FillOp, args):
        operands = self._start(interpreter, op)
        operands.write("dst", np.full(op.operand_tile_shape("dst"), args[0]))
        return ()

    @impl(ascend.ZeroTailOp)
    def run_zero_tail(self, interpreter: Interpreter, op: ascend.ZeroTailOp, args):
        """Zero the rows of the UB tile past the array and, in the others, the columns
        past the 32-byte block holding the array's end (``ascend.zero_tail``)."""
        operands = self._start(interpreter, op)
        source = op.source()
        (gm,) = interpreter.get_values((source.buffer,))
        region = gm.region(interpreter.get_values(source.offsets), source.sizes, tile=True)
        if not region.clipped:
            return ()
        dst, tile = operands.regions["dst"]
        rows, padded = op.kept(region.inside().sizes, dst.element.itemsize, tile.sizes[-1])
        for first_row, first_col in ((rows, 0), (0, padded)):
            last_row = rows if first_col else (tile.sizes[-2] if len(tile.sizes) > 1 else 1)
            if first_row >= last_row or first_col >= tile.sizes[-1]:
                continue
            starts, sizes = list(tile.starts), list(tile.sizes)
            starts[-1] += first_col
            sizes[-1] -= first_col
            if len(sizes) > 1:
                starts[-2] += first_row
                sizes[-2] = last_row - first_row
            dst.write(Region(tuple(starts), tuple(sizes)), np.zeros(sizes))
        return ()

    def _binary(self, interpreter: Interpreter, op: TileOp) -> tuple:
        operands = self._start(interpreter, op)
        lhs, rhs = operands.read("lhs"), operands.read("rhs")
        operands.write("dst", numerics.binary(op.name.removeprefix("tile."), lhs, rhs))
        return ()

    @impl(tile.AddOp)
    def run_add(self, interpreter, op, args):
        return self._binary(interpreter, op)

    @impl(tile.SubOp)
    def run_sub(self, interpreter, op, args):
        return self._binary(interpreter, op)

    @impl(tile.MulOp)
    def run_mul(self, interpreter, op, args):
        return self._binary(interpreter, op)

    @impl(tile.MaxOp)
    def run_max(self, interpreter, op, args):
        return self._binary(interpreter, op)

    @impl(tile.DivOp)
    def run_div(self, interpreter, op, args):
        return self._binary(interpreter, op)

    def _unary(self, interpreter: Interpreter, op: TileOp) -> tuple:
        operands = self._start(interpreter, op)
        operands.write("dst", numerics.unary(op.name.removeprefix("tile."), operands.read("src")))
        return ()

    @impl(tile.ExpOp)
    def run_exp(self, interpreter, op, args):
        return self._unary(interpreter, op)

    @impl(tile.LogOp)
    def run_log(self, interpreter, op, args):
        return self._unary(interpreter, op)

    @impl(tile.SqrtOp)
    def run_sqrt(self, interpreter, op, args):
        return self._unary(interpreter, op)

    @impl(tile.RsqrtOp)
    def run_rsqrt(self, interpreter, op, args):
        return self._unary(interpreter, op)

    @impl(tile.IotaOp)
    def run_iota(self, interpreter, op: tile.IotaOp, args):
        operands = self._start(interpreter, op)
        buffer, _ = operands.regions["dst"]
        shape = op.operand_tile_shape("dst")
        operands.write("dst", numerics.iota(args[0], shape, op.iota_dim, buffer.element.compute))
        return ()

    @impl(tile.CmpOp)
    def run_cmp(self, interpreter, op: tile.CmpOp, args):
        operands = self._start(interpreter, op)
        holds = numerics.compare(op.predicate.data, operands.read("lhs"), operands.read("rhs"))
        operands.write("dst", holds)  # the store makes true 1 and false 0
        return ()

    @impl(tile.SelectOp)
    def run_select(self, interpreter, op: tile.SelectOp, args):
        operands = self._start(interpreter, op)
        picked = numerics.select(
            operands.read("mask"), operands.read("on_true"), operands.read("on_false")
        )
        operands.write("dst", picked)
        return ()

    @impl(tile.CastOp)
    def run_cast(self, interpreter, op: tile.CastOp, args):
        operands = self._start(interpreter, op)
        source = operands.read("src")
        target = op.dst.type.element_type
        if isinstance(target, IntegerType) and source.dtype.kind == "f":
            bits = target.width.data
            source = numerics.float_to_integer(source, np.dtype(f"int{max(8, bits)}"))
        operands.write("dst", source)  # the store rounds (to a float) or wraps (to an integer)
        return ()

    @impl(tile.ReduceOp)
    def run_reduce(self, interpreter, op: tile.ReduceOp, args):
        operands = self._start(interpreter, op)
        source = operands.read("src")
        wide = np.float64 if source.dtype == np.float64 else np.float32
        if op.reduce_kind is tile.ReduceKind.SUM and source.dtype.kind == "i":
            # Integers add in their type, wrapping: the same in any order.
            result = np.add.reduce(source, axis=op.reduce_axis, dtype=source.dtype)
        elif op.reduce_kind is tile.ReduceKind.SUM:
            result = numerics.reduce_sum(source.astype(wide), op.reduce_axis)
        else:
            result = np.max(source, axis=op.reduce_axis)
        operands.write("dst", result)
        return ()

    @impl(tile.BroadcastOp)
    def run_broadcast(self, interpreter, op: tile.BroadcastOp, args):
        operands = self._start(interpreter, op)
        source = np.expand_dims(operands.read("src"), op.along_axis)
        operands.write("dst", np.broadcast_to(source, op.tile_shape))
        return ()

    @impl(tile.GemmOp)
    def run_gemm(self, interpreter, op: tile.GemmOp, args):
        operands = self._start(interpreter, op)
        a = operands.read("a").astype(np.float32)
        b = operands.read("b").astype(np.float32)
        if op.transpose_a:
            a = a.T
        if op.transpose_b:
            b = b.T
        c = operands.read("c")
        k_step = gemm_k_step(op.a.type.element_type.bitwidth)
        operands.write("c", gemm_accumulate(c, a, b, k_step))
        return ()

    @impl(tile.BlockIdOp)
    def run_block_id(self, interpreter, op: tile.BlockIdOp, args):
        axis = "xyz".index(op.dimension.data)
        block = self.machine.block_id
        return (block[axis] if axis < len(block) else 0,)

    @impl(tile.GridDimsOp)
    def run_grid_dims(self, interpreter, op: tile.GridDimsOp, args):
        return ()  # evaluated before the launch (passes/analysis/grid.py)

    # -- the pipelined loop, sequentially

    @impl(pipeline.ForOp)
    def run_pipeline_for(self, interpreter, op: pipeline.ForOp, args):
        lb, ub, step = args
        if step <= 0:
            raise KernelError(op, f"has a non-positive step {step}")
        self.run_loop(interpreter, op.body, lb, ub, step)
        return ()

    @impl_terminator(pipeline.YieldOp)
    def run_pipeline_yield(self, interpreter, op, args):
        return ReturnedValues(args), ()
