// sm_90a: a tensor-map copy lowers to thread 0's cp.async.bulk.tensor of the whole
// tile, at the tile's global origin (coordinates innermost first).  Each distinct
// (argument, box, swizzle) is a kernel input !llvm.ptr after the kernel's own,
// recorded in tilepipe.tensor_maps for the host that encodes the maps; the hand-off
// makes those inputs __grid_constant__ parameters (.param .align 64 .b8 [128], read
// through cvta.param) and aligns the dynamic shared memory to 1024 bytes.  A tile
// whose rows are a hardware swizzle's (A: 128 bytes) lands in that swizzle; B's
// 256-byte rows land as two 128-byte panels (two boxes of 64 columns), each in the
// 128-byte swizzle, the layout the lowering then addresses.

// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled},lower-to-nvvm | filecheck %s
// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled},lower-to-nvvm -t 'ptx{chip=sm_90a}' | filecheck %s --check-prefix=PTX
// RUN: tile-opt %s -p lower-to-nvvm | filecheck %s --check-prefix=WHOLE
// RUN: sed 's/"sm_80"/"sm_90a"/' %examples/gemm.mlir | tile-opt - -p %{cuda:scheduled},lower-to-nvvm -t 'nvvm-llvm{chip=sm_90a}' | tile-opt - | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: gpu.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>, %A_map: !llvm.ptr, %B_map: !llvm.ptr) kernel
// CHECK-SAME:    tilepipe.tensor_maps = [{argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}, {argument = 1 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}]
// CHECK:         %A_s = memref.view {{.*}} {tilepipe.swizzle = "col ^ ((row % 8) * 8)"}
// CHECK:         %B_s = memref.view {{.*}} {tilepipe.swizzle = "panels of 64 columns, col ^ ((row % 8) * 8)"}
// CHECK:         scf.if
// CHECK:           "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}, %A_map, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 2, 1, 0, 0, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr, i32, i32, !llvm.ptr<3>) -> ()
// CHECK:           "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}, %B_map,
// CHECK:           "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}, %B_map,
// CHECK-NOT:     nvvm.cp.async.bulk.shared.cluster.global
// CHECK-NOT:     nvvm.mbarrier.complete_tx

// Upstream's LLVM dialect, read back by tilepipe: the map inputs are byval grid constants.
// LLVM:      llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
// LLVM:      llvm.func @gemm(
// LLVM-SAME:   %arg21: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %arg22: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// LLVM:      "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}, %arg21,

// PTX:       .target sm_90a
// PTX:       .param .align 64 .b8 gemm_param_21[128],
// PTX-NEXT:  .param .align 64 .b8 gemm_param_22[128]
// PTX-NEXT:  )
// PTX:       .shared .align 1024 .b8 __dynamic_shmem__0;
// PTX:       cvta.param.u64
// PTX:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// A hand-written tensor copy of a whole array (a region without offsets: the origin),
// lowered without an arena pass: the buffer's arena.alignment still places it.
// WHOLE-LABEL: gpu.func @whole(%A: memref<64x64xf16>, %A_map: !llvm.ptr)
// WHOLE:         %[[ZERO:.*]] = arith.constant 0 : index
// WHOLE:         %[[X:.*]] = arith.index_cast %[[ZERO]] : index to i32
// WHOLE-NEXT:    %[[Y:.*]] = arith.index_cast %[[ZERO]] : index to i32
// WHOLE:         "nvvm.cp.async.bulk.tensor.shared.cluster.global"(%{{.*}}, %A_map, %[[X]], %[[Y]], %{{.*}})
func.func @whole(%A: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  %s = memref.alloc() {arena.alignment = 128 : i64} : memref<64x64xf16, "shared">
  pipeline.bulk_copy<64x64> tensor_map %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<2xi64, "shared">
  func.return
}
