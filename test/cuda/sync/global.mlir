// RUN: tile-opt %s --split-input-file -p async-copy,thread-sync | filecheck %s

// The threads of a block run a tile op's elements in parallel in global memory too: a
// fragment stored to global memory (accumulator layout) and loaded back by a copy
// (cooperative chunks) is a RAW between threads, ordered by a block barrier.
// CHECK-LABEL: func.func @fragment_store_then_load
// CHECK:       tile.copy<32x32> %C_f -> %G
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<32x32> %G -> %O
func.func @fragment_store_then_load(%A: memref<32x32xf16>, %G: memref<32x32xf32>, %O: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  %zero = arith.constant 0.000000e+00 : f32
  tile.fill<32x32> %zero -> %C_f : f32 -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %A -> %A_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.gemm<32x32x32> %A_s, %A_s -> %C_f : memref<32x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %C_f -> %G : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  tile.copy<32x32> %G -> %O : memref<32x32xf32> -> memref<32x32xf32>
  func.return
}

// -----

// Two cooperative copies of different tile shapes map the same global element to
// different threads: barrier.
// CHECK-LABEL: func.func @different_mappings
// CHECK:       tile.copy<32x32> %S -> %G
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<32x16> %G -> %O
func.func @different_mappings(%G: memref<32x32xf32>, %O: memref<32x16xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x16> %G -> %O : memref<32x32xf32> -> memref<32x16xf32>
  func.return
}

// -----

// The same tile shape maps every element to the same thread (the chapter's "same
// thread mapping" exemption): no barrier.
// CHECK-LABEL: func.func @same_mapping
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @same_mapping(%G: memref<32x32xf32>, %O: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x32> %G -> %O : memref<32x32xf32> -> memref<32x32xf32>
  func.return
}

// -----

// A WAR on global memory: a load, then a store of the same bytes by other threads.
// CHECK-LABEL: func.func @global_war
// CHECK:       tile.copy<32x16> %G -> %O
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<32x32> %S -> %G
func.func @global_war(%G: memref<32x32xf32>, %O: memref<32x16xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.copy<32x16> %G -> %O : memref<32x32xf32> -> memref<32x16xf32>
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  func.return
}

// -----

// Different kernel arguments are different buffers (assumed not to alias).
// CHECK-LABEL: func.func @different_arguments
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @different_arguments(%G: memref<32x32xf32>, %H: memref<32x32xf32>, %O: memref<32x16xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x16> %H -> %O : memref<32x32xf32> -> memref<32x16xf32>
  func.return
}

// -----

// A cp.async reads its global source when the copy engine runs: a store of those bytes
// by other threads must be ordered before the copy is issued (a barrier), and a later
// store after it must wait for the copy (wait_group, then a barrier).
// CHECK-LABEL: func.func @async_copy_source
// CHECK:       tile.copy<32x32> %S -> %G
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  %[[T:.*]] = pipeline.async_copy<32x16> %G -> %D
// CHECK-NEXT:  pipeline.commit_group [%[[T]]]
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<32x32> %S -> %G
func.func @async_copy_source(%G: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  %D = memref.alloc() : memref<32x16xf32, "shared">
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x16> %G -> %D : memref<32x32xf32> -> memref<32x16xf32, "shared">
  tile.copy<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  func.return
}
