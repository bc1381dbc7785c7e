// lower-to-nvvm of a warp-specialized kernel (sm_90a): the block grows by the
// producer warpgroup (256 consumers + 128 producers = 384 threads), the roles split
// on tid >= 256 in an scf.if marked tilepipe.warp_roles, each role first sets its
// register budget (setmaxnreg), the producer's tensor copies and its arrival with the
// bytes are issued by the elected lane of its first warp, which alone runs the
// producer loop, and every consumer thread
// arrives on a slot's empty mbarrier.  Upstream MLIR reads the result back and
// ptxas accepts it (test_nvvm_warp_specialize.py).

// RUN: tile-opt %examples/gemm_sm90a.mlir -p pipeline-validate,warp-specialize,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync,lower-to-nvvm | filecheck %s

// CHECK-LABEL: gpu.func @gemm
// CHECK-SAME:    known_block_size = array<i32: 384, 1, 1>
// CHECK:         nvvm.barrier0
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[C:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %[[C]] : index
// CHECK-NEXT:    scf.if %[[PRODUCER]] {
// CHECK-NEXT:      nvvm.setmaxregister decrease 24
// The leader is elected once, before the loop: lane elect.sync of warp 256 / 32.
// CHECK-NEXT:      %[[PTID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:      %[[W:.*]] = arith.constant 32 : index
// CHECK-NEXT:      %[[WARP:.*]] = arith.divui %[[PTID]], %[[W]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[IS_FIRST:.*]] = arith.cmpi eq, %[[WARP]], %[[FIRST]] : index
// CHECK-NEXT:      %[[ELECTED:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:      %[[LEADER:.*]] = arith.andi %[[IS_FIRST]], %[[ELECTED]] {tilepipe.role_leader} : i1
// The leader alone runs the producer loop; the other producer threads leave.
// CHECK-NEXT:      scf.if %[[LEADER]] {
// CHECK:             scf.for
// CHECK:               nvvm.mbarrier.try_wait.parity
// CHECK-NOT:           nvvm.elect.sync
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:               "nvvm.mbarrier.arrive.expect_tx"
// CHECK:         } else {
// CHECK-NEXT:      nvvm.setmaxregister increase 240
// The consumers keep each gemm's wgmmas in flight for an iteration (the
// accumulators carried through the loop, wgmma-in-flight.mlir): every consumer
// thread arrives on the previous slot's empty mbarrier, from the second iteration on.
// CHECK:           scf.for {{.*}} iter_args
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             "nvvm.wgmma.mma_async"
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             scf.if
// CHECK:               "nvvm.mbarrier.arrive"(%{{.*}}) : (!llvm.ptr<3>) -> i64
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         }{{ ?}}{tilepipe.warp_roles = array<i64: 256, 128>}
// CHECK-NOT:     nvvm.barrier0
