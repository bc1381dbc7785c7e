"""Warp roles in the NVVM interpreter (sm_90a warp specialization): the two branches
of an ``scf.if`` marked ``tilepipe.warp_roles = array<i64: C, P>`` -- its then-region
the P producer threads, its else-region the C consumer threads -- run as concurrent
agents, and the ops that come with roles: ``nvvm.setmaxregister`` and
``nvvm.elect.sync``.  See docs/semantics.md, "Warp roles".

Every other handler of the interpreter is a plain function that runs its threads in
lockstep, so each agent is a Python thread that runs its region with the ordinary
``run_block`` and holds a baton while it runs: exactly one agent runs at a time, and
the baton passes only where an agent would block -- an ``mbarrier.try_wait.parity``
on a phase that has not completed, or a ``test.wait`` polling loop that sees no
change -- to the next agent, round-robin, that can go on.  The interleaving is thus
deterministic, and the rest of the interpreter needs no locks.  When every unfinished
agent is blocked the kernel is deadlocked: the run reports the first blocked wait and
unwinds every agent thread.  Lockstep code (no marked ``scf.if``) starts no thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation, Region

from tilepipe.semantics.nvvm.execution import WARP, BlockExecution, NvvmExecutionError, handles
from tilepipe.semantics.nvvm.wgmma_state import warpgroups

ROLES_ATTR = "tilepipe.warp_roles"
SM_REGISTERS = 65536  # the register file of an SM (sm_90), 32-bit registers


class _Abort(BaseException):
    """Unwinds an agent whose run was given up (another agent failed, or deadlock).
    Not an ``Exception``: no handler's ``except Exception`` may swallow it."""


@dataclass
class _Agent:
    name: str
    region: Region
    mask: np.ndarray
    # Blocked: the op it waits at, the deadlock message for it, and whether it can go on.
    blocked_at: Operation | None = None
    message: str = ""
    ready: Callable[[], bool] | None = None
    done: bool = False
    results: list | None = None
    thread: threading.Thread | None = None

    def runnable(self) -> bool:
        return not self.done and (self.ready is None or self.ready())


class RoleScheduler:
    """The agents of one role ``scf.if`` and their baton (``turn``: the agent that
    runs; None once the run is over, which hands control back to the caller)."""

    def __init__(self, ex: BlockExecution, agents: list[_Agent]):
        self.ex = ex
        self.agents = agents
        self.cv = threading.Condition()
        self.turn: _Agent | None = None
        self.aborting = False
        self.failure: BaseException | None = None

    def run(self) -> list[list]:
        for agent in self.agents:
            agent.thread = threading.Thread(
                target=self._agent_main, args=(agent,), name=f"warp role {agent.name}", daemon=True
            )
        with self.cv:
            self.turn = self.agents[0]
        for agent in self.agents:
            agent.thread.start()
        with self.cv:
            self.cv.wait_for(lambda: self.turn is None)
        for agent in self.agents:
            agent.thread.join()
        if self.failure is not None:
            raise self.failure
        return [agent.results for agent in self.agents]

    def _agent_main(self, agent: _Agent) -> None:
        try:
            self._wait_for_turn(agent)
            agent.results = self.ex.run_block(agent.region.block, agent.mask)
        except _Abort:
            return
        except BaseException as error:  # noqa: BLE001 -- handed to the caller's thread
            with self.cv:
                agent.done = True
                self._end(error)
            return
        with self.cv:
            agent.done = True
            following = self._next(agent)
            if following is not None:
                self._pass(following)
            elif all(a.done for a in self.agents):
                self.turn = None
                self.cv.notify_all()
            else:
                self._end(self._deadlock())

    def _wait_for_turn(self, agent: _Agent) -> None:
        with self.cv:
            self.cv.wait_for(lambda: self.turn is agent or self.aborting)
            if self.aborting:
                raise _Abort

    def _next(self, current: _Agent) -> _Agent | None:
        """The next agent after ``current``, round-robin, that can go on."""
        start = self.agents.index(current)
        for step in range(1, len(self.agents) + 1):
            candidate = self.agents[(start + step) % len(self.agents)]
            if candidate.runnable():
                return candidate
        return None

    def _pass(self, agent: _Agent) -> None:
        self.turn = agent
        self.cv.notify_all()

    def _deadlock(self) -> NvvmExecutionError:
        blocked = next(a for a in self.agents if not a.done)
        return NvvmExecutionError(blocked.blocked_at, blocked.message)

    def _end(self, failure: BaseException) -> None:
        """Give the run up (call with the lock held): every waiting agent unwinds."""
        self.failure = failure
        self.aborting = True
        self.turn = None
        self.cv.notify_all()

    # ------------------------------------------------------------------ blocking

    def block(self, op: Operation, message: str, ready: Callable[[], bool]) -> None:
        """The running agent cannot go on at ``op`` until ``ready()``: let the others
        run meanwhile (``message``: the report if none ever makes it ready)."""
        agent = self.turn
        assert agent is not None and threading.current_thread() is agent.thread
        agent.blocked_at, agent.message, agent.ready = op, message, ready
        active = self.ex.active  # the others' ops set it meanwhile
        with self.cv:
            following = self._next(agent)
            if following is None:
                self._end(self._deadlock())
                raise _Abort
            if following is not agent:
                self._pass(following)
                self.cv.wait_for(lambda: self.turn is agent or self.aborting)
                if self.aborting:
                    raise _Abort
        agent.blocked_at, agent.ready = None, None
        self.ex.active = active

    def block_until_progress(self, op: Operation, message: str) -> None:
        """A polling loop saw no change: block until some mbarrier changes."""
        seen = self._mbarrier_states()
        self.block(op, message, lambda: self._mbarrier_states() != seen)

    def _mbarrier_states(self) -> tuple:
        return tuple(
            (address, s.phase, s.pending, s.tx_bytes) for address, s in self.ex.mbarriers.items()
        )


def run_roles(
    ex: BlockExecution, op: Operation, branches: Sequence[tuple[Region, np.ndarray]]
) -> list[list]:
    """Run the branches (region, its threads) of the role ``scf.if`` ``op``, each an
    agent, concurrently; return what each yielded."""
    if ex.roles is not None:
        raise NvvmExecutionError(op, f"is a warp-role split ({ROLES_ATTR}) inside another")
    nested = next(
        (inner for region in op.regions for inner in region.walk() if ROLES_ATTR in inner.attributes),
        None,
    )
    if nested is not None:
        raise NvvmExecutionError(nested, f"is a warp-role split ({ROLES_ATTR}) inside another")
    _check_split(op, branches)
    if len(branches) < 2:  # one role has no threads here: plain lockstep
        return [ex.run_block(region.block, taken) for region, taken in branches]
    names = {id(op.regions[0]): "producer", id(op.regions[1]): "consumer"}
    agents = [_Agent(names[id(region)], region, taken) for region, taken in branches]
    ex.roles = RoleScheduler(ex, agents)
    try:
        return ex.roles.run()
    finally:
        ex.roles = None


def _check_split(op: Operation, branches: Sequence[tuple[Region, np.ndarray]]) -> None:
    """The condition splits the threads as the attribute states: P producers (then)
    and C consumers (else)."""
    values = op.attributes[ROLES_ATTR]
    counts = tuple(values.get_values()) if hasattr(values, "get_values") else ()
    if len(counts) != 2:
        raise NvvmExecutionError(op, f"needs {ROLES_ATTR} = array<i64: consumers, producers>")
    consumers, producers = counts
    taken = {id(region): int(mask.sum()) for region, mask in branches}
    got = (taken.get(id(op.regions[1]), 0), taken.get(id(op.regions[0]), 0))
    if got != (consumers, producers):
        raise NvvmExecutionError(
            op,
            f"splits its threads into {got[0]} consumers and {got[1]} producers, not the "
            f"{consumers} and {producers} that {ROLES_ATTR} states",
        )


# ---------------------------------------------------------------------- role ops


@handles("nvvm.setmaxregister")
def _setmaxregister(ex, op, mask):
    """``setmaxnreg.{inc,dec}.sync.aligned.u32``: executed by whole warpgroups, it
    sets their threads' register budget; the block's budgets must fit the SM."""
    warpgroups(ex, op, mask)  # whole ones only
    registers = op.registers
    current = ex.register_budget[mask]
    known = current[current > 0]
    if op.increases and (known > registers).any():
        raise NvvmExecutionError(
            op, f"increases to {registers} registers threads that hold {int(known.max())}"
        )
    if not op.increases and (known < registers).any():
        raise NvvmExecutionError(
            op, f"decreases to {registers} registers threads that hold {int(known.min())}"
        )
    ex.register_budget[mask] = registers
    total = int(ex.register_budget.sum())
    if total > SM_REGISTERS:
        raise NvvmExecutionError(
            op,
            f"gives the block's threads {total} registers in all, more than the "
            f"{SM_REGISTERS} of an SM's register file",
        )


@handles("nvvm.elect.sync")
def _elect_sync(ex, op, mask):
    """True in the lowest active lane of each warp that executes it."""
    active = np.flatnonzero(mask)
    _, first = np.unique(active // WARP, return_index=True)
    elected = np.zeros(ex.threads, bool)
    elected[active[first]] = True
    return [elected]
