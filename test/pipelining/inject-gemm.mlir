// The chapter's GEMM (examples/gemm.mlir, 16 iterations) pipelined at num_stages 1-4:
// the version dimension, the prologue / steady state / epilogue shape and the slot
// arithmetic ((k - lb) / step) mod versions.
//
// RUN: sed 's/num_stages = 3/num_stages = 1/' %examples/gemm.mlir | tile-opt -p pipeline-planning,inject-software-pipeline | filecheck %s --check-prefix=NS1
// RUN: sed 's/num_stages = 3/num_stages = 2/' %examples/gemm.mlir | tile-opt -p pipeline-planning,inject-software-pipeline | filecheck %s --check-prefix=NS2
// RUN: tile-opt %examples/gemm.mlir -p pipeline-planning,inject-software-pipeline | filecheck %s --check-prefix=NS3
// RUN: sed 's/num_stages = 3/num_stages = 4/' %examples/gemm.mlir | tile-opt -p pipeline-planning,inject-software-pipeline | filecheck %s --check-prefix=NS4
// RUN: tile-opt %examples/gemm.mlir -p pipeline-planning,inject-software-pipeline | filecheck %s --check-prefix=NOLOOP

// NOLOOP-NOT: pipeline.

// num_stages = 1: stage [0,0,1], order [1,2,0]; tightening leaves one version, so no
// version dimension.  The gemm of iteration k-1 runs before the copies of iteration k.
// NS1:       %A_s = memref.alloc() : memref<128x64xf16, "shared">
// NS1-NEXT:  %B_s = memref.alloc() : memref<64x128xf16, "shared">
// NS1:       %[[K0:.*]] = arith.muli %c0, %c64
// NS1-NEXT:  tile.copy<128x64> %A[%m0, %[[K0]]] -> %A_s :
// NS1-NEXT:  tile.copy<64x128> %B[%[[K0]], %n0] -> %B_s :
// NS1-NEXT:  scf.for %[[K:.*]] = %c1 to %c16 step %c1 {
// NS1-NEXT:    tile.gemm<128x128x64> %A_s, %B_s -> %C_f
// NS1-NEXT:    %[[K1:.*]] = arith.muli %[[K]], %c64
// NS1-NEXT:    tile.copy<128x64> %A[%m0, %[[K1]]] -> %A_s :
// NS1-NEXT:    tile.copy<64x128> %B[%[[K1]], %n0] -> %B_s :
// NS1-NEXT:  }
// NS1-NEXT:  tile.gemm<128x128x64> %A_s, %B_s -> %C_f
// NS1-NEXT:  tile.copy<128x128> %C_f -> %C

// num_stages = 2: double buffering, one prologue slot, one epilogue slot.
// NS2:       %A_s = memref.alloc() : memref<2x128x64xf16, "shared">
// NS2-NEXT:  %B_s = memref.alloc() : memref<2x64x128xf16, "shared">
// NS2-NEXT:  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
// NS2:       tile.copy<128x64> %A[%m0, %{{.*}}] -> %A_s[%c0, %c0, %c0]
// NS2-NEXT:  tile.copy<64x128> %B[%{{.*}}, %n0] -> %B_s[%c0, %c0, %c0]
// NS2:       scf.for %[[K:.*]] = %c1 to %c16 step %c1 {
// NS2-NEXT:    %[[K1:.*]] = arith.muli %[[K]], %c64
// NS2-NEXT:    %[[SLOT:.*]] = arith.remsi %[[K]], %c2
// NS2-NEXT:    tile.copy<128x64> %A[%m0, %[[K1]]] -> %A_s[%[[SLOT]], %c0, %c0]
// NS2-NEXT:    tile.copy<64x128> %B[%[[K1]], %n0] -> %B_s[%[[SLOT]], %c0, %c0]
// NS2-NEXT:    %[[SKEW:.*]] = arith.subi %[[K]], %c1
// NS2-NEXT:    %[[SLOT1:.*]] = arith.remsi %[[SKEW]], %c2
// NS2-NEXT:    tile.gemm<128x128x64> %A_s[%[[SLOT1]], %c0, %c0], %B_s[%[[SLOT1]], %c0, %c0] -> %C_f
// NS2-NEXT:  }
// NS2-NEXT:  tile.gemm<128x128x64> %A_s[%c1, %c0, %c0], %B_s[%c1, %c0, %c0] -> %C_f
// NS2-NEXT:  tile.copy<128x128> %C_f -> %C

// num_stages = 3 (the example as written): three versions, two prologue slots.
// NS3:       %A_s = memref.alloc() : memref<3x128x64xf16, "shared">
// NS3-NEXT:  %B_s = memref.alloc() : memref<3x64x128xf16, "shared">
// NS3:       -> %A_s[%c0, %c0, %c0]
// NS3:       -> %B_s[%c0, %c0, %c0]
// NS3:       -> %A_s[%c1, %c0, %c0]
// NS3:       -> %B_s[%c1, %c0, %c0]
// NS3-NOT:   tile.gemm
// NS3:       scf.for %[[K:.*]] = %c2 to %c16 step %c1 {
// NS3:         %[[SLOT:.*]] = arith.remsi %[[K]], %c3
// NS3-NEXT:    tile.copy<128x64> {{.*}} -> %A_s[%[[SLOT]], %c0, %c0]
// NS3-NEXT:    tile.copy<64x128> {{.*}} -> %B_s[%[[SLOT]], %c0, %c0]
// NS3-NEXT:    %[[SKEW:.*]] = arith.subi %[[K]], %c2
// NS3-NEXT:    %[[SLOT2:.*]] = arith.remsi %[[SKEW]], %c3
// NS3-NEXT:    tile.gemm<128x128x64> %A_s[%[[SLOT2]], %c0, %c0], %B_s[%[[SLOT2]], %c0, %c0]
// NS3-NEXT:  }
// NS3-NEXT:  tile.gemm<128x128x64> %A_s[%c2, %c0, %c0], %B_s[%c2, %c0, %c0]
// NS3-NEXT:  tile.gemm<128x128x64> %A_s[%c0, %c0, %c0], %B_s[%c0, %c0, %c0]
// NS3-NEXT:  tile.copy<128x128> %C_f -> %C

// num_stages = 4: iterations 13, 14, 15 drain from slots 1, 2, 3.
// NS4:       memref.alloc() : memref<4x128x64xf16, "shared">
// NS4:       scf.for %{{.*}} = %c3 to %c16 step %c1 {
// NS4:       }
// NS4-NEXT:  tile.gemm<128x128x64> %A_s[%c1, %c0, %c0], %B_s[%c1, %c0, %c0]
// NS4-NEXT:  tile.gemm<128x128x64> %A_s[%c2, %c0, %c0], %B_s[%c2, %c0, %c0]
// NS4-NEXT:  tile.gemm<128x128x64> %A_s[%c3, %c0, %c0], %B_s[%c3, %c0, %c0]
