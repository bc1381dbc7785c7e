// lower-to-nvvm{host-launch=true} of a kernel with tensor maps (sm_90a): the host
// launcher takes the kernel's own arguments and, before the launch, encodes one map
// per record through MLIR's CUDA runtime wrappers (mgpuTensorMapEncodeTiled: the
// array's address, its sizes innermost first, the outer byte stride, the box
// innermost first, element strides 1, no interleave, the 128-byte swizzle (3), L2
// promotion 128B (2), zero fill (0)) into a 64-byte aligned stack slot, and passes
// the slots after the kernel's arguments.  The hand-off loads them as the maps' bytes
// once the kernel is an llvm.func; test_upstream_standard_lowering.py runs the host
// code JIT-compiled against a recording runtime.

// RUN: tile-opt %s -p "pipeline-validate,warp-specialize,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync,lower-to-nvvm{host-launch=true}" | filecheck %s

// CHECK:       func.func private @mgpuTensorMapEncodeTiled(!llvm.ptr, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32)
// CHECK-LABEL: func.func @gemm(%A: memref<64x320xf16>, %B: memref<320x64xf16>, %C: memref<64x64xf32>, %n: index) {
// CHECK:         %{{.*}}, %[[OFFSET:.*]], %[[ROWS:.*]], %[[COLUMNS:.*]], %[[ROW_STRIDE:.*]], %{{.*}} = memref.extract_strided_metadata %A
// CHECK:         %[[BASE:.*]] = "memref.extract_aligned_pointer_as_index"(%A)
// CHECK:         %[[ELEMENT:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[OFFSET_BYTES:.*]] = arith.muli %[[OFFSET]], %[[ELEMENT]] : index
// CHECK-NEXT:    %[[ADDRESS:.*]] = arith.addi %[[BASE]], %[[OFFSET_BYTES]] : index
// CHECK:         %[[POINTER:.*]] = llvm.inttoptr
// CHECK:         %[[MAP_A:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK:         %[[F16:.*]] = arith.constant 6 : i32
// CHECK-NEXT:    %[[RANK:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[SIZES:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[STRIDES:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x i64>
// CHECK:         %[[BOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i32>
// CHECK:         %[[ONES:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i32>
// CHECK:         %[[NONE:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[SWIZZLE_128B:.*]] = arith.constant 3 : i32
// CHECK-NEXT:    func.call @mgpuTensorMapEncodeTiled(%[[MAP_A]], %[[F16]], %[[RANK]], %[[POINTER]], %[[SIZES]], %[[STRIDES]], %[[BOX]], %[[ONES]], %[[NONE]], %[[SWIZZLE_128B]], %[[RANK]], %[[NONE]])
// CHECK:         memref.extract_strided_metadata %B
// CHECK:         %[[MAP_B:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK:         func.call @mgpuTensorMapEncodeTiled(%[[MAP_B]],
// CHECK-NEXT:    gpu.launch_func @tilepipe_kernels::@gemm {{.*}} args(%A : memref<64x320xf16>, %B : memref<320x64xf16>, %C : memref<64x64xf32>, %n : index, %[[MAP_A]] : !llvm.ptr, %[[MAP_B]] : !llvm.ptr)
// CHECK-NEXT:    func.return
// CHECK:       gpu.module @tilepipe_kernels
// CHECK:         gpu.func @gemm({{.*}}, %A_map: !llvm.ptr, %B_map: !llvm.ptr)

func.func @gemm(%A: memref<64x320xf16>, %B: memref<320x64xf16>, %C: memref<64x64xf32>, %n: index)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbk = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %n step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %cbk : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<64x320xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<320x64xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

