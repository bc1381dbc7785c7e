// The chapter's GEMM through the CUDA passes at num_stages 1-4.  At every depth >= 2
// the steady state needs exactly one barrier per iteration: the wait and barrier at
// the top of the iteration cover both the RAW on the slot this iteration's gemm reads
// and the WAR on the slot its copies overwrite.  The wait lets depth - 2 groups stay
// in flight (it sits before this iteration's own copies are committed); the epilogue
// waits for everything.  One version (num_stages = 1) needs two barriers.

// RUN: sed 's/num_stages = 3/num_stages = 1/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled} | filecheck %s --check-prefix=D1
// RUN: sed 's/num_stages = 3/num_stages = 2/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D2
// RUN: tile-opt %examples/gemm.mlir -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D3
// RUN: sed 's/num_stages = 3/num_stages = 4/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D4
// Idempotence: a second run finds every hazard covered.
// RUN: tile-opt %examples/gemm.mlir -p %{cuda:scheduled},thread-sync | filecheck %s --check-prefixes=CHECK,D3

// D1:          scf.for
// D1-NEXT:       pipeline.wait_group 0
// D1-NEXT:       pipeline.barrier
// D1-NEXT:       tile.gemm
// D1-NEXT:       %{{.*}} = arith.muli
// D1-NEXT:       pipeline.barrier
// D1-NEXT:       pipeline.async_copy<128x64>
// D1-NEXT:       pipeline.async_copy<64x128>
// D1-NEXT:       pipeline.commit_group
// D1-NEXT:     }

// CHECK-LABEL: func.func @gemm
// CHECK:         pipeline.commit_group
// CHECK:         scf.for
// CHECK:           %{{.*}} = arith.remsi
// D2-NEXT:         pipeline.wait_group 0
// D3-NEXT:         pipeline.wait_group 1
// D4-NEXT:         pipeline.wait_group 2
// CHECK-NEXT:      pipeline.barrier
// CHECK-NEXT:      pipeline.async_copy<128x64>
// CHECK-NEXT:      pipeline.async_copy<64x128>
// CHECK-NEXT:      pipeline.commit_group
// CHECK-NOT:       pipeline.barrier
// CHECK:           tile.gemm
// CHECK-NEXT:    }
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.gemm
// CHECK-NOT:     pipeline.barrier
// CHECK-NOT:     pipeline.wait_group
// CHECK:         func.return
