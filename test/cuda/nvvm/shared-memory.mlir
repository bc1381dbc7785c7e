// lower-to-nvvm: shared buffers become views of one shared memory buffer -- a static
// workgroup attribution up to 48 KiB, the dynamic shared memory beyond.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// The arena of merge-shared-memory: its planned views are kept, retyped to space 3.
// CHECK-LABEL: gpu.func @arena(
// CHECK-SAME:    ) workgroup(%[[WG:[^:]*]]: memref<32768xi8, 3 : i64> {llvm.align = 16 : i64}) kernel
// CHECK:         %[[ARENA:.*]] = memref.view %[[WG]][%{{.*}}][] : memref<32768xi8, 3 : i64> to memref<32768xi8, 3 : i64>
// CHECK:         memref.view %[[ARENA]][%{{.*}}][] : memref<32768xi8, 3 : i64> to memref<2x64x64xf16, 3 : i64>
// CHECK:         gpu.return
func.func @arena() attributes {tile.target = "sm_80"} {
  %arena = memref.alloc() {alignment = 16 : i64} : memref<32768xi8, "shared">
  %off = arith.constant 16384 : index
  %A_s = memref.view %arena[%off][] : memref<32768xi8, "shared"> to memref<2x64x64xf16, "shared">
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f16
  tile.fill<64x64> %zero -> %A_s[%c1, %c0, %c0] : f16 -> memref<2x64x64xf16, "shared">
  func.return
}

// -----

// A buffer that asks for 1024-byte alignment (a swizzled layout) gets it, and so
// does the shared memory buffer; the next buffer follows at a 16-byte boundary.
// CHECK-LABEL: gpu.func @aligned(
// CHECK-SAME:    ) workgroup(%{{[^:]*}}: memref<1072xi8, 3 : i64> {llvm.align = 1024 : i64}) kernel
// CHECK:         memref.view %{{.*}}[%{{.*}}][] : memref<1072xi8, 3 : i64> to memref<512xf16, 3 : i64>
// CHECK:         %[[OFF:.*]] = arith.constant 1024 : index
// CHECK:         memref.view %{{.*}}[%[[OFF]]][] : memref<1072xi8, 3 : i64> to memref<24xf16, 3 : i64>
func.func @aligned() attributes {tile.target = "sm_80"} {
  %a = memref.alloc() {alignment = 1024 : i64} : memref<512xf16, "shared">
  %b = memref.alloc() : memref<24xf16, "shared">
  %zero = arith.constant 0.000000e+00 : f16
  tile.fill<512> %zero -> %a : f16 -> memref<512xf16, "shared">
  tile.fill<24> %zero -> %b : f16 -> memref<24xf16, "shared">
  func.return
}

// -----

// Beyond CUDA's 48 KiB of static shared memory: the dynamic shared memory, and the
// bytes to launch with on the kernel.
// CHECK-LABEL: gpu.func @dynamic() kernel attributes
// CHECK-SAME:    tilepipe.dynamic_shared_memory = 65536 : i64
// CHECK:         %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[BASE:.*]] = "memref.memory_space_cast"(%[[DYN]]) : (memref<?xi8, #gpu.address_space<workgroup>>) -> memref<?xi8, 3 : i64>
// CHECK:         memref.view %[[BASE]][%{{.*}}][] : memref<?xi8, 3 : i64> to memref<4x128x64xf16, 3 : i64>
// CHECK:         gpu.return
func.func @dynamic() attributes {tile.target = "sm_90"} {
  %A_s = memref.alloc() : memref<4x128x64xf16, "shared">
  %zero = arith.constant 0.000000e+00 : f16
  tile.fill<128x64> %zero -> %A_s : f16 -> memref<4x128x64xf16, "shared">
  func.return
}
