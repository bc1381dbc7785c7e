// The sync ops the CUDA passes insert are located at the op each was inserted for
// (never loc(unknown)), so that --mlir-print-debuginfo output, the NVVM text and
// upstream's diagnostics point at user code: a commit group at the copy that closes
// its run, a wait, fence or barrier at the op it is placed before, the mbarrier setup
// at the loop it serves, each mbarrier wait at its consumer and each arrival at the
// copy it follows.

// RUN: tile-opt %s --split-input-file -p async-copy,thread-sync --mlir-print-debuginfo | filecheck %s --check-prefix=SM80
// RUN: tile-opt %s --split-input-file -p async-copy,thread-sync,lower-to-nvvm --mlir-print-debuginfo | filecheck %s --check-prefix=NVVM
// RUN: tile-opt %s --split-input-file -p pipeline-planning,tma-copy --mlir-print-debuginfo | filecheck %s --check-prefix=SM90

// SM80-LABEL: func.func @async_raw
// SM80:         pipeline.async_copy<64x64> {{.*}} loc("{{.*}}locations.mlir":[[COPY:[0-9]+]]:3)
// SM80-NEXT:    pipeline.commit_group {{.*}} loc("{{.*}}locations.mlir":[[COPY]]:3)
// SM80-NEXT:    pipeline.wait_group 0 loc("{{.*}}locations.mlir":[[READ:[0-9]+]]:3)
// SM80-NEXT:    pipeline.barrier loc("{{.*}}locations.mlir":[[READ]]:3)
// SM80-NEXT:    tile.copy<64x32> {{.*}} loc("{{.*}}locations.mlir":[[READ]]:3)

// NVVM-LABEL: gpu.func @async_raw
// NVVM:         nvvm.cp.async.commit.group loc("{{.*}}locations.mlir":[[# @LINE + 6]]:3)
// NVVM-NEXT:    nvvm.cp.async.wait.group 0 loc("{{.*}}locations.mlir":[[# @LINE + 6]]:3)
// NVVM-NEXT:    nvvm.barrier0 loc("{{.*}}locations.mlir":[[# @LINE + 5]]:3)
func.func @async_raw(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// SM90-LABEL: func.func @tma_group
// SM90:         %tma_bars = memref.alloc() : memref<1xi64, "shared"> loc("{{.*}}locations.mlir":[[LOOP:[0-9]+]]:3)
// SM90:         pipeline.mbarrier_init {{.*}} loc("{{.*}}locations.mlir":[[LOOP]]:3)
// SM90-NEXT:    pipeline.fence_proxy_async loc("{{.*}}locations.mlir":[[LOOP]]:3)
// SM90-NEXT:    pipeline.barrier loc("{{.*}}locations.mlir":[[LOOP]]:3)
// SM90:         pipeline.for %k
// SM90:         pipeline.bulk_copy<16x16> {{.*}} loc("{{.*}}locations.mlir":[[COPY:[0-9]+]]:5)
// SM90-NEXT:    pipeline.mbarrier_arrive_expect_tx {{.*}} loc("{{.*}}locations.mlir":[[COPY]]:5)
// SM90-NEXT:    pipeline.mbarrier_wait_parity {{.*}} loc("{{.*}}locations.mlir":[[USE:[0-9]+]]:5)
// SM90-NEXT:    tile.copy<16x16> {{.*}} loc("{{.*}}locations.mlir":[[USE]]:5)
func.func @tma_group(%A: memref<128x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %Sa = memref.alloc() : memref<16x16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<128x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %Sa -> %T : memref<16x16xf32, "shared"> -> memref<16x16xf32, "fragment">
  }
  func.return
}
