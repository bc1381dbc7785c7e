// The llvm level (`tilepipe compile --emit llvm`, or a host compiler's dump after
// upstream's conversions) reads back into tile-opt as upstream MLIR 22.1.8 prints it:
// the compile targets on gpu.module, the special register reads with their ranges,
// nvvm.ldmatrix, the f16 nvvm.mma.sync whose multiplicand types upstream infers,
// getelementptr's no-wrap flags, index-typed constants, -inf as the hexadecimal bits
// of a dense float, blocks of a CFG using values of the blocks that dominate them
// (parse-errors.mlir has one that does not), and gpu.launch_func naming an llvm.func
// kernel.  (The input is upstream's own printing of itself, byte for byte;
// test_upstream_printing.py compiles the CUDA examples to this level and reads them
// back.)
//
// RUN: tile-opt %s -o %t
// RUN: filecheck %s --input-file=%t
// RUN: tile-opt %t | diff - %t
// RUN: tile-opt %t --mlir-print-op-generic | tile-opt | diff - %t

module attributes {gpu.container_module} {
  func.func @host(%arg0: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func  @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)  args(%arg0 : memref<64xf32>)
    return
  }
  gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">] {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%arg0: !llvm.ptr, %arg1: i64) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
      %1 = llvm.mlir.constant(4 : index) : i64
      %2 = llvm.mlir.constant(0 : i32) : i32
      %3 = llvm.mlir.constant(dense<0xFF800000> : vector<4xf32>) : vector<4xf32>
      %4 = llvm.mlir.poison : !llvm.struct<(f32, f32)>
      %5 = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
      %6 = nvvm.read.ptx.sreg.ctaid.y : i32
      %7 = llvm.sext %5 : i32 to i64
      %8 = llvm.getelementptr inbounds|nuw %0[%7] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
      %9 = llvm.getelementptr %arg0[%7] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %10 = llvm.addrspacecast %9 : !llvm.ptr to !llvm.ptr<1>
      nvvm.cp.async.shared.global %8, %10, 16, cache =  cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 0
      nvvm.barrier0
      %11 = nvvm.ldmatrix %8 {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      %12 = llvm.extractvalue %11[0] : !llvm.struct<(i32, i32, i32, i32)> 
      %13 = llvm.bitcast %12 : i32 to vector<2xf16>
      %14 = llvm.extractelement %3[%1 : i64] : vector<4xf32>
      %15 = llvm.intr.maximum(%14, %14) : (f32, f32) -> f32
      %16 = llvm.call @__nv_expf(%15) : (f32) -> f32
      %17 = nvvm.mma.sync A[%13, %13, %13, %13]  B[%13, %13]  C[%16, %16, %16, %16]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %18 = llvm.intr.smax(%arg1, %1) : (i64, i64) -> i64
      llvm.br ^bb1(%2 : i32)
    ^bb1(%19: i32):  // 2 preds: ^bb0, ^bb1
      %20 = llvm.icmp "slt" %19, %2 : i32
      llvm.cond_br %20, ^bb1(%19 : i32), ^bb2
    ^bb2:  // pred: ^bb1
      llvm.return
    }
  }
}

// CHECK-LABEL: gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">] {
// CHECK:         llvm.func @k(%arg0: !llvm.ptr, %arg1: i64) attributes {gpu.kernel, nvvm.kernel} {
// CHECK:           llvm.mlir.constant(4 : index) : i64
// CHECK-NEXT:      llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:      llvm.mlir.constant(dense<0xff800000> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:      llvm.mlir.poison : !llvm.struct<(f32, f32)>
// CHECK-NEXT:      nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
// CHECK-NEXT:      nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK:           llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
// CHECK-NEXT:      llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:           nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:           llvm.extractelement %{{.*}}[%{{.*}} : i64] : vector<4xf32>
// CHECK-NEXT:      llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK:           "nvvm.mma.sync"({{.*}}) <{{{.*}}multiplicandAPtxType = #nvvm.mma_type<f16>, multiplicandBPtxType = #nvvm.mma_type<f16>}>
// CHECK-NEXT:      llvm.intr.smax(%arg1, %{{.*}}) : (i64, i64) -> i64
// CHECK:         ^bb1(%[[I:.*]]: i32):
// CHECK-NEXT:      llvm.icmp "slt" %[[I]], %{{.*}} : i32
