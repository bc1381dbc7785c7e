// RUN: tile-opt %s --split-input-file -p async-copy,thread-sync | filecheck %s

// A global -> shared copy becomes cp.async with a commit group; a reader in other
// threads needs the wait and then a barrier (__syncthreads does not wait for cp.async).
// CHECK-LABEL: func.func @async_raw
// CHECK:       %[[T:.*]] = pipeline.async_copy<64x64> %A -> %s
// CHECK-NEXT:  pipeline.commit_group [%[[T]]]
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x32> %s -> %B
func.func @async_raw(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// When the same threads read what they copied, the wait alone suffices.
// CHECK-LABEL: func.func @async_same_threads
// CHECK:       pipeline.commit_group
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK-NEXT:  tile.copy<64x64> %s -> %B
// CHECK-NOT:   pipeline.barrier
func.func @async_same_threads(%A: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}

// -----

// Copies into successive slots of one buffer belong to successive time slots: one
// group each.  Both reads need both groups landed and a barrier; one wait and one
// barrier before the first read cover both (the fewest sync points).
// CHECK-LABEL: func.func @two_groups
// CHECK:       pipeline.async_copy<64x64> %A -> %s[%c0, %c0, %c0]
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  pipeline.async_copy<64x64> %A2 -> %s[%c1, %c0, %c0]
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x32> %s[%c0, %c0, %c0] -> %B
// CHECK-NEXT:  tile.copy<64x32> %s[%c1, %c0, %c0] -> %B
func.func @two_groups(%A: memref<64x64xf16>, %A2: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<2x64x64xf16, "shared">
  tile.copy<64x64> %A -> %s[%c0, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  tile.copy<64x64> %A2 -> %s[%c1, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  tile.copy<64x32> %s[%c0, %c0, %c0] -> %B : memref<2x64x64xf16, "shared"> -> memref<64x32xf16>
  tile.copy<64x32> %s[%c1, %c0, %c0] -> %B : memref<2x64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// Rows of 2 bytes cannot be split into cp.async chunks (4, 8 or 16 bytes): the copy
// stays synchronous.  Shared -> global copies are never asynchronous.
// CHECK-LABEL: func.func @not_async
// CHECK:       tile.copy<64x1> %A -> %s
// CHECK-NEXT:  tile.copy<64x1> %s -> %B
func.func @not_async(%A: memref<64x1xf16>, %B: memref<64x1xf16>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x1xf16, "shared">
  tile.copy<64x1> %A -> %s : memref<64x1xf16> -> memref<64x1xf16, "shared">
  tile.copy<64x1> %s -> %B : memref<64x1xf16, "shared"> -> memref<64x1xf16>
  func.return
}

// -----

// Ascend kernels are not touched by the CUDA passes.
// CHECK-LABEL: func.func @ascend
// CHECK-NEXT:  %ub = memref.alloc()
// CHECK-NEXT:  tile.copy<256> %x -> %ub
// CHECK-NEXT:  func.return
func.func @ascend(%x: memref<256xf16, "gm">) attributes {tile.target = "ascend910b"} {
  %ub = memref.alloc() : memref<256xf16, "ub">
  tile.copy<256> %x -> %ub : memref<256xf16, "gm"> -> memref<256xf16, "ub">
  func.return
}
