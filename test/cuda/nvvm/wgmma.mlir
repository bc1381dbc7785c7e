// sm_90a: a tile.gemm whose A and B are whole shared tiles in a descriptor's swizzle
// (rows of 32, 64 or 128 bytes, or tensor-map panels), aligned to the pattern
// (arena.swizzle), runs on wgmma.  Each operand gets a base descriptor -- start address
// bits 0-13, LBO 16-29, SBO 32-45 (16-byte units), swizzle mode 62-63 -- as its two
// words: the low one (address, LBO) computed in i32, the high one a constant; each
// k-step adds the offset of its first element to the low word (32-bit: the address
// field never carries out) and ORs in the high word; the accumulator registers are gathered
// into the m64nN struct before wgmma.fence, the chain is committed and waited for
// (wait_group 0) before the registers are written back.  An operand no descriptor
// addresses keeps the gemm on mma.sync, in the same (warpgroup) layout, and the
// gemm's generic reads are fenced for the async proxy thread-sync assumed.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// A K-major, 128-byte rows: SBO 1024, mode 1 (128B); B MN-major (row-major K x N,
// layoutB row: the transpose bit), one 64-column atom wide: LBO unused.
// Low word (16 / 16) << 16 = 65536 over the address field; high word
// (1 << 62) | (1024 / 16) << 32 = 4611686293305294848.
// CHECK-LABEL: gpu.func @wgmma_f16(
// CHECK-SAME:    workgroup(%{{.*}}: memref<16384xi8, 3 : i64> {llvm.align = 1024 : i64})
// CHECK:         %[[PA:.*]] = "memref.extract_aligned_pointer_as_index"(%A_s)
// CHECK-NEXT:    %[[ADDRESS:.*]] = arith.index_cast %[[PA]] : index to i32
// CHECK:         %[[FIELD:.*]] = arith.divui %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[LBO:.*]] = arith.constant 65536 : i32
// CHECK-NEXT:    %[[LOW_A:.*]] = arith.ori %[[FIELD]], %[[LBO]] : i32
// CHECK:         "memref.extract_aligned_pointer_as_index"(%B_s)
// CHECK:         llvm.mlir.poison : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-COUNT-32: llvm.insertvalue
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         %[[STEP_A:.*]] = arith.addi %[[LOW_A]], %{{.*}} : i32
// CHECK-NEXT:    %[[WORD_A:.*]] = arith.extui %[[STEP_A]] : i32 to i64
// CHECK-NEXT:    %[[HIGH:.*]] = arith.constant 4611686293305294848 : i64
// CHECK-NEXT:    %[[DA:.*]] = arith.ori %[[WORD_A]], %[[HIGH]] : i64
// CHECK-COUNT-4: "nvvm.wgmma.mma_async"(%{{.*}}, %{{.*}}, %{{.*}}) <{shape = #nvvm.shape<m = 64, n = 64, k = 16>, typeA = #nvvm.wgmma_type<f16>, typeB = #nvvm.wgmma_type<f16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<one>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<row>}>
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    llvm.extractvalue
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK-NOT:     nvvm.fence.proxy
// CHECK:         gpu.return
func.func @wgmma_f16(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

// bf16, B stored N x K (transpose_b: K-major, layoutB col) with 64-byte rows: mode 2
// (64B), SBO 512; A the same.  High word (2 << 62) | (512 / 16) << 32, as a signed
// i64: -9223371899415822336.  Two k-steps, one m64n32 each.
// CHECK-LABEL: gpu.func @wgmma_bf16_k_major_b(
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK:         arith.constant -9223371899415822336 : i64
// CHECK-COUNT-2: "nvvm.wgmma.mma_async"({{.*}}) <{shape = #nvvm.shape<m = 64, n = 32, k = 16>, typeA = #nvvm.wgmma_type<bf16>, typeB = #nvvm.wgmma_type<bf16>, {{.*}}, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}>
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
func.func @wgmma_bf16_k_major_b(%C: memref<64x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() {arena.swizzle = 64 : i64} : memref<64x32xbf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 64 : i64} : memref<32x32xbf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  tile.gemm<64x32x32> %A_s, %B_s -> %C_f transpose_b : memref<64x32xbf16, "shared">, memref<32x32xbf16, "shared"> -> memref<64x32xf32, "fragment">
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

// -----

// Without the pattern's alignment (no arena.swizzle: the tiles may start anywhere 16
// bytes apart) no descriptor addresses them: mma.sync in the warpgroup layout, then
// a proxy fence of the gemm's generic reads.
// CHECK-LABEL: gpu.func @unaligned_operands(
// CHECK-NOT:     nvvm.wgmma
// CHECK:         "nvgpu.mma.sync"
// CHECK:         "nvvm.fence.proxy"() <{kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}>
// CHECK-NOT:     nvvm.wgmma
// CHECK:         gpu.return
func.func @unaligned_operands(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %zero_h = arith.constant 0.000000e+00 : f16
  %pad = memref.alloc() : memref<8xf16, "shared">
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<8> %zero_h -> %pad : f16 -> memref<8xf16, "shared">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
