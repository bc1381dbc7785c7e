"""The abstract kernel of the cycle-model comparison (docs/schedule_sim.md) at the scheduled level, in its five sync variants.

A producer copies tile ``j`` of ``n`` from global memory into slot ``j mod depth`` of
a shared ring; a consumer computes on slot ``i mod depth`` (a ``tile.add`` into a
register fragment).  The model's two lanes are the copy engine and the compute unit.
The variants are cost scenarios, not all race-free (``none`` is the chapter's
incorrect bound, and a release by thread 0 alone does not order the other threads'
reads).  The variants:

* ``none``: async copies, ``wait_group`` for RAW, nothing for WAR (racy: the bound);
* ``war``: + an mbarrier per slot that the consumer arrives on and the producer waits
  on before refilling the slot (the minimal release);
* ``war+raw``: + RAW through an mbarrier too: bulk copies complete a "full" barrier
  the consumer waits on (the TMA form), instead of the free ``wait_group``;
* ``+cb``: + a block barrier in the consumer chain, before every compute after the
  first (the redundant sync);
* ``sync-copy``: synchronous ``tile.copy`` followed by a block barrier.

Each variant is written with prologue / ``scf.for`` steady state / epilogue, as
``inject-software-pipeline`` lays loops out.  The model's latencies are the chapter's
abstract ones, per op whatever the tile's size: simulate with :data:`CHAPTER_TARGET`.
"""

from __future__ import annotations

from dataclasses import replace

from tilepipe.core.targets import CHAPTER_LATENCIES, SM_90

# sm_90's syncs (mbarriers, bulk copies) with the chapter's per-op latencies.
CHAPTER_TARGET = replace(SM_90, latencies=dict(CHAPTER_LATENCIES))

VARIANTS = ("none", "war", "war+raw", "+cb", "sync-copy")

_TILE = 16  # a 16x16 f32 tile


class _Writer:
    def __init__(self, depth: int):
        self.depth = depth
        self.lines: list[str] = []
        self.names = 0

    def fresh(self) -> str:
        self.names += 1
        return f"%v{self.names}"

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def const(self, value: int) -> str:
        return f"%c{value}"

    def index(self, expr: str | int, op: str, by: int) -> str | int:
        """``expr op by`` folded when ``expr`` is a constant."""
        if isinstance(expr, int):
            return {"addi": expr + by, "remsi": expr % by, "divsi": expr // by,
                    "subi": expr - by, "muli": expr * by}[op]
        name = self.fresh()
        self.emit(f"{name} = arith.{op} {expr}, {self.const(by)} : index")
        return name

    def value(self, expr: str | int) -> str:
        return self.const(expr) if isinstance(expr, int) else expr


def _types(iterations: int) -> dict[str, str]:
    return {
        "global": f"memref<{iterations * _TILE}x{_TILE}xf32>",
        "ring": "memref<{d}x%dx%dxf32, \"shared\">" % (_TILE, _TILE),
        "bars": "memref<{d}xi64, \"shared\">",
    }


def chapter_kernel(variant: str, depth: int, iterations: int = 16) -> str:
    """The scheduled-level text of the chapter's kernel (see the module doc)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
    if not 2 <= depth <= iterations:
        raise ValueError("depth must be between 2 and the iteration count")
    d, n = depth, iterations
    w = _Writer(d)
    types = {k: v.replace("{d}", str(d)) for k, v in _types(n).items()}
    tile = f"<{_TILE}x{_TILE}>"
    empty = variant != "none" and variant != "sync-copy"
    full = variant in ("war+raw", "+cb")

    def produce(j: str | int) -> None:
        slot = w.index(j, "remsi", d)
        row = w.index(j, "muli", _TILE)
        dst = f"%ring[{w.value(slot)}, %c0, %c0]"
        src = f"%G[{w.value(row)}, %c0]"
        ring_t = types["ring"]
        if variant == "sync-copy":
            w.emit(f"tile.copy{tile} {src} -> {dst} : {types['global']} -> {ring_t}")
            w.emit("pipeline.barrier")
            return
        if empty and not isinstance(j, int):
            # Phase u of a slot's "empty" barrier is the release before its use u (phase
            # 0 is the initial arrive), so use j/d waits for parity (j/d) mod 2.  The
            # prologue's fills are first uses: nothing to wait for.
            parity = w.index(w.index(j, "divsi", d), "remsi", 2)
            w.emit(f"pipeline.mbarrier_wait_parity %empty[{w.value(slot)}], "
                   f"{w.value(parity)} : {types['bars']}")
        if full:
            w.emit(f"pipeline.bulk_copy{tile} {src} -> {dst}, %full[{w.value(slot)}] : "
                   f"{types['global']} -> {ring_t}, {types['bars']}")
            w.emit(f"pipeline.mbarrier_arrive_expect_tx %full[{w.value(slot)}], "
                   f"bytes = {_TILE * _TILE * 4} : {types['bars']}")
            return
        token = w.fresh()
        w.emit(f"{token} = pipeline.async_copy{tile} {src} -> {dst} : "
               f"{types['global']} -> {ring_t}")
        w.emit(f"pipeline.commit_group [{token}]")

    def redundant_barrier() -> None:
        # At the head of each round, so it joins the consumer chain between two
        # computes without holding back the copy issued in the same round.
        if variant == "+cb":
            w.emit("pipeline.barrier")

    def consume(i: str | int, pending: int) -> None:
        slot = w.index(i, "remsi", d)
        if full:
            parity = w.index(w.index(i, "divsi", d), "remsi", 2)
            w.emit(f"pipeline.mbarrier_wait_parity %full[{w.value(slot)}], "
                   f"{w.value(parity)} : {types['bars']}")
        elif variant != "sync-copy":
            w.emit(f"pipeline.wait_group {pending}")
        src = f"%ring[{w.value(slot)}, %c0, %c0]"
        frag = f"memref<{_TILE}x{_TILE}xf32, \"fragment\">"
        w.emit(f"tile.add{tile} {src}, %acc -> %acc : {types['ring']}, {frag} -> {frag}")
        if empty:
            w.emit(f"pipeline.mbarrier_arrive %empty[{w.value(slot)}] : {types['bars']}")

    # The synchronous variant is not software-pipelined: each round copies its own
    # tile (into the ring, so the next copy can overlap this round's compute).
    ahead = 0 if variant == "sync-copy" else d - 1
    for j in range(ahead):
        produce(j)
    if empty or full:
        # Publishes thread 0's mbarrier_init to the other threads before their first
        # wait; placed after the prologue's copies so that it overlaps their flight.
        w.emit("pipeline.barrier")
    body_start = len(w.lines)
    w.lines.append("    scf.for %i = %c0 to %csteady step %c1 {")
    redundant_barrier()
    produce(w.index("%i", "addi", ahead) if ahead else "%i")
    consume("%i", ahead)
    w.lines.append("    }")
    for i in range(n - ahead, n):
        redundant_barrier()
        consume(i, n - 1 - i)
    body = w.lines[body_start:]
    loop_end = body.index("    }")
    body[1:loop_end] = ["  " + line for line in body[1:loop_end]]  # the loop's ops
    prologue = w.lines[:body_start]
    constants = sorted({0, 1, 2, d, *range(d), _TILE,
                        *(j * _TILE for j in range(n))})
    head = [
        f"func.func @chapter(%G: {types['global']})",
        '    attributes {tile.threads = 32 : i64, tile.target = "sm_90"} {',
        *(f"  %c{c} = arith.constant {c} : index" for c in constants),
        f"  %csteady = arith.constant {n - ahead} : index",
        "  %zero = arith.constant 0.000000e+00 : f32",
        f"  %ring = memref.alloc() : {types['ring']}",
        f"  %acc = memref.alloc() : memref<{_TILE}x{_TILE}xf32, \"fragment\">",
        f"  tile.fill{tile} %zero -> %acc : f32 -> memref<{_TILE}x{_TILE}xf32, \"fragment\">",
    ]
    for name, used in (("empty", empty), ("full", full)):
        if used:
            head.append(f"  %{name} = memref.alloc() : {types['bars']}")
            head.extend(
                f"  pipeline.mbarrier_init %{name}[%c{s}], arrivals = 1 : {types['bars']}"
                for s in range(d)
            )
    if empty:  # every slot starts released
        head.extend(f"  pipeline.mbarrier_arrive %empty[%c{s}] : {types['bars']}"
                    for s in range(d))
    # No store of the result: the model's total is the compute chain's.
    tail = [
        "  func.return",
        "}",
    ]
    return "\n".join([*head, *(line[2:] for line in prologue + body), *tail]) + "\n"
