"""bench/bench_sass.py finds the consumer (HGMMA) and producer (UTMALDG) loops of a
warp-specialized kernel's SASS, as nvdisasm lists it: an mbarrier ``try_wait`` that
fails jumps to a retry stub after the last ``EXIT`` and back, which is not a loop, and
an outer loop around a main loop does not stand for it."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
try:
    import bench_sass
finally:
    sys.path.pop(0)


def listing(lines: list[str]) -> str:
    """``lines`` (instructions, or labels ending in ':') as nvdisasm prints them."""
    out, address = [], 0
    for line in lines:
        if line.endswith(":"):
            out.append(line)
            continue
        out.append(f"        /*{address:04x}*/                   {line} ;")
        address += 16
    return "\n".join(out)


WARP_SPECIALIZED = listing([
    "S2R R0, SR_TID.X",
    "ISETP.GE.AND P0, PT, R0, 0x80, PT",
    "@!P0 BRA `(.L_x_4)",
    "USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xf0",
    ".L_x_1:",                              # consumer: the k loop
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR5], R2",
    "@!P0 BRA `(.L_x_6)",
    ".L_x_21:",
    "WARPGROUP.ARRIVE",
    "HGMMA.64x64x16.F32 R24, gdesc[UR8].tnspB, R24",
    "HGMMA.64x64x16.F32 R24, gdesc[UR12].tnspB, R24, gsb0",
    "WARPGROUP.DEPBAR.LE gsb0, 0x0",
    "SYNCS.ARRIVE.TRANS64.A1T0 RZ, [UR5+0x18], RZ",
    "UIADD3 UR4, UR4, 0x1, URZ",
    "IADD3 R3, R3, 0x1, RZ",
    "ISETP.NE.AND P0, PT, R3, 0x40, PT",
    "@P0 BRA `(.L_x_1)",
    "EXIT",
    ".L_x_4:",
    "USETMAXREG.DEALLOC.CTAPOOL 0x18",
    ".L_x_9:",                              # an outer loop around the producer's
    ".L_x_20:",                             # producer: the k loop
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR6+0x18], R2",
    "@!P1 BRA `(.L_x_8)",
    ".L_x_22:",
    "UTMALDG.2D [UR8], [UR6], desc[UR12]",
    "UTMALDG.2D [UR16], [UR6], desc[UR12]",
    "SYNCS.ARRIVE.TRANS64 RZ, [UR9], R2",
    "ISETP.NE.AND P0, PT, R3, 0x40, PT",
    "@P0 BRA `(.L_x_20)",
    "IADD3 R4, R4, 0x1, RZ",
    "@P2 BRA `(.L_x_9)",
    "EXIT",
    ".L_x_6:",                              # retry stubs: back into the loops
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR5], R2",
    "@!P0 BRA `(.L_x_6)",
    "BRA `(.L_x_21)",
    ".L_x_8:",
    "SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [UR6+0x18], R2",
    "@!P1 BRA `(.L_x_8)",
    "BRA `(.L_x_22)",
])


def test_the_consumer_and_producer_loops_are_found_and_counted_by_class():
    consumer, producer = bench_sass.role_loops(WARP_SPECIALIZED)
    assert consumer.role == "consumer" and producer.role == "producer"
    # The wait, its branch to the retry stub, fence, two HGMMA, commit wait, the
    # release, a uniform and two per-thread integer ops, the back-branch.
    assert dict(consumer.classes) == {
        "SYNCS": 2, "WARPGROUP": 2, "HGMMA": 2, "uniform": 1, "int/addr": 2, "other": 2,
    }
    assert consumer.total == 11 and consumer.besides == 9
    # The innermost loop that issues TMA, not the outer loop around it.
    assert dict(producer.classes) == {"SYNCS": 2, "UTMALDG": 2, "int/addr": 1, "other": 2}
    assert producer.total == 7 and producer.besides == 5


def test_a_kernel_without_its_retry_stubs_ending_it_still_has_no_false_loops():
    # Only the retry stubs branch back into the consumer loop: no loop holds HGMMA.
    stubs_only = listing([
        ".L_x_21:",
        "HGMMA.64x64x16.F32 R24, gdesc[UR8].tnspB, R24, gsb0",
        "EXIT",
        ".L_x_6:",
        "BRA `(.L_x_21)",
    ])
    assert bench_sass.role_loops(stubs_only) == []
