"""The shared-memory bank-conflict model of the NVVM interpreter: wavefronts per
warp-level access against the ideal count.  ``count_wavefronts`` counts one access,
``BankCounter`` sums per op name over all runs and blocks.  See docs/semantics.md,
"Shared-memory bank conflicts (NVVM interpreter)"."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BANKS = 32
BANK_BYTES = 4
WARP = 32
MAX_ACCESS_BYTES = 16
_WORD_BITS = 32  # word numbers of a phase's key: shared memory is far below 16 GiB


def threads_per_phase(nbytes: int) -> int:
    """Lanes served together for ``nbytes`` per thread (at most 16)."""
    if nbytes <= 4:
        return 32
    if nbytes <= 8:
        return 16
    return 8


def count_wavefronts(
    starts: np.ndarray, nbytes: int, mask: np.ndarray | None = None
) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) of one access in which thread ``t`` (lane
    ``t % 32`` of warp ``t // 32``) touches bytes ``starts[t] .. starts[t] + nbytes``
    of shared memory, for the threads where ``mask`` holds (all by default)."""
    starts = np.asarray(starts, np.int64).ravel()
    mask = np.ones(starts.size, bool) if mask is None else np.asarray(mask, bool).ravel()
    if nbytes > MAX_ACCESS_BYTES:
        total = [0, 0]
        for piece in range(0, nbytes, MAX_ACCESS_BYTES):
            cost = count_wavefronts(starts + piece, min(MAX_ACCESS_BYTES, nbytes - piece), mask)
            total[0] += cost[0]
            total[1] += cost[1]
        return total[0], total[1]
    threads = np.flatnonzero(mask)
    if threads.size == 0 or nbytes <= 0:
        return 0, 0
    first = starts[threads] // BANK_BYTES
    last = (starts[threads] + nbytes - 1) // BANK_BYTES
    span = int((last - first).max()) + 1  # words per thread (one more when unaligned)
    words = first[:, None] + np.arange(span)[None, :]
    phase = np.broadcast_to((threads // threads_per_phase(nbytes))[:, None], words.shape)
    touched = words <= last[:, None]
    keys = np.unique((phase[touched] << _WORD_BITS) | words[touched])  # distinct words
    phase_of_key = keys >> _WORD_BITS
    phases = int(phase_of_key[-1]) + 1  # empty phases cost 0 below
    bank = (keys & ((1 << _WORD_BITS) - 1)) % BANKS
    per_bank = np.bincount(phase_of_key * BANKS + bank, minlength=phases * BANKS)
    wavefronts = int(per_bank.reshape(phases, BANKS).max(axis=1).sum())
    words_per_phase = np.bincount(phase_of_key, minlength=phases)
    ideal = int(((words_per_phase + BANKS - 1) // BANKS).sum())
    return wavefronts, ideal


@dataclass
class BankCounter:
    """Wavefronts and ideal wavefronts per op name, summed over the op's executions."""

    counts: dict[str, list[int]] = field(default_factory=dict)

    def record(self, op_name: str, starts: np.ndarray, nbytes: int, mask: np.ndarray) -> None:
        """One execution: thread ``t`` touches ``starts[t] .. starts[t] + nbytes`` if
        ``mask[t]`` (``starts`` of the other threads are ignored)."""
        wavefronts, ideal = count_wavefronts(starts, nbytes, mask)
        entry = self.counts.setdefault(op_name, [0, 0])
        entry[0] += wavefronts
        entry[1] += ideal

    def summary(self) -> dict[str, tuple[int, int]]:
        """op name -> (wavefronts, ideal wavefronts)."""
        return {name: (w, i) for name, (w, i) in sorted(self.counts.items())}


def total_wavefronts(per_op: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """(wavefronts, ideal wavefronts) over all ops of a ``summary``."""
    return sum(w for w, _ in per_op.values()), sum(i for _, i in per_op.values())
