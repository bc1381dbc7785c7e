"""The tile-level interpreter's boundary tiles and dynamic sizes (docs/semantics.md,
"Dynamic shapes and boundary tiles"): reads past a global array are 0, writes there
are dropped, the race detector sees only the in-bounds part, on-chip stays strict."""

from __future__ import annotations

import numpy as np
import pytest

from tilepipe.semantics import execute, run_tile_kernel
from tilepipe.semantics.errors import KernelError

ROUND_TRIP = """
func.func @k(%X: memref<?xf32>, %Y: memref<?xf32>, %off: index)
    attributes {tile.threads = 32 : i64} {
  %c8 = arith.constant 8 : index
  %c0 = arith.constant 0 : index
  %n = memref.dim %Y, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c8 : index
  tile.grid_dims %blocks
  %bx = tile.block_id x
  %base = arith.muli %bx, %c8 : index
  %start = arith.addi %base, %off : index
  %t = memref.alloc() : memref<8xf32, "shared">
  tile.copy<8> %X[%start] -> %t : memref<?xf32> -> memref<8xf32, "shared">
  tile.copy<8> %t -> %Y[%base] : memref<8xf32, "shared"> -> memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("offset", [-5, 0, 3, 20])
def test_reads_past_the_array_are_zero_and_writes_are_dropped(offset):
    x = np.arange(1, 11, dtype=np.float32)  # 10 elements
    y = np.full(13, -1, dtype=np.float32)  # 13: the last block's tile reaches 3 past
    run = execute(ROUND_TRIP, inputs={"X": x, "Y": y}, index_args={"off": offset},
                  check_races=True)
    assert not run.races
    expected = np.array(
        [x[i + offset] if 0 <= i + offset < 10 else 0 for i in range(13)], np.float32
    )
    np.testing.assert_array_equal(run.outputs["Y"], expected)


def test_a_wholly_outside_tile_touches_nothing():
    # every block writes the same tile, wholly past the end: no access, no race
    text = ROUND_TRIP.replace("%Y[%base]", "%Y[%off]")
    run = execute(text, inputs={"X": np.ones(10, np.float32), "Y": np.zeros(13, np.float32)},
                  index_args={"off": 13}, check_races=True)
    assert not run.races
    np.testing.assert_array_equal(run.outputs["Y"], np.zeros(13, np.float32))


def test_overlapping_in_bounds_parts_still_race_between_blocks():
    text = ROUND_TRIP.replace("%Y[%base]", "%Y[%off]")
    run = execute(text, inputs={"X": np.ones(10, np.float32), "Y": np.zeros(13, np.float32)},
                  index_args={"off": 9}, check_races=True)
    assert run.races and all(race.between_blocks for race in run.races)
    assert run.races[0].element == (9,)


def test_on_chip_buffers_stay_strict():
    text = ROUND_TRIP.replace("%X[%start] -> %t", "%X[%c0] -> %t[%off]")
    with pytest.raises(KernelError, match="region \\[3, 11\\) of %t is out of bounds"):
        run_tile_kernel(text, inputs={"X": np.ones(10, np.float32), "Y": np.zeros(13, np.float32)},
                   index_args={"off": 3})


def test_shapes_come_from_the_inputs_or_the_shapes_argument():
    inputs = {"X": np.ones(10, np.float32)}
    out = run_tile_kernel(ROUND_TRIP, inputs=inputs, shapes={"Y": (4,)}, index_args={"off": 0})
    assert out["Y"].shape == (4,)
    with pytest.raises(KernelError, match="but its given shape is \\(9,\\)"):
        run_tile_kernel(
            ROUND_TRIP, inputs=inputs, shapes={"X": (9,), "Y": (4,)}, index_args={"off": 0}
        )
