"""The interpreter: numerics, memory (views, aliasing, initialization), async timing,
grids and the errors it reports for bad kernels and inputs."""

from pathlib import Path

import numpy as np
import pytest

from tilepipe.semantics import KernelError, find_races, run_tile_kernel
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits

ROOT = Path(__file__).resolve().parents[3]
ATTRS = "attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64}"


def test_bf16_rounds_to_nearest_even():
    values = np.array(
        [1.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -2.5, np.inf, np.nan], dtype=np.float32
    )
    bits = round_f32_to_bf16_bits(values)
    assert list(bits[:5]) == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80]
    assert np.isnan(bf16_bits_to_f32(bits[5:])).all()


def test_scalar_arithmetic_and_casts():
    kernel = f"""
    func.func @k(%out: memref<8xindex>, %f: memref<4xf32>, %h: memref<1xf16>) {ATTRS} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %m7 = arith.constant -7 : index
      %floor = arith.floordivsi %m7, %c2 : index
      %div = arith.divsi %m7, %c2 : index
      %rem = arith.remsi %m7, %c2 : index
      %divu = arith.divui %c7, %c2 : index
      %remu = arith.remui %c7, %c2 : index
      %lt = arith.cmpi slt, %m7, %c2 : index
      %ult = arith.cmpi ult, %m7, %c2 : index
      %sel = arith.select %lt, %c5, %c6 : index
      %ltu = arith.extui %ult : i1 to i64
      %ltx = arith.index_cast %ltu : i64 to index
      memref.store %floor, %out[%c0] : memref<8xindex>
      memref.store %div, %out[%c1] : memref<8xindex>
      memref.store %rem, %out[%c2] : memref<8xindex>
      memref.store %divu, %out[%c3] : memref<8xindex>
      memref.store %remu, %out[%c4] : memref<8xindex>
      memref.store %sel, %out[%c5] : memref<8xindex>
      memref.store %ltx, %out[%c6] : memref<8xindex>
      memref.store %c7, %out[%c7] : memref<8xindex>
      %one = arith.constant 1.0 : f32
      %three = arith.constant 3.0 : f32
      %third = arith.divf %one, %three : f32
      %i = arith.index_cast %m7 : index to i32
      %fi = arith.sitofp %i : i32 to f32
      %back = arith.fptosi %third : f32 to i32
      %fb = arith.sitofp %back : i32 to f32
      %neg = arith.negf %third : f32
      memref.store %third, %f[%c0] : memref<4xf32>
      memref.store %fi, %f[%c1] : memref<4xf32>
      memref.store %fb, %f[%c2] : memref<4xf32>
      memref.store %neg, %f[%c3] : memref<4xf32>
      %half = arith.truncf %third : f32 to f16
      memref.store %half, %h[%c0] : memref<1xf16>
      func.return
    }}
    """
    out = run_tile_kernel(kernel)
    assert list(out["out"]) == [-4, -3, -1, 3, 1, 5, 0, 7]
    third = np.float32(1) / np.float32(3)
    np.testing.assert_array_equal(out["f"], np.array([third, -7, 0, -third], np.float32))
    assert out["h"][0] == np.float16(third)


def test_views_of_an_arena_alias():
    kernel = f"""
    func.func @k(%A: memref<64xf16>, %C: memref<32xf16>) {ATTRS} {{
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %arena = memref.alloc() : memref<256xi8, "shared">
      %whole = memref.view %arena[%c0][] : memref<256xi8, "shared"> to memref<64xf16, "shared">
      %upper = memref.view %arena[%c64][] : memref<256xi8, "shared"> to memref<32xf16, "shared">
      tile.copy<64> %A -> %whole : memref<64xf16> -> memref<64xf16, "shared">
      tile.copy<32> %upper -> %C : memref<32xf16, "shared"> -> memref<32xf16>
      func.return
    }}
    """
    A = np.arange(64, dtype=np.float16)
    out = run_tile_kernel(kernel, inputs={"A": A})
    np.testing.assert_array_equal(out["C"], A[32:])


def test_async_copy_lands_at_the_wait():
    kernel = f"""
    func.func @k(%A: memref<8x16xf16>, %before: memref<8x16xf16>, %after: memref<8x16xf16>) {ATTRS} {{
      %zero = arith.constant 0.0 : f16
      %S = memref.alloc() : memref<8x16xf16, "shared">
      tile.fill<8x16> %zero -> %S : f16 -> memref<8x16xf16, "shared">
      %t = pipeline.async_copy<8x16> %A -> %S : memref<8x16xf16> -> memref<8x16xf16, "shared">
      pipeline.commit_group [%t]
      tile.copy<8x16> %S -> %before : memref<8x16xf16, "shared"> -> memref<8x16xf16>
      pipeline.wait_group 0
      tile.copy<8x16> %S -> %after : memref<8x16xf16, "shared"> -> memref<8x16xf16>
      func.return
    }}
    """
    out = run_tile_kernel(kernel, seed=3)
    assert not out["before"].any()  # stale: the copy had not landed
    np.testing.assert_array_equal(out["after"], out["A"])


def _shrunk_gemm(size: int) -> str:
    text = (ROOT / "examples" / "gemm.mlir").read_text()
    return (
        text.replace("1024x1024", f"{size}x{size}")
        .replace("array<i64: 8, 8>", f"array<i64: {size // 128}, {size // 128}>")
        .replace("arith.constant 16 : index", f"arith.constant {size // 64} : index")
    )


def test_gemm_over_the_grid_is_bit_exact():
    out = run_tile_kernel(_shrunk_gemm(256), seed=1)
    A, B = out["A"].astype(np.float32), out["B"].astype(np.float32)
    expected = np.empty((256, 256), np.float32)
    for m in range(0, 256, 128):
        for n in range(0, 256, 128):
            acc = np.zeros((128, 128), np.float32)
            # One 16-wide K step at a time, as mma.sync accumulates (numerics.gemm_accumulate).
            for k in range(0, 256, 16):
                acc = np.einsum("mk,kn->mn", A[m:m + 128, k:k + 16], B[k:k + 16, n:n + 128]) + acc
            expected[m:m + 128, n:n + 128] = acc
    np.testing.assert_array_equal(out["C"], expected)


def test_bf16_tiles_are_stored_faithfully():
    kernel = f"""
    func.func @k(%A: memref<8x8xbf16>, %B: memref<8x8xbf16>, %C: memref<8x8xbf16>) {ATTRS} {{
      %A_s = memref.alloc() : memref<8x8xbf16, "shared">
      %B_s = memref.alloc() : memref<8x8xbf16, "shared">
      tile.copy<8x8> %A -> %A_s : memref<8x8xbf16> -> memref<8x8xbf16, "shared">
      tile.copy<8x8> %B -> %B_s : memref<8x8xbf16> -> memref<8x8xbf16, "shared">
      tile.add<8x8> %A_s, %B_s -> %A_s : memref<8x8xbf16, "shared">, memref<8x8xbf16, "shared"> -> memref<8x8xbf16, "shared">
      tile.copy<8x8> %A_s -> %C : memref<8x8xbf16, "shared"> -> memref<8x8xbf16>
      func.return
    }}
    """
    out = run_tile_kernel(kernel, seed=5)
    A, B = out["A"], out["B"]
    assert A.dtype == np.float32  # bf16 values, computed with in f32
    np.testing.assert_array_equal(bf16_bits_to_f32(round_f32_to_bf16_bits(A)), A)
    np.testing.assert_array_equal(out["C"], bf16_bits_to_f32(round_f32_to_bf16_bits(A + B)))


def test_only_the_chosen_blocks_run():
    kernel = _shrunk_gemm(256)
    full = run_tile_kernel(kernel)
    one = run_tile_kernel(kernel, blocks=[(1, 0)])
    np.testing.assert_array_equal(one["C"][:128, 128:], full["C"][:128, 128:])
    assert not np.array_equal(one["C"][:128, :128], full["C"][:128, :128])


@pytest.mark.parametrize(
    "body, message",
    [
        (
            '%S = memref.alloc() : memref<4xf32, "shared">\n'
            "tile.copy<4> %S -> %X : memref<4xf32, \"shared\"> -> memref<4xf32>",
            "'tile.copy' op reads uninitialized memory: %S[0]",
        ),
        (
            "%c9 = arith.constant 9 : index\n"
            "%v = memref.load %X[%c9] : memref<4xf32>",
            "'memref.load' op region [9, 10) of %X is out of bounds",
        ),
    ],
)
def test_bad_kernels_raise_located_errors(body, message):
    kernel = f"func.func @k(%X: memref<4xf32>) {ATTRS} {{\n{body}\nfunc.return\n}}"
    with pytest.raises(KernelError) as err:
        run_tile_kernel(kernel)
    assert message in str(err.value)
    assert str(err.value).startswith("<input>:")


def test_bad_inputs_are_reported():
    kernel = f"func.func @k(%X: memref<4xf32>, %n: index) {ATTRS} {{\nfunc.return\n}}"
    with pytest.raises(KernelError, match="input 'X' has shape \\(3,\\)"):
        run_tile_kernel(kernel, inputs={"X": np.zeros(3)}, index_args={"n": 1})
    with pytest.raises(KernelError, match="argument %n : index needs a value"):
        run_tile_kernel(kernel)


def test_strided_subview_reads_through_its_source():
    kernel = f"""
    func.func @k(%A: memref<4x8xf32>, %C: memref<2x3xf32>) {ATTRS} {{
      %S = memref.alloc() : memref<4x8xf32, "shared">
      tile.copy<4x8> %A -> %S : memref<4x8xf32> -> memref<4x8xf32, "shared">
      %v = memref.subview %S[1, 2] [2, 3] [2, 1] : memref<4x8xf32, "shared"> to memref<2x3xf32, strided<[16, 1], offset: 10>, "shared">
      tile.copy<2x3> %v -> %C : memref<2x3xf32, strided<[16, 1], offset: 10>, "shared"> -> memref<2x3xf32>
      func.return
    }}
    """
    A = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_array_equal(run_tile_kernel(kernel, inputs={"A": A})["C"], A[1::2, 2:5])
    # Element (0, 0) of the view is element 10 of %S: in 16-byte chunks of 4 f32
    # (chunk 2) written by thread 2, read by thread 0.
    (race,) = find_races(kernel)
    assert (race.kind, race.buffer, race.first.agent) == ("RAW", "%v", "thread 2")
