"""examples/flash_attention_dynamic.mlir after lower-to-nvvm: the lowered
kernel, run per thread in the NVVM interpreter at sequence lengths no K/V block
divides, on sm_80, sm_90 and sm_90a, is race free and equal to the tile level (up to the
order of the mma sums) and to attention; ptxas accepts it.

The sequence length is dynamic, so one lowering per target serves every length; the
grid (``tile.grid_dims``: ceildiv(L, 64)) is known only at launch and is passed to
the interpreter.  ``TILEPIPE_BOUNDARY_SWEEP=long`` adds L = 1000 (its first and last
blocks)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipelining"))

from dynamic_kernels import FLASH_DYNAMIC, flash_inputs, flash_reference  # noqa: E402
from test_nvvm_boundary import LONG, lowered  # noqa: E402
from tilepipe.lowering.nvvm.ptxas import find_ptxas, run_ptxas  # noqa: E402
from tilepipe.lowering.nvvm.upstream import Stage, run_upstream  # noqa: E402
from tilepipe.semantics import run_tile_kernel  # noqa: E402
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel  # noqa: E402
from tilepipe.core.targets import TARGETS  # noqa: E402

TARGETS_UNDER_TEST = ("sm_80", "sm_90", "sm_90a")  # sm_90a: wgmma, tensor maps
LENGTHS = (1, 63, 65, 1000) if LONG else (1, 63, 65)
ARGUMENTS = ("Q", "K", "V", "O", "key_valid")


def _text(target: str) -> str:
    return FLASH_DYNAMIC.replace('"sm_80"', f'"{target}"')


@pytest.fixture(scope="module", params=TARGETS_UNDER_TEST)
def kernel(request):
    """(target, lowered module): one lowering serves every sequence length."""
    return request.param, lowered(_text(request.param), request.param)


@pytest.mark.parametrize("length", LENGTHS)
def test_lowered_flash_attention_at_ragged_lengths(kernel, length):
    target, module = kernel
    inputs = flash_inputs(length)
    grid = -(-length // 64)
    blocks = None if grid <= 2 else [(0, 0, 0), (grid - 1, 0, 0)]
    run = run_nvvm_kernel(
        module, [inputs[name] for name in ARGUMENTS], grid=(grid, 1, 1), blocks=blocks,
        check_races=True,
    )
    assert run.races == [], "\n".join(run.races)
    tile_level = run_tile_kernel(
        _text(target), inputs=inputs, blocks=None if blocks is None else [b[:1] for b in blocks]
    )["O"]
    reference = flash_reference(inputs)
    for x in range(grid) if blocks is None else (b[0] for b in blocks):
        rows = slice(x * 64, min(length, x * 64 + 64))
        np.testing.assert_allclose(run.outputs[3][rows], tile_level[rows], atol=1e-6, rtol=0)
        np.testing.assert_allclose(run.outputs[3][rows], reference[rows], atol=2e-4, rtol=0)


def test_ptxas_accepts_the_lowered_flash_attention(kernel):
    target, module = kernel
    try:
        find_ptxas()
    except RuntimeError as err:
        pytest.skip(str(err))
    reports = run_ptxas(run_upstream(module, TARGETS[target], Stage.PTX).text, target)
    assert [r.kernel for r in reports] == ["flash_attention_dynamic"]


def test_a_grid_known_only_at_launch_must_be_given(kernel):
    _, module = kernel
    with pytest.raises(NvvmExecutionError, match=r"known only at launch: tile.grid_dims"):
        run_nvvm_kernel(module, [flash_inputs(1)[name] for name in ARGUMENTS])
