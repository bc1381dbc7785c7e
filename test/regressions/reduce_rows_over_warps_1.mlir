// lowering-2026-12/reduce_rows_over_warps_1.mlir (sm_90): a row reduction of a register
// fragment whose rows are spread over several warps, in a loop.  lower-to-nvvm refused
// it ("the rows of this register fragment are spread over several warps").  The
// fragment is now staged through a shared-memory scratch placed after the arena (its
// bytes in the kernel's shared total), with a barrier before the rows are read.  The
// next iteration's staging needs no second one: thread-sync's barrier at the top of the
// loop (the reduction rewrites %V1) already follows the reads.  test/python/cuda/
// test_nvvm_reduce_scratch.py runs it per thread (race free, bit-exact) and deletes the
// barrier.

// RUN: tilepipe compile %s --target sm_90 --emit ptx -o %t.ptx 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: tilepipe compile %s --target sm_80 --emit ptx -o %t.other.ptx 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: tilepipe compile %s --target sm_90 --emit nvvm -q -o - | filecheck %s --check-prefix=NVVM

// SUMMARY: ptxas {{.*}} accepted
// PTX: .visible .entry kern(
// PTX: bar.sync
// NVVM:      scf.for
// NVVM:        memref.view {{.*}} to memref<{{.*}}xf32, 3>
// NVVM:        memref.store
// NVVM:        nvvm.barrier0 {tilepipe.reduce_scratch = "staged"}
// NVVM-NOT:    nvvm.shfl.sync
// NVVM-NOT:    tilepipe.reduce_scratch = "read"
func.func @kern(%A: memref<160x64xf16>, %B: memref<640x64xf16>, %X: memref<160x64xf32>, %C: memref<32x64xf32>, %D: memref<32x64xf32>, %E: memref<320x64xf32>, %H: memref<32x64xf16>, %Vout: memref<32xf32>, %n: index)
    attributes {tile.grid = array<i64: 2>, tile.threads = 64 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c160 = arith.constant 160 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %f1 = arith.constant 1.000000e+00 : f32
  %f2 = arith.constant 5.000000e-01 : f32
  %bx = tile.block_id x
  %ob = arith.muli %bx, %c16 : index
  %oe = arith.muli %bx, %c160 : index
  %Sa0 = memref.alloc() : memref<16x64xf16, "shared">
  %Sa1 = memref.alloc() : memref<16x64xf16, "shared">
  %Sb0 = memref.alloc() : memref<64x64xf16, "shared">
  %Sb1 = memref.alloc() : memref<64x64xf16, "shared">
  %Sbt = memref.alloc() : memref<64x64xf16, "shared">
  %Sx = memref.alloc() : memref<16x64xf32, "shared">
  %Sp = memref.alloc() : memref<16x64xf16, "shared">
  %Acc0 = memref.alloc() : memref<16x64xf32, "fragment">
  %Acc1 = memref.alloc() : memref<16x64xf32, "fragment">
  %T0 = memref.alloc() : memref<16x64xf32, "fragment">
  %T1 = memref.alloc() : memref<16x64xf32, "fragment">
  %V0 = memref.alloc() : memref<16xf32, "shared">
  %V1 = memref.alloc() : memref<16xf32, "shared">
  %Sh = memref.alloc() : memref<16x64xf16, "shared">
  tile.fill<16x64> %f0 -> %Acc0 : f32 -> memref<16x64xf32, "fragment">
  tile.fill<16x64> %f0 -> %Acc1 : f32 -> memref<16x64xf32, "fragment">
  tile.fill<16> %f0 -> %V0 : f32 -> memref<16xf32, "shared">
  tile.fill<16> %f2 -> %V1 : f32 -> memref<16xf32, "shared">
  pipeline.for %k0 = %c0 to %n step %c1 stage = [0] order = [0] {
    tile.reduce<16x64> max %Acc0 -> %V1 axis 1 : memref<16x64xf32, "fragment"> -> memref<16xf32, "shared">
  }
  tile.copy<16x64> %Acc0 -> %C[%ob, %c0] : memref<16x64xf32, "fragment"> -> memref<32x64xf32>
  tile.copy<16x64> %Acc1 -> %D[%ob, %c0] : memref<16x64xf32, "fragment"> -> memref<32x64xf32>
  tile.copy<16> %V0 -> %Vout[%ob] : memref<16xf32, "shared"> -> memref<32xf32>
  tile.cast<16x64> %Acc0 -> %Sh : memref<16x64xf32, "fragment"> -> memref<16x64xf16, "shared">
  tile.copy<16x64> %Sh -> %H[%ob, %c0] : memref<16x64xf16, "shared"> -> memref<32x64xf16>
  func.return
}
