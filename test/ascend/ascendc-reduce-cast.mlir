// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// Division, casts, reductions, broadcasts, UB -> UB copies and the converting fixpipe
// as AscendC.  A row sum of 8x64 f32: per row, the 8 partial sums are one 32-byte
// block of the scratch `reduce_work`, fed by 7 strided Adds (mask 8, one repeat per
// row, source rows 8 blocks apart); BlockReduceSum sums each block as a binary tree
// (the tile level's butterfly); Adds of 0 is the tile level's closing +0.

// CHECK-LABEL: void vector(
// CHECK:      AscendC::LocalTensor<float> reduce_work = reduce_work_buf.Get<float>();
// CHECK-NEXT: AscendC::SetSaturationFlag<AscendC::SaturationMode::FLOAT>(false);
// CHECK:      AscendC::Div(z, x, y, 512);
// CHECK-NEXT: AscendC::Cast(h, z, AscendC::RoundMode::CAST_RINT, 512);
// CHECK-NEXT: AscendC::Cast(i, z, AscendC::RoundMode::CAST_TRUNC, 512);
// CHECK-NEXT: AscendC::DataCopy(y, z, 512);
// CHECK-NEXT: AscendC::Add(reduce_work, x, x[8], (uint64_t)8, 8, AscendC::BinaryRepeatParams(1, 1, 1, 1, 8, 8));
// CHECK-NEXT: AscendC::Add(reduce_work, reduce_work, x[16], (uint64_t)8, 8, AscendC::BinaryRepeatParams(1, 1, 1, 1, 1, 8));
// CHECK:      AscendC::Add(reduce_work, reduce_work, x[56], (uint64_t)8, 8, AscendC::BinaryRepeatParams(1, 1, 1, 1, 1, 8));
// CHECK-NEXT: AscendC::BlockReduceSum(reduce_work[64], reduce_work, 1, 64, 1, 1, 8);
// CHECK-NEXT: AscendC::Adds(r, reduce_work[64], (float)0, 8);
// CHECK-NEXT: AscendC::Brcb(reduce_work, r, 1, AscendC::BrcbRepeatParams(1, 8));
// CHECK-NEXT: AscendC::Adds(y, reduce_work, (float)-0.0, (uint64_t)64, 8, AscendC::UnaryRepeatParams(1, 0, 8, 1));
func.func @vector() attributes {tile.target = "ascend910b"} {
  %x = memref.alloc() : memref<8x64xf32, "ub">
  %y = memref.alloc() : memref<8x64xf32, "ub">
  %z = memref.alloc() : memref<8x64xf32, "ub">
  %h = memref.alloc() : memref<8x64xf16, "ub">
  %i = memref.alloc() : memref<8x64xi32, "ub">
  %r = memref.alloc() : memref<8xf32, "ub">
  ascend.div<8x64> %x, %y -> %z : memref<8x64xf32, "ub">, memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
  ascend.cast<8x64> %z -> %h : memref<8x64xf32, "ub"> -> memref<8x64xf16, "ub">
  ascend.cast<8x64> %z -> %i : memref<8x64xf32, "ub"> -> memref<8x64xi32, "ub">
  ascend.data_copy<8x64> %z -> %y : memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
  ascend.reduce<8x64> sum %x -> %r axis 1 : memref<8x64xf32, "ub"> -> memref<8xf32, "ub">
  ascend.broadcast<8x64> %r -> %y axis 1 : memref<8xf32, "ub"> -> memref<8x64xf32, "ub">
  func.return
}

// A column max of 16x8 f32: the tile order over rows, each step a plain Max of a row
// (8 partial rows, butterfly), then an exact copy (Adds of -0) into the result.
// CHECK-LABEL: void columns(
// CHECK:      AscendC::Max(reduce_work, x, x[64], 8);
// CHECK:      AscendC::Max(reduce_work, reduce_work, reduce_work[8], 8);
// CHECK:      AscendC::Adds(c, reduce_work, (float)-0.0, 8);
func.func @columns() attributes {tile.target = "ascend910b"} {
  %x = memref.alloc() : memref<16x8xf32, "ub">
  %c = memref.alloc() : memref<8xf32, "ub">
  ascend.reduce<16x8> max %x -> %c axis 0 : memref<16x8xf32, "ub"> -> memref<8xf32, "ub">
  func.return
}

// The converting fixpipe: quantPre F322F16 through FixpipeParamsV220's 11-argument
// constructor.
// CHECK-LABEL: void gemm_out(
// CHECK:      AscendC::Fixpipe(C_gm, c, AscendC::FixpipeParamsV220(32, 32, 32, 32, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0));
func.func @gemm_out(%C: memref<32x32xf16>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<32x32xf32, "l0c">
  ascend.fixpipe<32x32> %c -> %C : memref<32x32xf32, "l0c"> -> memref<32x32xf16>
  func.return
}
