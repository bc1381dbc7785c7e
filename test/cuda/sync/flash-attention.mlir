// Flash attention's cp.async waits (docs/sync.md, "How deep a wait is").  Planning
// puts each gemm of iteration j - num_stages before the copy of iteration j into the
// slot it read, so the steady state commits two groups per iteration (K after the
// first gemm, V after the second).  The wait before the V copy lands what the next
// iteration's gemms read with num_stages - 1 groups still in flight: the prologue
// commits K and V of an iteration as one group, so only num_stages - 1 groups follow
// the first group the loop reads on the path into the loop (more follow in later
// iterations).  Before the loop the same count lands Q with the first K/V block.
// After the loop the waits count down at the epilogue's barriers, each as weak as
// the epilogue gemms after it allow, the last one 0.  (The steady-state wait used to
// be 0, which left no K/V copy in flight across an iteration.)

// RUN: tile-opt %examples/flash_attention.mlir -p %{cuda:scheduled} > %t.2
// RUN: filecheck %s --check-prefixes=CHECK,D2 < %t.2
// RUN: grep -o "wait_group [0-9]*" %t.2 | cut -d" " -f2 | paste -sd" " | filecheck %s --check-prefix=W2 --match-full-lines
// RUN: sed 's/num_stages = 2/num_stages = 3/' %examples/flash_attention.mlir | tile-opt - -p %{cuda:scheduled} > %t.3
// RUN: filecheck %s --check-prefixes=CHECK,D3 < %t.3
// RUN: grep -o "wait_group [0-9]*" %t.3 | cut -d" " -f2 | paste -sd" " | filecheck %s --check-prefix=W3 --match-full-lines
// RUN: sed 's/num_stages = 2/num_stages = 4/' %examples/flash_attention.mlir | tile-opt - -p %{cuda:scheduled} > %t.4
// RUN: filecheck %s --check-prefixes=CHECK,D4 < %t.4
// RUN: grep -o "wait_group [0-9]*" %t.4 | cut -d" " -f2 | paste -sd" " | filecheck %s --check-prefix=W4 --match-full-lines

// Where the steady-state wait sits: right before the V copy, after the gemm that
// read the slot it overwrites.
// CHECK-LABEL: func.func @flash_attention
// CHECK:         scf.for
// CHECK:           tile.gemm<64x64x64> %P_s, %V_s
// D2-NEXT:         pipeline.wait_group 1
// D3-NEXT:         pipeline.wait_group 2
// D4-NEXT:         pipeline.wait_group 3
// CHECK-NEXT:      pipeline.barrier
// CHECK-NEXT:      pipeline.async_copy<64x64> %V
// CHECK-NEXT:      pipeline.commit_group
// CHECK-NEXT:    }

// Every wait's count in program order: before the loop, in the loop, the epilogue's.
// W2: 1 1 1 0
// W3: 2 2 1 0
// W4: 3 3 3 1 0
