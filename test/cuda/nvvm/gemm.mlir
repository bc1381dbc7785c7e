// lower-to-nvvm: tile.gemm on tensor cores (ldmatrix + mma.sync m16n8k16) for f16/bf16,
// as scalar multiply-adds for f32 inputs and for what tensor cores cannot take.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// 4 warps tile 64x64 as 2x2 warps of 32x32: per 16-wide k step, 2 A fragments
// (ldmatrix.x4) and the 4 B fragments of 2 ldmatrix.x4.trans of the row-major KxN B
// (registers 0-1 one 8-column block, 2-3 the next), then 2x4 mma.sync; the loop over
// the 2 k steps is marked for LLVM to unroll.  The four accumulator registers of an
// mma (c0..c3, which are neighbours in the fragment) travel as one aligned 16-byte
// vector.  Fragments change shape by shuffles, extracts and inserts only, which
// upstream's vector-to-LLVM patterns lower at any rank (in gpu-lower-to-nvvm-pipeline
// too, where no shape_cast or strided-slice pre-lowering runs).
// CHECK-LABEL: gpu.func @gemm_f16(
// CHECK:         %[[C:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32xf32>
// CHECK:         %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<2x2xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-COUNT-2:   "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = false}> : (memref<64x32xf16, 3 : i64>, index, index) -> vector<4x2xf16>
// CHECK:           %[[B01:.*]] = "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = true}> : (memref<32x64xf16, 3 : i64>, index, index) -> vector<4x2xf16>
// CHECK-NEXT:      %[[B0:.*]] = vector.shuffle %[[B01]], %[[B01]] [0, 1] : vector<4x2xf16>, vector<4x2xf16>
// CHECK-NEXT:      %[[B1:.*]] = vector.shuffle %[[B01]], %[[B01]] [2, 3] : vector<4x2xf16>, vector<4x2xf16>
// CHECK:           "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = true}> : (memref<32x64xf16, 3 : i64>, index, index) -> vector<4x2xf16>
// CHECK:           %[[ACC:.*]] = "vector.load"(%[[C]], %[[REG:.*]]) <{alignment = 16 : i64}> : (memref<32xf32>, index) -> vector<4xf32>
// CHECK-NEXT:      %[[C01:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:      %[[ROW0:.*]] = vector.insert %[[C01]], %[[ZERO]] [0] : vector<2xf32> into vector<2x2xf32>
// CHECK-NEXT:      %[[C23:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [2, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:      %[[ACC2:.*]] = vector.insert %[[C23]], %[[ROW0]] [1] : vector<2xf32> into vector<2x2xf32>
// CHECK-NEXT:      %[[D:.*]] = "nvgpu.mma.sync"(%{{.*}}, %[[B0]], %[[ACC2]]) <{mmaShape = [16 : i64, 8 : i64, 16 : i64]}> : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NEXT:      %[[D01:.*]] = vector.extract %[[D]][0] : vector<2xf32> from vector<2x2xf32>
// CHECK-NEXT:      %[[D23:.*]] = vector.extract %[[D]][1] : vector<2xf32> from vector<2x2xf32>
// CHECK-NEXT:      %[[D4:.*]] = vector.shuffle %[[D01]], %[[D23]] [0, 1, 2, 3] : vector<2xf32>, vector<2xf32>
// CHECK-NEXT:      "vector.store"(%[[D4]], %[[C]], %[[REG]]) <{alignment = 16 : i64}> : (vector<4xf32>, memref<32xf32>, index) -> ()
// CHECK:           "nvgpu.mma.sync"(%{{.*}}, %[[B1]], %{{.*}})
// CHECK-COUNT-6:   "nvgpu.mma.sync"
// CHECK-NOT:       "nvgpu.mma.sync"
// CHECK:         } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}
// CHECK:         gpu.return
func.func @gemm_f16(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// Transposed operands swap the ldmatrix flavours: A^T (KxM) is read with .trans,
// B^T (NxK) without (two 8-row blocks of B^T per x4 load as well).
// CHECK-LABEL: gpu.func @gemm_f16_transposed(
// CHECK:         "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = true}> : (memref<32x64xf16, 3 : i64>
// CHECK:         "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = false}> : (memref<64x32xf16, 3 : i64>
// CHECK:         "nvgpu.mma.sync"(%{{.*}}) <{mmaShape = [16 : i64, 8 : i64, 16 : i64]}> : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>)
func.func @gemm_f16_transposed()
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %A_s = memref.alloc() : memref<32x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f transpose_a transpose_b : memref<32x64xf16, "shared">, memref<64x32xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// bf16 runs on tensor cores too: the same ldmatrix fragments, each vector<2xbf16> row
// bitcast to the i32 register PTX wants, and upstream's nvvm.mma.sync (m16n8k16,
// row.col, bf16 multiplicands) instead of nvgpu.mma.sync, which upstream 22.1.8's
// convert-nvgpu-to-nvvm cannot lower for bf16.  4 warps tile 32x32 as 2x2 warps of
// 16x16: per k step one A fragment, two B fragments (one ldmatrix.x4.trans), two
// mma.sync.
// CHECK-LABEL: gpu.func @gemm_bf16(
// CHECK-NOT:     arith.mulf
// CHECK:         %[[C:.*]] = memref.alloca() {alignment = 16 : i64} : memref<8xf32>
// CHECK:         scf.for
// CHECK:           %[[A:.*]] = "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = false}> : (memref<32x16xbf16, 3 : i64>, index, index) -> vector<4x2xbf16>
// CHECK:           "nvgpu.ldmatrix"(%{{.*}}) <{numTiles = 4 : i32, transpose = true}> : (memref<16x32xbf16, 3 : i64>, index, index) -> vector<4x2xbf16>
// CHECK:           %[[A0:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK:           %[[R0:.*]] = llvm.bitcast %[[A0]] : vector<2xbf16> to i32
// CHECK:           %[[C0:.*]] = memref.load %[[C]][%{{.*}}] : memref<8xf32>
// CHECK:           %[[D:.*]] = "nvvm.mma.sync"(%[[R0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C0]], %{{.*}}, %{{.*}}, %{{.*}}) <{shape = #nvvm.shape<m = 16, n = 8, k = 16>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, operandSegmentSizes = array<i32: 4, 2, 4>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:           %[[D0:.*]] = llvm.extractvalue %[[D]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK:           memref.store %[[D0]], %[[C]][%{{.*}}] : memref<8xf32>
// CHECK:           "nvvm.mma.sync"
// CHECK-NOT:       "nvvm.mma.sync"
// CHECK-NOT:       "nvgpu.mma.sync"
// CHECK:         gpu.return
func.func @gemm_bf16()
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %A_s = memref.alloc() : memref<32x16xbf16, "shared">
  %B_s = memref.alloc() : memref<16x32xbf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.gemm<32x32x16> %A_s, %B_s -> %C_f : memref<32x16xbf16, "shared">, memref<16x32xbf16, "shared"> -> memref<32x32xf32, "fragment">
  func.return
}

// -----

// f32 inputs have no m16n8k16 tensor-core form: every thread runs a K loop of
// multiply-adds for each accumulator element it owns (cooperative layout).
// CHECK-LABEL: gpu.func @gemm_f32(
// CHECK-NOT:     nvgpu
// CHECK:         %[[C:.*]] = memref.alloca() {alignment = 16 : i64} : memref<8xf32>
// CHECK:         %[[INIT:.*]] = memref.load %[[C]]
// CHECK:         %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) : i32 {
// CHECK:           %[[A:.*]] = memref.load {{.*}} : memref<32x16xf32, 3 : i64>
// CHECK:           %[[B:.*]] = memref.load {{.*}} : memref<16x32xf32, 3 : i64>
// CHECK:           %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK:           %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK:           scf.yield %[[S]] : f32
// CHECK:         memref.store %[[SUM]], %[[C]]
func.func @gemm_f32()
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<32x16xf32, "shared">
  %B_s = memref.alloc() : memref<16x32xf32, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.gemm<32x32x16> %A_s, %B_s -> %C_f : memref<32x16xf32, "shared">, memref<16x32xf32, "shared"> -> memref<32x32xf32, "fragment">
  func.return
}

// -----

// 16x16 is two 16x8 blocks: two of the four warps run the gemm, one block each, and
// the other two skip it (a warp-uniform branch: ldmatrix and mma.sync need whole
// warps converged, not the block).
// CHECK-LABEL: gpu.func @gemm_idle_warps(
// CHECK:         %[[WARP:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK:         %[[ACTIVE:.*]] = arith.cmpi ult, %[[WARP]], %{{.*}} : index
// CHECK:         scf.if %[[ACTIVE]] {
// CHECK:           scf.for
// CHECK-COUNT-1:     nvgpu.mma.sync
// CHECK-NOT:         nvgpu.mma.sync
func.func @gemm_idle_warps()
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<16x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x16xf16, "shared">
  %C_f = memref.alloc() : memref<16x16xf32, "fragment">
  tile.gemm<16x16x32> %A_s, %B_s -> %C_f : memref<16x32xf16, "shared">, memref<32x16xf16, "shared"> -> memref<16x16xf32, "fragment">
  func.return
}

// -----

// K = 24: the whole 16-wide step on tensor cores, the last 8 on the scalar path over
// the same accumulator layout: the 8 products summed from zero, then added to C (the
// tile level's order for a K step: numerics.gemm_accumulate).
// CHECK-LABEL: gpu.func @gemm_k_tail(
// CHECK:         nvgpu.mma.sync
// CHECK:         %[[INIT:.*]] = memref.load
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[STEP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK:           arith.extf
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:           arith.addf %[[ACC]]
// CHECK:         %[[SUM:.*]] = arith.addf %[[INIT]], %[[STEP]] : f32
// CHECK:         memref.store %[[SUM]]
func.func @gemm_k_tail()
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<32x24xf16, "shared">
  %B_s = memref.alloc() : memref<24x32xf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.gemm<32x32x24> %A_s, %B_s -> %C_f : memref<32x24xf16, "shared">, memref<24x32xf16, "shared"> -> memref<32x32xf32, "fragment">
  func.return
}

// -----

// 24 rows are no whole 16-row blocks: the accumulator is dealt out cooperatively and
// the gemm runs on the scalar path, one 16-wide K step at a time.
// CHECK-LABEL: gpu.func @gemm_no_blocks(
// CHECK-NOT:     nvgpu
// CHECK:         %[[C:.*]] = memref.alloca() {alignment = 16 : i64} : memref<2xf32>
// CHECK:         %[[INIT:.*]] = memref.load %[[C]]
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK:           scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK:             arith.mulf
// CHECK:           arith.addf %[[ACC]]
func.func @gemm_no_blocks()
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<24x32xbf16, "shared">
  %B_s = memref.alloc() : memref<32x8xbf16, "shared">
  %C_f = memref.alloc() : memref<24x8xf32, "fragment">
  tile.gemm<24x8x32> %A_s, %B_s -> %C_f : memref<24x32xbf16, "shared">, memref<32x8xbf16, "shared"> -> memref<24x8xf32, "fragment">
  func.return
}

// -----

// A register-fragment A (P of P V): each thread stores its elements into a shared
// tile of A's shape, a barrier, then ldmatrix reads it like any shared operand.  Not
// in a loop: nothing read the tile before, so no barrier before the stores.
// CHECK-LABEL: gpu.func @gemm_register_a(
// CHECK-NOT:     nvvm.barrier0
// CHECK:         %[[STAGE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<{{.*}}xi8, 3 : i64> to memref<16x16xf16, 3 : i64>
// CHECK:         memref.store %{{.*}}, %[[STAGE]][%{{.*}}, %{{.*}}] : memref<16x16xf16, 3 : i64>
// CHECK:         nvvm.barrier0
// CHECK-NOT:     nvvm.barrier0
// CHECK:         "nvgpu.ldmatrix"(%[[STAGE]]
// CHECK:         nvgpu.mma.sync
func.func @gemm_register_a()
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %A_f = memref.alloc() : memref<16x16xf16, "fragment">
  %B_s = memref.alloc() : memref<16x16xf16, "shared">
  %C_f = memref.alloc() : memref<16x16xf32, "fragment">
  tile.gemm<16x16x16> %A_f, %B_s -> %C_f : memref<16x16xf16, "fragment">, memref<16x16xf16, "shared"> -> memref<16x16xf32, "fragment">
  func.return
}
