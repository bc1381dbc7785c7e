// lower-to-nvvm of a ring consumer loop that warp-specialize marked
// pipeline.wgmma_in_flight (sm_90a): the gemm's accumulators are loaded into wgmma's
// register struct once, before the loop, and carried through it as iteration
// arguments (PTX: no instruction may touch them before the wait_group that retires
// their wgmma); each iteration issues its wgmmas, commits them and waits with one
// group left in flight -- the previous iteration's is retired, and only then is its
// slot released; after the loop, wait_group 0 and the accumulators go back to the
// fragment's registers.  The per-thread interpreter checks all of it
// (test_wgmma_in_flight.py).

// RUN: tile-opt %s -p pipeline-validate,warp-specialize,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync,lower-to-nvvm | filecheck %s

// CHECK-LABEL: gpu.func @gemm
// CHECK:         nvvm.setmaxregister increase 240
// CHECK-NOT:     nvvm.wgmma
// CHECK:         %[[INIT:[0-9]+]] = llvm.insertvalue %{{.*}}[31]
// CHECK-NOT:     nvvm.wgmma
// CHECK:         {{^ +}}%[[ACC:[0-9]+]], %{{.*}} = scf.for %ko = %c0 to %n step %c1 iter_args(%[[CARRIED:[0-9]+]] = %[[INIT]],
// CHECK-NOT:       %C_f
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK-NOT:       %C_f
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           "nvvm.wgmma.mma_async"(%[[CARRIED]],
// CHECK-COUNT-2:   "nvvm.wgmma.mma_async"
// CHECK:           %[[LAST:[0-9]+]] = "nvvm.wgmma.mma_async"
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT:       %C_f
// CHECK:           scf.if
// CHECK:             "nvvm.mbarrier.arrive"
// CHECK:           scf.yield %[[LAST]],
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    llvm.extractvalue %[[ACC]][0]

func.func @gemm(%A: memref<64x320xf16>, %B: memref<320x64xf16>, %C: memref<64x64xf32>, %n: index)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbk = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %n step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %cbk : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<64x320xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<320x64xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

