"""The NVVM race detector's proxy states kept as times (``ProxyClock``) follow the
state machine PTX's proxy rules define, event for event, across clock rebases."""

import numpy as np
import pytest

from tilepipe.semantics.nvvm.races import (
    PROXY_FENCED,
    PROXY_ORDERED,
    PROXY_UNFENCED,
    ProxyClock,
)


class ReferenceProxies:
    """The state machine itself, one entry per (byte, thread): as to the last generic
    access (``state``) and the last generic write (``writes``)."""

    def __init__(self, size, threads):
        self.state = np.full((size, threads), PROXY_ORDERED, np.int8)
        self.writes = np.full((size, threads), PROXY_ORDERED, np.int8)

    def access(self, byte, thread, write):
        self.state[byte, thread] = PROXY_UNFENCED
        if write:
            self.writes[byte, thread] = PROXY_UNFENCED

    def fence(self, threads):
        for states in (self.state, self.writes):
            part = states[:, threads]
            part[part == PROXY_UNFENCED] = PROXY_FENCED
            states[:, threads] = part

    def barrier(self, threads):
        for states in (self.state, self.writes):
            part = states[:, threads]
            part[part == PROXY_FENCED] = PROXY_ORDERED
            states[:, threads] = part


class ShortClock(ProxyClock):
    LIMIT = 7  # rebase every few events


@pytest.mark.parametrize("clock_type", [ProxyClock, ShortClock])
@pytest.mark.parametrize("seed", range(20))
def test_times_give_the_states_of_the_state_machine(clock_type, seed):
    rng = np.random.default_rng(seed)
    size, threads = 16, 8
    clock, reference = clock_type(size, threads), ReferenceProxies(size, threads)
    for _ in range(60):
        kind = rng.choice(["access", "fence", "barrier", "barrier_all"], p=[0.5, 0.2, 0.2, 0.1])
        if kind == "access":
            n = int(rng.integers(1, 6))
            byte, thread = rng.integers(0, size, n), rng.integers(0, threads, n)
            write = bool(rng.integers(0, 2))
            clock.access(byte, thread, write)
            reference.access(byte, thread, write)
        else:
            chosen = rng.choice(threads, int(rng.integers(1, threads + 1)), replace=False)
            if kind == "barrier_all":
                clock.barrier(slice(None))
                reference.barrier(slice(None))
            else:
                getattr(clock, kind)(chosen)
                getattr(reference, kind)(chosen)
        assert (clock.states(slice(None)) == reference.state).all()
        assert (clock.states(slice(None), writes_only=True) == reference.writes).all()
