// RUN: %roundtrip
// RUN: tile-opt %s --split-input-file | filecheck %s
// Every op of the ascend emission dialect, custom form and generic form.

// CHECK-LABEL: func.func @sync_ops
func.func @sync_ops(%id: index) attributes {tile.target = "ascend910b"} {
  // CHECK-NEXT: ascend.set_flag[MTE2, V] 0
  ascend.set_flag[MTE2, V] 0
  // CHECK-NEXT: ascend.wait_flag[MTE2, V] %{{.*}}
  ascend.wait_flag[MTE2, V] %id
  // CHECK-NEXT: ascend.set_flag[MTE2, MTE1] 7
  ascend.set_flag[MTE2, MTE1] 7
  // CHECK-NEXT: ascend.wait_flag[MTE1, MTE3] 7
  ascend.wait_flag[MTE1, MTE3] 7
  // CHECK-NEXT: ascend.pipe_barrier[MTE3]
  ascend.pipe_barrier[MTE3]
  // CHECK-NEXT: ascend.pipe_barrier[ALL]
  ascend.pipe_barrier[ALL]
  // CHECK-NEXT: ascend.cross_core_set_flag[2, FIX] 15
  ascend.cross_core_set_flag[2, FIX] 15
  // CHECK-NEXT: ascend.cross_core_wait_flag[2, V] %{{.*}}
  ascend.cross_core_wait_flag[2, V] %id
  // CHECK-NEXT: ascend.get_buf[MTE2] 31 non_block
  ascend.get_buf[MTE2] 31 non_block
  // CHECK-NEXT: ascend.rls_buf[MTE2] 31 non_block
  ascend.rls_buf[MTE2] 31 non_block
  // CHECK-NEXT: ascend.get_buf[V] %{{.*}} block
  ascend.get_buf[V] %id block
  // CHECK-NEXT: ascend.rls_buf[V] %{{.*}} block
  ascend.rls_buf[V] %id block
  func.return
}

// -----

// CHECK-LABEL: func.func @vector_ops
func.func @vector_ops(%x: memref<1024xf16>, %i: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f16
  %x_ub = memref.alloc() : memref<2x64xf16, "ub">
  %y_ub = memref.alloc() : memref<64xf16, "ub">
  // CHECK: ascend.data_copy<64> %{{.*}}[%{{.*}}] -> %{{.*}}[%{{.*}}, %{{.*}}] : memref<1024xf16> -> memref<2x64xf16, "ub">
  ascend.data_copy<64> %x[%i] -> %x_ub[%c0, %c0] : memref<1024xf16> -> memref<2x64xf16, "ub">
  // CHECK-NEXT: ascend.add<64> {{.*}} : memref<2x64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  ascend.add<64> %x_ub[%c0, %c0], %y_ub -> %y_ub : memref<2x64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.sub<64>
  ascend.sub<64> %y_ub, %y_ub -> %y_ub : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.mul<64>
  ascend.mul<64> %y_ub, %y_ub -> %y_ub : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.max<64>
  ascend.max<64> %y_ub, %y_ub -> %y_ub : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.exp<64> %{{.*}} -> %{{.*}} : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  ascend.exp<64> %y_ub -> %y_ub : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.duplicate<64> %{{.*}} -> %{{.*}} : f16 -> memref<64xf16, "ub">
  ascend.duplicate<64> %one -> %y_ub : f16 -> memref<64xf16, "ub">
  // CHECK-NEXT: ascend.data_copy<64> %{{.*}} -> %{{.*}}[%{{.*}}] : memref<64xf16, "ub"> -> memref<1024xf16>
  ascend.data_copy<64> %y_ub -> %x[%i] : memref<64xf16, "ub"> -> memref<1024xf16>
  // CHECK-NEXT: ascend.zero_tail<64> %{{.*}}[%{{.*}}] -> %{{.*}} : memref<1024xf16> -> memref<64xf16, "ub">
  ascend.zero_tail<64> %x[%i] -> %y_ub : memref<1024xf16> -> memref<64xf16, "ub">
  func.return
}

// -----

// CHECK-LABEL: func.func @cube_ops
func.func @cube_ops(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>, %first: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %a_l1 = memref.alloc() : memref<128x64xf16, "l1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "l1">
  %a_l0a = memref.alloc() : memref<128x64xf16, "l0a">
  %b_l0b = memref.alloc() : memref<64x128xf16, "l0b">
  %c_l0c = memref.alloc() : memref<128x128xf32, "l0c">
  // CHECK: ascend.data_copy<128x64> {{.*}} : memref<256x256xf16> -> memref<128x64xf16, "l1">
  ascend.data_copy<128x64> %A[%c0, %c0] -> %a_l1 : memref<256x256xf16> -> memref<128x64xf16, "l1">
  // CHECK-NEXT: ascend.data_copy_nd2nz<64x128> {{.*}} : memref<256x256xf16> -> memref<64x128xf16, "l1">
  ascend.data_copy_nd2nz<64x128> %B[%c0, %c0] -> %b_l1 : memref<256x256xf16> -> memref<64x128xf16, "l1">
  // CHECK-NEXT: ascend.load_data<128x64> {{.*}} : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
  ascend.load_data<128x64> %a_l1 -> %a_l0a : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
  // CHECK-NEXT: ascend.load_data<64x128> {{.*}} -> memref<64x128xf16, "l0b">
  ascend.load_data<64x128> %b_l1 -> %b_l0b : memref<64x128xf16, "l1"> -> memref<64x128xf16, "l0b">
  // CHECK-NEXT: ascend.mmad<128x128x64> %{{.*}}, %{{.*}} -> %{{.*}} init %{{.*}} : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  ascend.mmad<128x128x64> %a_l0a, %b_l0b -> %c_l0c init %first : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  // CHECK-NEXT: ascend.mmad<128x128x64> %{{.*}}, %{{.*}} -> %{{.*}} : memref
  ascend.mmad<128x128x64> %a_l0a, %b_l0b -> %c_l0c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  // CHECK-NEXT: ascend.fixpipe<128x128> {{.*}} : memref<128x128xf32, "l0c"> -> memref<256x256xf32>
  ascend.fixpipe<128x128> %c_l0c -> %C[%c0, %c0] : memref<128x128xf32, "l0c"> -> memref<256x256xf32>
  func.return
}
