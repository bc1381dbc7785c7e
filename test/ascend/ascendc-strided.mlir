// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// Strided GM <-> UB tiles print DataCopyParams through its 4-argument constructor
// (blockCount, blockLen, srcStride, dstStride in 32-byte blocks): the real struct is
// not an aggregate.

// CHECK-LABEL: void strided(GM_ADDR x, GM_ADDR y) {
// CHECK:         AscendC::DataCopy(u, x_gm[16 * 256 + 64], AscendC::DataCopyParams(16, 4, 12, 0));
// CHECK:         AscendC::DataCopy(y_gm[64], u, AscendC::DataCopyParams(16, 4, 0, 12));
func.func @strided(%x: memref<64x256xf16>, %y: memref<16x256xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<16x64xf16, "ub">
  ascend.data_copy<16x64> %x[%c16, %c64] -> %u : memref<64x256xf16> -> memref<16x64xf16, "ub">
  ascend.set_flag[MTE2, MTE3] 0
  ascend.wait_flag[MTE2, MTE3] 0
  ascend.data_copy<16x64> %u -> %y[%c0, %c64] : memref<16x64xf16, "ub"> -> memref<16x256xf16>
  func.return
}
