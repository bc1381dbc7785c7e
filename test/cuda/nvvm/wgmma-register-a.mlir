// sm_90a: a tile.gemm whose A is a register fragment cast from a wgmma accumulator
// of the same rows (P = cast(S) in attention) runs wgmma with A from registers: an
// llvm.inline_asm (upstream's nvvm.wgmma.mma_async has descriptors only) per k-step,
// A's four .b32 registers packed from the fragment's registers (two f16 each, the
// 16x8 blocks 2j and 2j+1 of k-step j) before wgmma.fence, the accumulator fields tied
// in and out as the descriptor form's struct, the same commit and wait.  P gets no
// shared staging tile and no barrier.  A fragment in no accumulator's layout is staged
// through shared memory and the gemm stays on mma.sync, with tma-copy's remark.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s
// RUN: tile-opt %s --split-input-file --verify-diagnostics -p tma-copy -o /dev/null

// CHECK-LABEL: gpu.func @cast_accumulator_as_a(
// CHECK:         "nvvm.wgmma.mma_async"
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}\0A", "=f,=f,{{.*}},=f,r,r,r,r,l,0,1,{{.*}},31"
// CHECK-SAME:    -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-COUNT-3: llvm.inline_asm has_side_effects
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK:         gpu.return
func.func @cast_accumulator_as_a(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %V_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %S_f = memref.alloc() : memref<64x64xf32, "fragment">
  %P_f = memref.alloc() : memref<64x64xf16, "fragment">
  %O_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %S_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x64> %A_s, %B_s -> %S_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.cast<64x64> %S_f -> %P_f : memref<64x64xf32, "fragment"> -> memref<64x64xf16, "fragment">
  tile.fill<64x64> %zero -> %O_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x64> %P_f, %V_s -> %O_f : memref<64x64xf16, "fragment">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %O_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

// CHECK-LABEL: gpu.func @a_in_no_accumulator_layout(
// CHECK:         nvvm.barrier0
// CHECK:         nvgpu.ldmatrix
// CHECK:         nvgpu.mma.sync
// CHECK-NOT:     llvm.inline_asm
// CHECK:         gpu.return
func.func @a_in_no_accumulator_layout(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f16
  %A_f = memref.alloc() : memref<64x64xf16, "fragment">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %one -> %A_f : f16 -> memref<64x64xf16, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  // expected-remark @+1 {{gemm stays on mma.sync: A is a register fragment combined with no wgmma accumulator of its rows (whose register layout wgmma's A takes, as P = cast(S) in attention)}}
  tile.gemm<64x64x64> %A_f, %B_s -> %C_f : memref<64x64xf16, "fragment">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
