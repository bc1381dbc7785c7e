// inject-software-pipeline{report-svg=FILE}: the modulo schedule as a space-time
// diagram (a column per time slot, a row per iteration, max stage + 2 iterations).

// The example GEMM at num_stages = 3: the copies in stage 0, the gemm in stage 2, three
// versions of each staged buffer (iteration i writes version i mod 3).
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline{report-svg="%t.svg"}' -o /dev/null
// RUN: filecheck %s --check-prefix=GEMM < %t.svg

// GEMM:      <svg xmlns="http://www.w3.org/2000/svg"
// GEMM-NEXT: pipeline.for at {{.*}}gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: depth 3, max stage 2, stage = [0, 0, 2] order = [0, 1, 2]</text>
// GEMM:      >slot 0</text>
// GEMM-NEXT: >prologue</text>
// GEMM:      >slot 2</text>
// GEMM-NEXT: >steady state</text>
// GEMM:      >slot 4</text>
// GEMM-NEXT: >epilogue</text>
// GEMM:      >slot 5</text>
// GEMM-NEXT: >iteration 0</text>
// GEMM-NEXT: <title>tile.copy of iteration 0: stage 0, order 0, slot 0</title>
// GEMM-NEXT: >0: copy → %A_s v0</text>
// GEMM-NEXT: <title>tile.copy of iteration 0: stage 0, order 1, slot 0</title>
// GEMM-NEXT: >1: copy → %B_s v0</text>
// GEMM-NEXT: <title>tile.gemm of iteration 0: stage 2, order 2, slot 2</title>
// GEMM-NEXT: >2: gemm → %C_f</text>
// GEMM:      >iteration 3</text>
// GEMM-NEXT: <title>tile.copy of iteration 3: stage 0, order 0, slot 3</title>
// GEMM-NEXT: >0: copy → %A_s v0</text>
// GEMM:      <title>tile.gemm of iteration 3: stage 2, order 2, slot 5</title>
// GEMM-NOT:  iteration 4
// GEMM:      >%A_s: 3 version(s), written in stage 0, read until stage 2</text>
// GEMM-NEXT: >%B_s: 3 version(s), written in stage 0, read until stage 2</text>
// GEMM-NEXT: </svg>

// At num_stages = 1 the plan rotates (the gemm first, in stage 1) and the versions are
// tightened to one: no version names, no versions legend.
// RUN: sed 's/num_stages = 3/num_stages = 1/' %examples/gemm.mlir | tile-opt -p 'pipeline-planning,inject-software-pipeline{report-svg="%t.one.svg"}' -o /dev/null
// RUN: filecheck %s --check-prefix=ONE < %t.one.svg

// ONE:      depth 1, max stage 1, stage = [0, 0, 1] order = [1, 2, 0]</text>
// ONE:      >iteration 0</text>
// ONE-NEXT: <title>tile.copy of iteration 0: stage 0, order 1, slot 0</title>
// ONE-NEXT: >1: copy → %A_s</text>
// ONE:      >iteration 2</text>
// ONE-NOT:  version(s)
// ONE:      </svg>

// On sm_90 tma-copy adds an mbarrier array the loop arrives on: it becomes a ring of
// depth slots, and a statement touching it names the ring slot, i mod depth.
// RUN: sed 's/"sm_80"/"sm_90"/' %examples/gemm.mlir | tile-opt -p 'pipeline-planning,tma-copy,inject-software-pipeline{report-svg="%t.tma.svg"}' -o /dev/null
// RUN: filecheck %s --check-prefix=RING < %t.tma.svg

// RING:      depth 3, max stage 2, stage = [0, 0, 0, 2, 2] order = [0, 1, 2, 3, 4]</text>
// RING:      >iteration 1</text>
// RING-NEXT: <title>pipeline.bulk_copy of iteration 1: stage 0, order 0, slot 1</title>
// RING-NEXT: >0: bulk_copy → %A_s v1, %tma_bars v1</text>
// RING:      <title>pipeline.mbarrier_wait_parity of iteration 1: stage 2, order 3, slot 3</title>
// RING-NEXT: >3: mbarrier_wait_parity → %tma_bars v1</text>
// RING:      >%tma_bars: 1 mbarrier(s) -&gt; 3 (a ring of depth 3)</text>
// RING-NEXT: </svg>

// A module without pipelined loops still gets a picture, saying so.
// RUN: tile-opt %s -p 'inject-software-pipeline{report-svg="%t.none.svg"}' -o /dev/null
// RUN: filecheck %s --check-prefix=NONE < %t.none.svg

// NONE:      <svg
// NONE-NEXT: >no pipelined loops</text>
// NONE-NEXT: </svg>
func.func @no_loop() {
  func.return
}
