// warp-specialize (sm_90a, before planning): a pipelined loop whose copies can be
// tensor copies and whose gemms run on wgmma becomes a producer warpgroup filling a
// ring of num_stages slots and the kernel's warpgroups consuming it, handed over by
// full/empty mbarriers.  The loop's pipeline annotations go with it (the planner
// finds nothing to pipeline twice); sm_90 and tile.warp_specialize = false keep the
// pipeline.for; a loop that cannot take the path says why in a remark.

// RUN: tile-opt %examples/gemm_sm90a.mlir -p pipeline-validate,warp-specialize | filecheck %s
// RUN: tile-opt %examples/gemm_sm90a.mlir -p pipeline-validate,warp-specialize,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync | filecheck %s --check-prefix=SCHEDULED
// RUN: sed 's/"sm_90a"/"sm_90"/' %examples/gemm_sm90a.mlir | tile-opt - -p warp-specialize | filecheck %s --check-prefix=UNTOUCHED
// RUN: sed 's/tile.target = "sm_90a"/tile.target = "sm_90a", tile.warp_specialize = false/' %examples/gemm_sm90a.mlir | tile-opt - -p warp-specialize | filecheck %s --check-prefix=UNTOUCHED
// RUN: tile-opt %s --split-input-file --verify-diagnostics -p warp-specialize | filecheck %s --check-prefix=REMARK
// RUN: sed 's/num_stages = 4/num_stages = 1/' %examples/gemm_sm90a.mlir | tile-opt - -p pipeline-validate,warp-specialize | filecheck %s --check-prefix=DEPTH1
// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/flash_attention.mlir | tile-opt - -p pipeline-validate,warp-specialize | filecheck %s --check-prefix=ATTENTION

// The ring: 4 versions of each copied tile, 4 full and 4 empty mbarriers (one
// arrival with the bytes; 256, one per consumer thread), published to every thread
// before the roles split.
// CHECK-LABEL: func.func @gemm
// CHECK:         %A_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<4x128x64xf16, "shared">
// CHECK:         %B_s = memref.alloc() {arena.alignment = 128 : i64, arena.swizzle = 128 : i64} : memref<4x64x256xf16, "shared">
// CHECK:         %ring_full = memref.alloc() : memref<4xi64, "shared">
// CHECK-NEXT:    %ring_empty = memref.alloc() : memref<4xi64, "shared">
// CHECK-NEXT:    %[[S0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    pipeline.mbarrier_init %ring_full[%[[S0]]], arrivals = 1
// CHECK-NEXT:    pipeline.mbarrier_init %ring_empty[%[[S0]]], arrivals = 256
// CHECK-COUNT-3: pipeline.mbarrier_init %ring_empty
// CHECK-NEXT:    pipeline.fence_proxy_async
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
// The producer: wait until the slot is free (the previous lap's parity: the first
// lap passes at once), copy into it, arrive with the bytes.
// CHECK-NEXT:      scf.for %[[P:.*]] = %c0 to %c32 step %c1 {
// CHECK:             %[[LAP:.*]] = arith.divsi %[[P]], %[[DEPTH:.*]] : index
// CHECK:             %[[PARITY:.*]] = arith.remsi %[[LAP]], %{{.*}} : index
// CHECK:             %[[SLOT:.*]] = arith.remsi %[[P]], %[[DEPTH]] : index
// CHECK:             %[[PREVIOUS:.*]] = arith.subi %{{.*}}, %[[PARITY]] : index
// CHECK-NEXT:        pipeline.mbarrier_wait_parity %ring_empty[%[[SLOT]]], %[[PREVIOUS]]
// CHECK-NEXT:        %k0 = arith.muli %[[P]], %c64 : index
// CHECK:             pipeline.bulk_copy<128x64> tensor_map %A[%m0, %k0] -> %A_s[%[[SLOT]], {{.*}}], %ring_full[%[[SLOT]]]
// CHECK-NEXT:        pipeline.bulk_copy<64x256> tensor_map %B[%k0, %n0] -> %B_s[%[[SLOT]], {{.*}}], %ring_full[%[[SLOT]]]
// CHECK-NEXT:        pipeline.mbarrier_arrive_expect_tx %ring_full[%[[SLOT]]], bytes = 49152
// CHECK-NEXT:      }
// The consumers: what the kernel did before and after the loop, and the loop's
// compute after the wait for the slot's copies.  Its one gemm feeds only the next
// one, so it may stay in flight into the next iteration (the loop is marked
// pipeline.wgmma_in_flight): each iteration releases the previous one's slot, once
// its own gemm is issued; the last slot needs no release.
// CHECK-NEXT:    } consumer {
// CHECK-NEXT:      tile.fill<128x256> %zero -> %C_f
// CHECK-NEXT:      scf.for %[[K:.*]] = %c0 to %c32 step %c1 {
// CHECK:             %[[CSLOT:.*]] = arith.remsi %[[K]], %[[CDEPTH:.*]] : index
// CHECK-NEXT:        pipeline.mbarrier_wait_parity %ring_full[%[[CSLOT]]], %{{.*}}
// CHECK:             tile.gemm<128x256x64> %A_s[%[[CSLOT]], {{.*}}], %B_s[%[[CSLOT]], {{.*}}] -> %C_f
// CHECK-NEXT:        %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[BACK:.*]] = arith.addi %[[K]], %[[THREE]] : index
// CHECK-NEXT:        %[[PREVIOUS_SLOT:.*]] = arith.remsi %[[BACK]], %[[CDEPTH]] : index
// CHECK-NEXT:        %[[NOT_FIRST:.*]] = arith.cmpi sgt, %[[K]], %{{.*}} : index
// CHECK-NEXT:        scf.if %[[NOT_FIRST]] {
// CHECK-NEXT:          pipeline.mbarrier_arrive %ring_empty[%[[PREVIOUS_SLOT]]], threads = 256
// CHECK-NEXT:        }
// CHECK-NEXT:      } {pipeline.wgmma_in_flight}
// CHECK-NEXT:      tile.copy<128x256> %C_f -> %C[%m0, %n0]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NOT:     pipeline.for

// The pipeline passes leave the ring's barriers alone: nothing added, nothing moved.
// SCHEDULED-LABEL: func.func @gemm
// SCHEDULED:         pipeline.fence_proxy_async
// SCHEDULED-NEXT:    pipeline.barrier
// SCHEDULED-NEXT:    pipeline.warp_specialize
// SCHEDULED-NOT:     pipeline.barrier
// SCHEDULED-NOT:     pipeline.wait_group
// SCHEDULED:         pipeline.mbarrier_wait_parity %ring_empty
// SCHEDULED-NOT:     pipeline.barrier
// SCHEDULED:         pipeline.mbarrier_wait_parity %ring_full
// SCHEDULED-NOT:     pipeline.barrier
// SCHEDULED:         pipeline.mbarrier_arrive %ring_empty
// SCHEDULED-NOT:     pipeline.barrier
// SCHEDULED:         func.return

// Flash attention: the consumers keep Q, P and the statistics in shared memory of
// their own; only K and V are the ring's.
// ATTENTION-LABEL: func.func @flash_attention
// ATTENTION:         %K_s = memref.alloc() {{.*}} : memref<2x64x64xf16, "shared">
// ATTENTION:         %V_s = memref.alloc() {{.*}} : memref<2x64x64xf16, "shared">
// ATTENTION:         pipeline.warp_specialize
// ATTENTION:           pipeline.bulk_copy<64x64> tensor_map %K
// ATTENTION-NEXT:      pipeline.bulk_copy<64x64> tensor_map %V
// ATTENTION:         } consumer {
// ATTENTION-NEXT:      tile.copy<64x64> %Q[%q0, %c0] -> %Q_s
// ATTENTION:           tile.gemm<64x64x64> %Q_s, %K_s[
// ATTENTION:           tile.cast<64x64> %S_f -> %P_s
// ATTENTION:           tile.gemm<64x64x64> %P_s, %V_s[
// ATTENTION-NEXT:      pipeline.mbarrier_arrive %ring_empty[{{.*}}], threads = 128
// Two gemms, the first's accumulator read by the softmax: each gemm retires its
// wgmmas, and the slot is released in its own iteration.
// ATTENTION-NEXT:    }{{$}}

// A ring of one slot has none to spare for a gemm in flight.
// DEPTH1-LABEL: func.func @gemm
// DEPTH1:           tile.gemm<128x256x64>
// DEPTH1-NEXT:      pipeline.mbarrier_arrive %ring_empty[%{{.*}}], threads = 256
// DEPTH1-NEXT:    }{{$}}

// UNTOUCHED-LABEL: func.func @gemm
// UNTOUCHED-NOT:     pipeline.warp_specialize
// UNTOUCHED:         pipeline.for %ko = %c0 to %c32 step %c1 num_stages = 4
// UNTOUCHED-NOT:     pipeline.warp_specialize

// REMARK-LABEL: func.func @mma_sync_gemm
// REMARK: pipeline.for
func.func @mma_sync_gemm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<32x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<32x64xf32, "fragment">
  tile.fill<32x64> %zero -> %C_f : f32 -> memref<32x64xf32, "fragment">
  // expected-remark @+1 {{not warp-specialized: a gemm that reads a copied tile does not run on wgmma}}
  pipeline.for %ko = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<32x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<32x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.gemm<32x64x64> %A_s, %B_s -> %C_f : memref<32x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<32x64xf32, "fragment">
  }
  tile.copy<32x64> %C_f -> %C[%c0, %c0] : memref<32x64xf32, "fragment"> -> memref<256x256xf32>
  func.return
}

// -----

// A copy the producer cannot issue as one tensor copy (its rows are not 16-byte
// multiples) keeps the loop for the pipeline passes.
// REMARK-LABEL: func.func @narrow_rows
func.func @narrow_rows(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c4i = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<64x4xf16, "shared">
  %C_f = memref.alloc() : memref<64x4xf16, "fragment">
  // expected-remark @+1 {{not warp-specialized: a copy cannot be one tensor copy (its rows of 8 bytes are no multiple of 16)}}
  pipeline.for %ko = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %c4i : index
    tile.copy<64x4> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x4xf16, "shared">
    tile.copy<64x4> %A_s -> %C_f : memref<64x4xf16, "shared"> -> memref<64x4xf16, "fragment">
  }
  func.return
}

// -----

// A copied tile read other than by a wgmma gemm (here copied on to another shared
// tile by the consumers) keeps the loop unspecialized: the producer's next tensor copy
// into the slot would need the reader's proxy fence.
// REMARK-LABEL: func.func @ring_read_by_a_copy
func.func @ring_read_by_a_copy(%A: memref<256x256xf16>, %C: memref<256x256xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %O_s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-remark @+1 {{not warp-specialized: 'tile.copy' accesses a copied tile other than by a gemm's read}}
  pipeline.for %ko = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %A_s -> %O_s : memref<64x64xf16, "shared"> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

// A grid stated by tile.grid_dims stays in the kernel's entry block (the launch's
// business), before the roles split; the consumers take the rest (fuzz seed 9305).
// REMARK-LABEL: func.func @grid_by_size
// REMARK:         tile.grid_dims %grid
// REMARK:         pipeline.warp_specialize
// REMARK:         } consumer {
// REMARK-NEXT:      tile.fill<128x64>
func.func @grid_by_size(%A: memref<?x64xf16>, %B: memref<64x64xf16>, %C: memref<?x64xf32>)
    attributes {tile.threads = 256 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bid = tile.block_id x
  %acc = memref.alloc() : memref<128x64xf32, "fragment">
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %rows = memref.dim %A, %c0 : memref<?x64xf16>
  %grid = arith.ceildivui %rows, %c128 : index
  tile.grid_dims %grid
  %m0 = arith.muli %bid, %c128 : index
  tile.fill<128x64> %zero -> %acc : f32 -> memref<128x64xf32, "fragment">
  pipeline.for %k = %c0 to %c1 step %c1 num_stages = 2 {
    tile.copy<128x64> %A[%m0, %c0] -> %A_s : memref<?x64xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x64> %B[%c0, %c0] -> %B_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
    tile.gemm<128x64x64> %A_s, %B_s -> %acc : memref<128x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<128x64xf32, "fragment">
  }
  tile.copy<128x64> %acc -> %C[%m0, %c0] : memref<128x64xf32, "fragment"> -> memref<?x64xf32>
  func.return
}
