"""Warp roles (sm_90a warp specialization) in the NVVM interpreter: the branches of an
``scf.if`` marked ``tilepipe.warp_roles`` run as concurrent agents, a producer and its
consumers, that hand over at blocking mbarrier waits; the race detector orders the
consumers' reads of a ring slot before the producer's next write of it through the
empty mbarrier, and only through it.  A ring of depth 1-3 filled by stores or by bulk
copies (one elected thread) is race free and right at trip counts 0, 1, 2 and 5;
deleting or moving any of its waits and arrivals is a race, a deadlock or a wrong
result.  ``setmaxregister`` and ``elect.sync`` are checked as the PTX ISA states.
``TILEPIPE_WARP_ROLES=long`` runs more depths, trip counts and role sizes."""

import threading
from string import Template

import numpy as np
import pytest

from pipeline_helpers import parse
from sweeps import long_mode
from tilepipe.semantics.nvvm import roles
from tilepipe.semantics.nvvm.execution import HANDLERS
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel
from tilepipe.semantics.nvvm.races import SharedRaceDetector

LONG = long_mode("TILEPIPE_WARP_ROLES")

# A ring of ${D} slots of one ${P}-element row each: the producer fills slot t % D with
# row t of %in once the consumers freed it (empty[s], count C), the consumers wait for
# it (full[s]), read the element of another producer thread, arrive on empty[s] and sum.
# Lines tagged ``// MUT:name`` are what the mutations delete (or, early_arrive, add).
RING = Template("""
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ring(%in: memref<${TMAX}x${P}xf32>, %out: memref<${C}xf32>, %n: index) kernel attributes {known_block_size = array<i32: ${THREADS}, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, tilepipe.dynamic_shared_memory = ${SHARED} : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %nd = arith.constant ${D} : index
      %nc = arith.constant ${C} : index
      %np = arith.constant ${P} : index
      %row_bytes = arith.constant ${ROWBYTES} : index
      %ring_offset = arith.constant ${RINGOFFSET} : index
      %ticks = arith.constant 1000000 : i32
      %full_count = arith.constant ${FULLCOUNT} : i32
      %empty_count = arith.constant ${C} : i32
      %one_i32 = arith.constant 1 : i32
      %row_i32 = arith.constant ${ROWBYTES} : i32
      %zero = arith.constant 0.000000e+00 : f32
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sh = memref.memory_space_cast %raw : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, 3>
      %bars = memref.view %sh[%c0][] : memref<?xi8, 3> to memref<${BARS}xi64, 3>
      %ring = memref.view %sh[%ring_offset][] : memref<?xi8, 3> to memref<${D}x${P}xf32, 3>
      %bar_base = memref.extract_aligned_pointer_as_index %bars : memref<${BARS}xi64, 3> -> index
      %ring_base = memref.extract_aligned_pointer_as_index %ring : memref<${D}x${P}xf32, 3> -> index
      %in_base = memref.extract_aligned_pointer_as_index %in : memref<${TMAX}x${P}xf32> -> index
      %tid = gpu.thread_id  x
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        scf.for %s = %c0 to %nd step %c1 {
          %fo = arith.muli %s, %c8 : index
          %fa = arith.addi %bar_base, %fo : index
          %fi = arith.index_cast %fa : index to i64
          %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %fp, %full_count : !llvm.ptr<3>, i32
          %es = arith.addi %s, %nd : index
          %eo = arith.muli %es, %c8 : index
          %ea = arith.addi %bar_base, %eo : index
          %ei = arith.index_cast %ea : index to i64
          %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %ep, %empty_count : !llvm.ptr<3>, i32
        }
      }
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.barrier0
      %is_producer = arith.cmpi uge, %tid, %nc : index
      scf.if %is_producer {
        ${PRODUCER_REGS}
        %j = arith.subi %tid, %nc : index
        scf.for %t = %c0 to %n step %c1 {
          %s = arith.remui %t, %nd : index
          %round = arith.divui %t, %nd : index
          %par = arith.remui %round, %c2 : index
          %par_i32 = arith.index_cast %par : index to i32
          %pe = arith.xori %par_i32, %one_i32 : i32
          %fo = arith.muli %s, %c8 : index
          %fa = arith.addi %bar_base, %fo : index
          %fi = arith.index_cast %fa : index to i64
          %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
          %es = arith.addi %s, %nd : index
          %eo = arith.muli %es, %c8 : index
          %ea = arith.addi %bar_base, %eo : index
          %ei = arith.index_cast %ea : index to i64
          %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
          nvvm.mbarrier.try_wait.parity %ep, %pe, %ticks : !llvm.ptr<3>, i32, i32 // MUT:empty_wait
          ${PRODUCE}
        }
      } else {
        ${CONSUMER_REGS}
        %k0 = arith.addi %tid, %c1 : index
        %k = arith.remui %k0, %np : index
        %acc = scf.for %t = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
          %s = arith.remui %t, %nd : index
          %round = arith.divui %t, %nd : index
          %par = arith.remui %round, %c2 : index
          %par_i32 = arith.index_cast %par : index to i32
          %fo = arith.muli %s, %c8 : index
          %fa = arith.addi %bar_base, %fo : index
          %fi = arith.index_cast %fa : index to i64
          %fp = llvm.inttoptr %fi : i64 to !llvm.ptr<3>
          %es = arith.addi %s, %nd : index
          %eo = arith.muli %es, %c8 : index
          %ea = arith.addi %bar_base, %eo : index
          %ei = arith.index_cast %ea : index to i64
          %ep = llvm.inttoptr %ei : i64 to !llvm.ptr<3>
          nvvm.mbarrier.try_wait.parity %fp, %par_i32, %ticks : !llvm.ptr<3>, i32, i32 // MUT:full_wait
          %tok0 = nvvm.mbarrier.arrive %ep : !llvm.ptr<3> -> i64 // MUT:early_arrive
          %v = memref.load %ring[%s, %k] : memref<${D}x${P}xf32, 3>
${FENCE}
          %tok = nvvm.mbarrier.arrive %ep : !llvm.ptr<3> -> i64 // MUT:empty_arrive
          %a2 = arith.addf %a, %v : f32
          scf.yield %a2 : f32
        }
          // CONSUMER_EXTRA
        memref.store %acc, %out[%tid] : memref<${C}xf32>
      } {tilepipe.warp_roles = array<i64: ${C}, ${P}>}
      gpu.return
    }
  }
}
""")

# The producer's body: every producer thread stores its element and arrives ...
STORE = """
          %v = memref.load %in[%t, %j] : memref<${TMAX}x${P}xf32>
          memref.store %v, %ring[%s, %j] : memref<${D}x${P}xf32, 3>
          %tok = nvvm.mbarrier.arrive %fp : !llvm.ptr<3> -> i64 // MUT:full_arrive"""
# ... or the elected lane of its first warp copies the row (a bulk copy, async proxy).
BULK = """
          %e = nvvm.elect.sync -> i1
          %w0 = arith.cmpi ult, %j, %c32 : index
          %lead = arith.andi %e, %w0 : i1
          scf.if %lead {
            nvvm.mbarrier.arrive.expect_tx %fp, %row_i32 : !llvm.ptr<3>, i32 // MUT:full_arrive
            %so = arith.muli %s, %row_bytes : index
            %sa = arith.addi %ring_base, %so : index
            %si = arith.index_cast %sa : index to i64
            %sp = llvm.inttoptr %si : i64 to !llvm.ptr<3>
            %go = arith.muli %t, %row_bytes : index
            %ga = arith.addi %in_base, %go : index
            %gi = arith.index_cast %ga : index to i64
            %gp = llvm.inttoptr %gi : i64 to !llvm.ptr<1>
            nvvm.cp.async.bulk.shared.cluster.global %sp, %gp, %fp, %row_i32 : !llvm.ptr<3>, <1>
          }"""
# The consumers read the slot through the generic proxy; the producer's next bulk copy
# writes it through the async proxy: ordered only by their fence before the arrival.
FENCE = """
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}"""

TRIPS_MAX = 8
MUTATIONS = ("empty_wait", "full_wait", "empty_arrive", "full_arrive", "early_arrive")


def ring(
    consumers: int = 256, producers: int = 128, depth: int = 2, bulk: bool = False,
    fence: bool | None = None, mutation: str | None = None, consumer_extra: str = "",
    producer_regs: str = "nvvm.setmaxregister decrease 40",
    consumer_regs: str = "nvvm.setmaxregister increase 232",
) -> str:
    """The ring kernel's text; ``mutation`` deletes the ``// MUT:`` line of that name
    (early_arrive: moves the consumers' arrival before their read)."""
    fence = bulk if fence is None else fence
    lines = []
    body = RING.safe_substitute(
        PRODUCE=BULK if bulk else STORE, FENCE=FENCE if fence else "",
        PRODUCER_REGS=producer_regs, CONSUMER_REGS=consumer_regs,
    ).replace("          // CONSUMER_EXTRA", consumer_extra)
    for line in body.splitlines():
        code, _, tag = line.partition(" // MUT:")
        if tag == "early_arrive":
            keep = mutation == "early_arrive"
        else:
            keep = tag != mutation and not (mutation == "early_arrive" and tag == "empty_arrive")
        if not keep:
            continue
        lines.append(code)
    ring_offset = 128 * ((16 * depth + 127) // 128)  # the mbarriers, then the ring
    return Template("\n".join(lines)).substitute(
        THREADS=consumers + producers, SHARED=ring_offset + depth * producers * 4,
        RINGOFFSET=ring_offset, ROWBYTES=producers * 4, BARS=2 * depth,
        FULLCOUNT=1 if bulk else producers, TMAX=TRIPS_MAX,
        C=consumers, P=producers, D=depth,
    )


def run_ring(text: str, trips: int, consumers: int = 256, producers: int = 128, **options):
    """Run the ring kernel over ``trips`` rows; return the run and the right sums."""
    rows = np.random.default_rng(trips).uniform(-1, 1, (TRIPS_MAX, producers)).astype(np.float32)
    run = run_nvvm_kernel(
        parse(text), [rows, np.zeros(consumers, np.float32), np.int64(trips)],
        check_races=True, **options,
    )
    expected = np.zeros(consumers, np.float32)
    for t in range(trips):
        expected = expected + rows[t][(np.arange(consumers) + 1) % producers]
    return run, expected


@pytest.fixture
def no_thread_left():
    """Every agent thread is gone once the run is over, however it ended."""
    before = threading.active_count()
    yield
    assert threading.active_count() == before


CASES = [
    (bulk, depth, trips)
    for bulk in (False, True)
    for depth in ((1, 2, 3, 4) if LONG else (1, 2, 3))
    for trips in ((0, 1, 2, 3, 5, 8) if LONG else (0, 1, 2, 5))
]


@pytest.mark.parametrize("bulk, depth, trips", CASES)
def test_ring_is_race_free_and_right(bulk, depth, trips, no_thread_left):
    run, expected = run_ring(ring(depth=depth, bulk=bulk), trips)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)


@pytest.mark.parametrize(
    "consumers, producers", [(128, 128), (256, 128)] + ([(384, 128), (128, 256)] if LONG else [])
)
def test_role_sizes(consumers, producers, no_thread_left):
    text = ring(consumers, producers, depth=2, producer_regs="", consumer_regs="")
    run, expected = run_ring(text, 5, consumers, producers)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)


@pytest.mark.parametrize("bulk", [False, True])
@pytest.mark.parametrize("mutation", MUTATIONS)
def test_every_wait_and_arrival_is_needed(mutation, bulk, no_thread_left):
    """With more trips than slots, each deletion (or the early arrival) is caught."""
    try:
        run, expected = run_ring(ring(depth=2, bulk=bulk, mutation=mutation), 5,
                                 stop_at_first_race=True)
    except NvvmExecutionError as error:
        assert "deadlock" in str(error)
        return
    assert run.races or not np.array_equal(run.outputs[1], expected)


POLL = """
          %true = arith.constant true
          scf.while () : () -> () {
            %ok = nvvm.mbarrier.test.wait %fp, %par_i32 : !llvm.ptr<3>, i32 -> i1
            %again = arith.xori %ok, %true : i1
            scf.condition(%again)
          } do {
            scf.yield
          }"""


def test_consumers_may_poll_with_test_wait(no_thread_left):
    """A ``test.wait`` polling loop (sm_80's wait) hands over like a blocking wait."""
    text = ring(depth=2)
    full_wait = next(line for line in text.splitlines() if "try_wait.parity %fp" in line)
    run, expected = run_ring(text.replace(full_wait, POLL), 5)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)
    with pytest.raises(NvvmExecutionError, match="deadlock"):
        run_ring(ring(depth=2, mutation="full_arrive").replace(full_wait, POLL), 5)


def test_deadlock_names_the_blocked_wait(no_thread_left):
    """Consumers that never free a slot leave the producer waiting on empty."""
    with pytest.raises(NvvmExecutionError, match="try_wait.parity' op waits for a phase that can never complete \\(deadlock\\)"):
        run_ring(ring(depth=1, mutation="empty_arrive"), 2)


def test_a_release_orders_only_its_waiters(no_thread_left):
    """Consumers that skip the full wait read what the producer wrote without being
    ordered after it, though other threads' waits completed the phase."""
    run, _ = run_ring(ring(depth=3, mutation="full_wait"), 2)
    assert any("vs a write by thread" in race for race in run.races)


def test_generic_reads_before_an_async_write_need_a_fence(no_thread_left):
    run, expected = run_ring(ring(depth=1, bulk=True, fence=False), 3)
    assert any("through the async proxy" in race for race in run.races)
    np.testing.assert_array_equal(run.outputs[1], expected)


def test_epochs_renumbered_when_they_run_out(monkeypatch, no_thread_left):
    monkeypatch.setattr(SharedRaceDetector, "EPOCH_LIMIT", 3)
    run, expected = run_ring(ring(depth=2), 8)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)
    run, _ = run_ring(ring(depth=2, mutation="early_arrive"), 8)
    assert run.races


def test_block_barrier_inside_a_role(no_thread_left):
    text = ring(consumer_extra="          nvvm.barrier0")
    with pytest.raises(NvvmExecutionError, match="not reached by all threads of the block"):
        run_ring(text, 2)


NAMED_BARRIER = """
          %bar_id = arith.constant 1 : i32
          %bar_count = arith.constant COUNT : i32
          nvvm.barrier id = %bar_id number_of_threads = %bar_count"""


def test_named_barrier_among_consumers(no_thread_left):
    run, expected = run_ring(ring(consumer_extra=NAMED_BARRIER.replace("COUNT", "256")), 3)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)
    with pytest.raises(NvvmExecutionError, match="wait forever"):
        run_ring(ring(consumer_extra=NAMED_BARRIER.replace("COUNT", "384")), 3)


def test_nested_roles_are_an_error(no_thread_left):
    text = ring(consumer_extra="""
          %inner = arith.cmpi ult, %tid, %c32 : index
          scf.if %inner {
          } {tilepipe.warp_roles = array<i64: 224, 32>}""")
    with pytest.raises(NvvmExecutionError, match="inside another"):
        run_ring(text, 1)


def test_split_must_match_the_attribute(no_thread_left):
    text = ring().replace("array<i64: 256, 128>", "array<i64: 128, 256>")
    with pytest.raises(NvvmExecutionError, match="not the 128 and 256"):
        run_ring(text, 1)


def test_work_limit_holds_in_roles(no_thread_left):
    with pytest.raises(NvvmExecutionError, match="exceeds the interpreter's limit"):
        run_ring(ring(), 5, max_steps=7)


def test_an_agents_race_stops_the_run(no_thread_left):
    run, _ = run_ring(ring(depth=2, mutation="full_wait"), 5, stop_at_first_race=True)
    assert len(run.races) == 1


# ---------------------------------------------------------------------- setmaxregister


def test_register_budgets_are_recorded(monkeypatch):
    budgets = []
    original = roles._setmaxregister

    def spy(ex, op, mask):
        original(ex, op, mask)
        budgets.append(ex.register_budget.copy())

    monkeypatch.setitem(HANDLERS, "nvvm.setmaxregister", spy)
    run_ring(ring(), 1)
    assert (budgets[-1] == [232] * 256 + [40] * 128).all()


def test_setmaxregister_by_part_of_a_warpgroup():
    text = ring(consumer_extra="""
          %first = arith.cmpi ult, %tid, %c32 : index
          scf.if %first {
            nvvm.setmaxregister increase 240
          }""")
    with pytest.raises(NvvmExecutionError, match="executed by part of a warpgroup"):
        run_ring(text, 1)


def test_register_budgets_over_the_register_file():
    # 256 x 240 + 128 x 40 = 66560 registers > 65536
    with pytest.raises(NvvmExecutionError, match="66560 registers in all, more than the 65536"):
        run_ring(ring(consumer_regs="nvvm.setmaxregister increase 240"), 1)


def test_setmaxregister_direction():
    text = ring(consumer_extra="\n          nvvm.setmaxregister increase 200")
    with pytest.raises(NvvmExecutionError, match="increases to 200 registers threads that hold 232"):
        run_ring(text, 1)


# ---------------------------------------------------------------------- elect.sync

ELECT = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @elect(%out: memref<96xi32>) kernel attributes {known_block_size = array<i32: 96, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      %c5 = arith.constant 5 : index
      %c40 = arith.constant 40 : index
      %tid = gpu.thread_id  x
      %lo = arith.cmpi uge, %tid, %c5 : index
      %hi = arith.cmpi ult, %tid, %c40 : index
      %far = arith.cmpi uge, %tid, %c40 : index
      %mid = arith.andi %lo, %hi : i1
      %active = arith.ori %mid, %far : i1
      scf.if %active {
        %e = nvvm.elect.sync -> i1
        %one = arith.constant 1 : i32
        %zero = arith.constant 0 : i32
        %v = arith.select %e, %one, %zero : i32
        memref.store %v, %out[%tid] : memref<96xi32>
      }
      gpu.return
    }
  }
}
"""


def test_elect_sync_elects_the_lowest_active_lane(monkeypatch):
    def no_threads(*args, **kwargs):
        raise AssertionError("a lockstep kernel started a thread")

    monkeypatch.setattr(roles.threading, "Thread", no_threads)
    out = run_nvvm_kernel(parse(ELECT), [np.full(96, -1, np.int32)]).outputs[0]
    assert np.flatnonzero(out == 1).tolist() == [5, 32, 64]
    assert (out[:5] == -1).all() and (out[out != -1].sum() == 3)
