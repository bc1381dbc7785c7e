"""Execution of target-level NVVM kernels (the output of ``lower-to-nvvm``), all
threads of a block in lockstep, with the race detectors and the bank-conflict model:
the entry point ``run_nvvm_kernel``.  See docs/nvvm.md, "Executing the target-level
IR"."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Operation

from tilepipe.dialects.tensor_maps import TENSOR_MAPS_ATTR
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
# Imported for their side effect: each registers its op handlers with ``execution``.
from tilepipe.semantics.nvvm import collectives, control_flow, conversions, memory_ops, roles, scalar_ops, tensor_copy, wgmma  # noqa: F401
from tilepipe.semantics.nvvm.banks import BankCounter, total_wavefronts
from tilepipe.semantics.nvvm.execution import (  # noqa: F401  (NvvmExecutionError: public)
    BlockExecution,
    NvvmExecutionError,
    is_bf16_memref,
)
from tilepipe.semantics.nvvm.races import GlobalRaceDetector, RaceFound, written_arguments
from tilepipe.semantics.work_limit import WorkLimit

# ---------------------------------------------------------------------- entry point


@dataclass
class NvvmRun:
    outputs: list[np.ndarray]
    races: list[str]
    # count_bank_conflicts: op name -> (wavefronts, ideal wavefronts), see banks.py
    shared_wavefronts: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def shared_wavefront_totals(self) -> tuple[int, int]:
        """(wavefronts, ideal wavefronts) of all shared-memory accesses."""
        return total_wavefronts(self.shared_wavefronts)


def gpu_kernel(module: ModuleOp, name: str | None = None) -> Operation:
    kernels = [op for op in module.walk() if op.name == "gpu.func"]
    if name is not None:
        kernels = [k for k in kernels if k.attributes["sym_name"].data == name]
    if len(kernels) != 1:
        raise ValueError(f"expected one gpu.func{f' @{name}' if name else ''}, found {len(kernels)}")
    return kernels[0]


def argument_types(kernel: Operation) -> list:
    """The types of the arguments a run of ``kernel`` (a ``gpu.func``) is given: its
    inputs but the tensor maps (``tilepipe.tensor_maps``), which the run encodes."""
    inputs = list(kernel.properties["function_type"].inputs.data)
    maps = kernel.attributes.get(TENSOR_MAPS_ATTR)
    return inputs[: len(inputs) - len(maps.data)] if isinstance(maps, ArrayAttr) else inputs


def run_nvvm_kernel(
    module: ModuleOp,
    args: Sequence[np.ndarray],
    *,
    kernel: str | None = None,
    blocks: Sequence[Sequence[int]] | None = None,
    grid: Sequence[int] | None = None,
    check_races: bool = False,
    count_bank_conflicts: bool = False,
    stop_at_first_race: bool = False,
    max_steps: int | None = None,
) -> NvvmRun:
    """Run a lowered kernel on copies of ``args`` (in argument order) over its grid
    (or ``blocks``); return the arguments' final contents, the races found and, with
    ``count_bank_conflicts``, the shared-memory wavefronts per op (``banks``).
    A kernel whose grid ``tile.grid_dims`` states has no ``known_grid_size``: its
    launch grid (``evaluate_grid``) comes as ``grid``, unless ``blocks`` are given.
    With ``stop_at_first_race`` the run ends at the first race the detector reports
    (``races`` holds it; the arrays are as far as the run got): what a mutation test
    needs to know, at a fraction of the run.  ``max_steps``: the loop iterations the
    run may execute, all blocks together (``semantics/work_limit.py``)."""
    func = gpu_kernel(module, kernel)
    known = func.properties.get("known_grid_size")
    if grid is None and known is not None:
        grid = known.get_values()
    if grid is None and blocks is None:
        raise NvvmExecutionError(
            func, "has no known grid size (it is known only at launch: tile.grid_dims); "
            "pass grid or blocks"
        )
    arrays = [np.array(a, copy=True) for a in args]
    # bf16 arguments come and go as f32 (rounded to bf16); in the model they are bits.
    bf16 = [is_bf16_memref(t) for t in argument_types(func)]
    arrays = [round_f32_to_bf16_bits(a) if is_bf16 else a for a, is_bf16 in zip(arrays, bf16)]
    # The host's part of a launch: the tensor maps, encoded from the arrays.
    maps = tensor_copy.tensor_maps_of(func, arrays)
    chosen = blocks if blocks is not None else list(itertools.product(*(range(g) for g in grid or ())))
    races: list[str] = []
    banks = BankCounter() if count_bank_conflicts else None
    entry_args = func.regions[0].block.args
    global_races = {
        i: GlobalRaceDetector(
            f"%{entry_args[i].name_hint or f'arg{i}'}", arrays[i].nbytes, stop_at_first_race
        )
        for i in (written_arguments(func) if check_races else [])
    }
    work = WorkLimit(max_steps)
    try:
        for block in chosen:
            for detector in global_races.values():
                detector.begin_block()
            execution = BlockExecution(
                func, [*arrays, *maps], block, check_races, banks, global_races, work
            )
            if execution.races is not None:
                execution.races.first_race_stops = stop_at_first_race
            execution.run()
            wgmma.check_all_retired(execution)
            if execution.races is not None:
                races.extend(execution.races.races)
    except RaceFound as found:
        races.append(found.report)
    else:
        for detector in global_races.values():
            races.extend(detector.races)
    arrays = [bf16_bits_to_f32(a) if is_bf16 else a for a, is_bf16 in zip(arrays, bf16)]
    return NvvmRun(arrays, races, banks.summary() if banks is not None else {})
