// tile-opt reaches PTX and upstream's LLVM dialect through its output targets
// -t ptx{chip=...} and -t nvvm-llvm{chip=...}: the same upstream hand-off as
// tilepipe compile, after a pipeline that ends with lower-to-nvvm.

// RUN: tile-opt %examples/gemm.mlir -p %{cuda:scheduled},lower-to-nvvm -t ptx | filecheck %s --check-prefix=PTX80
// RUN: tile-opt %examples/gemm.mlir -p %{cuda:scheduled},lower-to-nvvm -t 'ptx{chip=sm_90}' | filecheck %s --check-prefix=PTX90
// RUN: tile-opt %examples/gemm.mlir -p %{cuda:scheduled},lower-to-nvvm -t nvvm-llvm | filecheck %s --check-prefix=LLVM
// RUN: not tile-opt %examples/gemm.mlir -p pipeline-planning -t ptx 2>&1 | filecheck %s --check-prefix=NOT-LOWERED
// RUN: not tile-opt %examples/gemm.mlir -t 'ptx{chip=ascend910b}' 2>&1 | filecheck %s --check-prefix=BAD-CHIP

// PTX80:      .target sm_80
// The kernel ABI: per memref argument its descriptor, flattened (allocated pointer,
// aligned pointer, offset, 2 sizes, 2 strides), so 7 parameters per 2-d memref.
// PTX80:      .visible .entry gemm(
// PTX80-NEXT:   .param .u64 .ptr .align 1 gemm_param_0,
// PTX80-NEXT:   .param .u64 .ptr .align 1 gemm_param_1,
// PTX80-NEXT:   .param .u64 gemm_param_2,
// PTX80-NEXT:   .param .u64 gemm_param_3,
// PTX80-NEXT:   .param .u64 gemm_param_4,
// PTX80-NEXT:   .param .u64 gemm_param_5,
// PTX80-NEXT:   .param .u64 gemm_param_6,
// PTX80-NEXT:   .param .u64 .ptr .align 1 gemm_param_7,
// PTX80:        .param .u64 gemm_param_20
// PTX80-NEXT: )
// PTX80-NEXT: .maxntid 128, 1, 1
// PTX80:      cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX80:      cp.async.wait_group 1;
// PTX80:      ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX80:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// PTX90:      .target sm_90
// PTX90:      cp.async.cg.shared.global
// PTX90:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// LLVM:       gpu.module @tilepipe_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// LLVM:       llvm.func @gemm(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr,
// LLVM-SAME:    %arg20: i64)
// LLVM-SAME:    gpu.kernel
// LLVM-SAME:    tilepipe.dynamic_shared_memory = 98304 : i64
// LLVM:         nvvm.mma.sync

// NOT-LOWERED: error: upstream MLIR failed in parsing: {{.*}}unregistered dialect{{.*}} (-t ptx prints the output of lower-to-nvvm)

// BAD-CHIP: tile-opt: error: bad target 'ptx{chip=ascend910b}': chip 'ascend910b' is not a CUDA target (choose from sm_80, sm_90, sm_90a)
