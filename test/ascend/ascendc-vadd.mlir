// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// A hand-synchronized double-buffered vector add printed as AscendC: the rings are
// primed before the loop and drained after it; event ids are `i mod 2 + base`.

// CHECK-LABEL: extern "C" __global__ __aicore__ void vadd(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// CHECK-NEXT:    AscendC::TPipe pipe;
// CHECK-NEXT:    AscendC::GlobalTensor<half> x_gm;
// CHECK-NEXT:    x_gm.SetGlobalBuffer((__gm__ half *)x);
// CHECK:         AscendC::TBuf<AscendC::TPosition::VECCALC> x_ub_buf;
// CHECK-NEXT:    pipe.InitBuffer(x_ub_buf, 512);
// CHECK-NEXT:    AscendC::LocalTensor<half> x_ub = x_ub_buf.Get<half>();
// CHECK:         AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
// CHECK-NEXT:    AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(1);
// CHECK:         for (int64_t i = 0; i < 16; i += 1) {
// CHECK-NEXT:      int64_t slot = i % 2;
// CHECK-NEXT:      int64_t off = i * 128;
// CHECK-NEXT:      AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(slot);
// CHECK-NEXT:      AscendC::DataCopy(x_ub[slot * 128], x_gm[off], 128);
// CHECK-NEXT:      AscendC::DataCopy(y_ub[slot * 128], y_gm[off], 128);
// CHECK-NEXT:      AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(slot);
// CHECK-NEXT:      AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(slot);
// CHECK-NEXT:      AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(slot);
// CHECK-NEXT:      AscendC::Add(z_ub[slot * 128], x_ub[slot * 128], y_ub[slot * 128], 128);
// CHECK-NEXT:      AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(slot);
// CHECK-NEXT:      AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(slot);
// CHECK-NEXT:      AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(slot);
// CHECK-NEXT:      AscendC::DataCopy(z_gm[off], z_ub[slot * 128], 128);
// CHECK-NEXT:      AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(slot);
// CHECK-NEXT:    }
// CHECK-NEXT:    AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(0);
// CHECK:         AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(1);
// CHECK-NEXT:  }
func.func @vadd(%x: memref<2048xf16>, %y: memref<2048xf16>, %z: memref<2048xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %x_ub = memref.alloc() : memref<2x128xf16, "ub">
  %y_ub = memref.alloc() : memref<2x128xf16, "ub">
  %z_ub = memref.alloc() : memref<2x128xf16, "ub">
  ascend.set_flag[V, MTE2] 0
  ascend.set_flag[V, MTE2] 1
  ascend.set_flag[MTE3, V] 0
  ascend.set_flag[MTE3, V] 1
  scf.for %i = %c0 to %c16 step %c1 {
    %slot = arith.remui %i, %c2 : index
    %off = arith.muli %i, %c128 : index
    ascend.wait_flag[V, MTE2] %slot
    ascend.data_copy<128> %x[%off] -> %x_ub[%slot, %c0] : memref<2048xf16> -> memref<2x128xf16, "ub">
    ascend.data_copy<128> %y[%off] -> %y_ub[%slot, %c0] : memref<2048xf16> -> memref<2x128xf16, "ub">
    ascend.set_flag[MTE2, V] %slot
    ascend.wait_flag[MTE2, V] %slot
    ascend.wait_flag[MTE3, V] %slot
    ascend.add<128> %x_ub[%slot, %c0], %y_ub[%slot, %c0] -> %z_ub[%slot, %c0] : memref<2x128xf16, "ub">, memref<2x128xf16, "ub"> -> memref<2x128xf16, "ub">
    ascend.set_flag[V, MTE2] %slot
    ascend.set_flag[V, MTE3] %slot
    ascend.wait_flag[V, MTE3] %slot
    ascend.data_copy<128> %z_ub[%slot, %c0] -> %z[%off] : memref<2x128xf16, "ub"> -> memref<2048xf16>
    ascend.set_flag[MTE3, V] %slot
  }
  ascend.wait_flag[V, MTE2] 0
  ascend.wait_flag[V, MTE2] 1
  ascend.wait_flag[MTE3, V] 0
  ascend.wait_flag[MTE3, V] 1
  func.return
}
