"""Kernels and checks shared by the dynamic-shape tests: the GEMM and
flash attention of examples/ with dynamic or static shapes, compiled by the tile-level
CUDA pipelines, run against numpy and against their source."""

from __future__ import annotations

import re
from functools import cache

import numpy as np

from conftest import EXAMPLES
from pipeline_helpers import apply_passes, with_num_stages
from tilepipe.semantics import execute
from tilepipe.semantics.compare import first_difference
from tilepipe.core.flows import FLOWS

PIPELINES = {"sm_80": FLOWS["cuda"].spec("scheduled"), "sm_90": FLOWS["cuda"].spec("scheduled")}

GEMM_DYNAMIC = (EXAMPLES / "gemm_dynamic.mlir").read_text()
FLASH_DYNAMIC = (EXAMPLES / "flash_attention_dynamic.mlir").read_text()


def with_static_shapes(text: str, shapes: dict[str, tuple[int, ...]]) -> str:
    """``text`` with each memref argument named in ``shapes`` made static: on every
    line using ``%name``, the first dynamic memref type after it is its type (the
    signature lists each argument before its type, an op its global operand before
    the operand's dynamic type)."""
    lines = text.splitlines()
    for name, shape in shapes.items():
        static = "x".join(map(str, shape))
        for i, line in enumerate(lines):
            use = re.search(rf"%{name}\b(?!_)", line)
            if use is None or line.lstrip().startswith("//"):
                continue
            rest = line[use.end():]
            dynamic_type = r"memref<[?0-9x]*\?[?0-9x]*x(\w+)>"
            rest = re.sub(dynamic_type, rf"memref<{static}x\1>", rest, count=1)
            lines[i] = line[: use.end()] + rest
    return "\n".join(lines) + "\n"


@cache
def compiled(text: str, target: str, num_stages: int) -> str:
    """``text`` for ``target`` at ``num_stages``, through the tile-level pipeline."""
    source = with_num_stages(text, num_stages).replace('"sm_80"', f'"{target}"')
    return str(apply_passes(source, PIPELINES[target]))


def run_both(source: str, transformed: str, inputs: dict, blocks=None) -> dict:
    """Run the source and the transformed kernel on ``inputs`` (race-checking the
    transformed one); require no race and bit-identical outputs; return the source's
    outputs."""
    shapes = {name: np.shape(value) for name, value in inputs.items()}
    expected = execute(source, inputs=inputs, blocks=blocks, shapes=shapes)
    actual = execute(
        transformed, inputs=inputs, blocks=blocks, shapes=shapes, check_races=True
    )
    assert not actual.races, "\n".join(str(race) for race in actual.races)
    difference = first_difference(expected.outputs, actual.outputs)
    assert difference is None, difference
    return expected.outputs


def gemm_inputs(m: int, n: int, k: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "A": rng.uniform(-1, 1, (m, k)).astype(np.float16),
        "B": rng.uniform(-1, 1, (k, n)).astype(np.float16),
        "C": np.full((m, n), np.nan, dtype=np.float32),
    }


def gemm_reference(inputs: dict) -> np.ndarray:
    return inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)


def flash_inputs(length: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    shape = (length, 64)
    return {
        "Q": (rng.uniform(-1, 1, shape) / 8).astype(np.float16),
        "K": rng.uniform(-1, 1, shape).astype(np.float16),
        "V": rng.uniform(-1, 1, shape).astype(np.float16),
        "O": np.full(shape, np.nan, dtype=np.float32),
        "key_valid": np.ones(length, dtype=np.float32),
    }


def flash_reference(inputs: dict) -> np.ndarray:
    q, k, v = (inputs[name].astype(np.float64) for name in "QKV")
    scores = q @ k.T
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v
