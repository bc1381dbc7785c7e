// tilepipe compile takes the chapter's GEMM from tile level to PTX through every
// registered CUDA pass, upstream MLIR and ptxas (which must accept the PTX).

// RUN: tilepipe compile %examples/gemm.mlir --target sm_80 -o %t.sm80.ptx 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: filecheck %s --check-prefix=PTX80 < %t.sm80.ptx
// RUN: filecheck %s --check-prefix=X4 < %t.sm80.ptx
// RUN: tilepipe compile %examples/gemm.mlir --target sm_90 --num-stages 2 -q -o %t.sm90.ptx
// RUN: filecheck %s --check-prefix=PTX90 < %t.sm90.ptx
// RUN: tilepipe compile %examples/gemm.mlir --target sm_80 --emit nvvm --no-ptxas -q | filecheck %s --check-prefix=NVVM
// One upstream run keeps the LLVM-dialect module --emit llvm asks for and the PTX that
// ptxas checks:
// RUN: tilepipe compile %examples/gemm.mlir --target sm_80 --emit llvm -o %t.llvm.mlir 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: filecheck %s --check-prefix=LLVM < %t.llvm.mlir

// SUMMARY:      tilepipe compile {{.*}}gemm.mlir --target sm_80
// SUMMARY:        lower-to-nvvm {{.*}} gpu.func @gemm (128 threads, 98304 B dynamic shared, swizzled A_s B_s)
// SUMMARY:        upstream MLIR {{.*}} passes to ptx
// SUMMARY:        ptxas {{.*}} accepted
// SUMMARY:        kernel @gemm: {{[0-9]+}} registers, {{.*}} (sm_80)

// PTX80:      .target sm_80
// PTX80:      .visible .entry gemm(
// PTX80:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX80:      ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX80:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// The accumulator leaves in pairs of neighbouring columns: 8-byte global stores.
// PTX80:      st.global.v2.b32
// PTX80-NOT:  st.global.f32

// Both operands load four 8x8 matrices per ldmatrix (B: two 8-column blocks), in
// the whole kernel.
// X4-NOT:     ldmatrix.sync.aligned.m8n8.x{{[12]}}

// PTX90:      .target sm_90
// PTX90:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// NVVM:       module attributes {gpu.container_module} {
// NVVM:         gpu.module @tilepipe_kernels {
// NVVM:           gpu.func @gemm({{.*}}) {{.*}}kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 8, 1>
// NVVM:             nvgpu.ldmatrix
// NVVM:             nvgpu.mma.sync

// LLVM:       llvm.func @gemm(
// LLVM:         nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// LLVM:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr

// bf16 inputs (the same GEMM with f16 -> bf16) run on tensor cores through upstream's
// nvvm.mma.sync; ptxas accepts it for sm_80 and sm_90.
// RUN: sed -e 's/xf16/xbf16/g' %examples/gemm.mlir > %t.bf16.mlir
// RUN: tilepipe compile %t.bf16.mlir --target sm_80 -q -o %t.bf16.sm80.ptx
// RUN: filecheck %s --check-prefix=BF16-80 < %t.bf16.sm80.ptx
// RUN: tilepipe compile %t.bf16.mlir --target sm_90 -q -o %t.bf16.sm90.ptx
// RUN: filecheck %s --check-prefix=BF16-90 < %t.bf16.sm90.ptx

// BF16-80:      .target sm_80
// BF16-80:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16-80:      ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// BF16-80:      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-80-NOT:  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// BF16-90:      .target sm_90
// BF16-90:      mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
