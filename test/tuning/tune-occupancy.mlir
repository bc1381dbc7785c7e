// `tilepipe tune` ranks by the machine model's kernel time: one block's simulated
// cycles, the grid's blocks in waves over the target's SMs at their occupancy.
// examples/gemm_tune.mlir at num_stages 3, without ptxas (registers unknown):
// 128-row blocks (64 of them) with a 96 KiB arena, 64-row blocks (128) with 72 KiB.

// RUN: rm -rf %t.cache
// RUN: env TILEPIPE_CACHE_DIR=%t.cache tilepipe tune %examples/gemm_tune.mlir --target sm_80 --num-stages 3 --no-ptxas -j 1 -o %t.sm80.mlir 2>&1 | filecheck %s --check-prefix=SM80
// RUN: env TILEPIPE_CACHE_DIR=%t.cache tilepipe tune %examples/gemm_tune.mlir --target sm_90 --num-stages 3 --no-ptxas -j 1 --no-cache -o %t.sm90.mlir 2>&1 | filecheck %s --check-prefix=SM90
// A second run answers from the cache (the rejected configuration too), compiling nothing.
// RUN: env TILEPIPE_CACHE_DIR=%t.cache tilepipe tune %examples/gemm_tune.mlir --target sm_80 --num-stages 3 --no-ptxas -j 1 -o %t.sm80.mlir 2>&1 | filecheck %s --check-prefix=CACHED

// A100: 98304 + 1024 B reserved allow one block per SM (164 KiB), 73728 + 1024 two;
// 64 blocks leave 44 of the 108 SMs idle.
// SM80: config {{.*}} occupancy waves{{ +}}kernel cyc
// SM80: block_M=64 block_K=64 num_stages=3 {{ *}}73728 {{.*}} 128 {{ +}}2/SM smem 1 {{.*}} fits
// SM80: block_M=128 block_K=64 num_stages=3 {{ *}}98304 {{.*}} 64 {{ +}}1/SM smem 1, 44 idle {{.*}} fits
// SM80: model: public peak figures for sm_80 (A100 SXM4, 108 SMs, 1.41 GHz)
// SM80: 4 configurations, 4 evaluated, 0 from the cache

// H100: 228 KiB per SM hold three of the 64-row blocks (4 SMs idle) and two of the
// 128-row ones (68 idle); filling the GPU, the 64-row blocks win.
// SM90: * gemm_tune.mlir block_M=64 block_K=64 num_stages=3 {{.*}} 128 {{ +}}3/SM smem 1, 4 idle
// SM90: block_M=128 block_K=64 num_stages=3 {{.*}} 64 {{ +}}2/SM smem 1, 68 idle
// SM90: model: public peak figures for sm_90 (H100 SXM5, 132 SMs, 1.83 GHz)

// CACHED-COUNT-3: fits (cached)
// CACHED: 4 configurations, 0 evaluated, 4 from the cache
