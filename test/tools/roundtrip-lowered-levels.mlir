// tile-opt reads back what it prints at the lowered levels (NVVM for sm_80 and sm_90,
// the ascend dialect): printing the parsed output again gives the same text, in custom
// and in generic form.  (The tile levels: roundtrip-levels.mlir.)
//
// RUN: tile-opt %examples/gemm.mlir -p '%{cuda:scheduled},lower-to-nvvm{host-launch=true}' -o %t.nvvm
// RUN: sed 's/sm_80/sm_90/' %examples/gemm.mlir | tile-opt -p '%{cuda:scheduled},lower-to-nvvm' -o %t.nvvm90
// RUN: tile-opt %examples/ascend_vadd.mlir -p '%{ascend}' -o %t.ascend
// RUN: tile-opt %t.nvvm | diff - %t.nvvm
// RUN: tile-opt %t.nvvm --mlir-print-op-generic | tile-opt | diff - %t.nvvm
// RUN: tile-opt %t.nvvm90 | diff - %t.nvvm90
// RUN: tile-opt %t.nvvm90 --mlir-print-op-generic | tile-opt | diff - %t.nvvm90
// RUN: tile-opt %t.ascend | diff - %t.ascend
// RUN: tile-opt %t.ascend --mlir-print-op-generic | tile-opt | diff - %t.ascend
// RUN: filecheck %s --input-file=%t.nvvm

// The lowered level prints in upstream's custom form, so a test can label a kernel.
// CHECK-LABEL: func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
// CHECK:         gpu.launch_func @tilepipe_kernels::@gemm blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %{{.*}} args(%A : memref<1024x1024xf16>, %B : memref<1024x1024xf16>, %C : memref<1024x1024xf32>)
// CHECK-LABEL: gpu.module @tilepipe_kernels {
// CHECK-NEXT:    gpu.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 8, 1>, tilepipe.dynamic_shared_memory = 98304 : i64} {
// CHECK:           gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           gpu.return
