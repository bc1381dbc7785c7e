// gpu.launch_func prints and parses in upstream MLIR 22.1.8's custom form
// (dialects/gpu_upstream.py): the kernel symbol, the launch sizes, the dynamic shared
// memory and the kernel arguments with their types.  The launched kernel must exist
// (invalid.mlir has the errors), so each case defines one.
// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip
// RUN: tile-opt %s --split-input-file --mlir-print-op-generic | filecheck %s --check-prefix=GENERIC

// What host-launch emits: index sizes, dynamic shared memory, arguments.
// CHECK-LABEL: func.func @launch
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    gpu.launch_func @kernels::@k blocks in (%c8, %c1, %c1) threads in (%c8, %c1, %c1) dynamic_shared_memory_size %bytes args(%a : memref<4xf32>, %bytes : i32)
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "launch"
// GENERIC:       "gpu.launch_func"(%c8, %c1, %c1, %c8, %c1, %c1, %bytes, %a, %bytes) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 2, 0>}> : (index, index, index, index, index, index, i32, memref<4xf32>, i32) -> ()
func.func @launch(%a: memref<4xf32>, %bytes: i32) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch_func @kernels::@k blocks in (%c8, %c1, %c1) threads in (%c8, %c1, %c1) dynamic_shared_memory_size %bytes args(%a : memref<4xf32>, %bytes : i32)
  func.return
}
gpu.module @kernels {
  gpu.func @k(%x0: memref<4xf32>, %x1: i32) kernel {
    gpu.return
  }
}

// -----

// No arguments and no dynamic shared memory: neither clause is printed.
// CHECK-LABEL: func.func @bare
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1){{$}}
// GENERIC-LABEL: "func.func"() <{sym_name = "bare"
// GENERIC:       operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>
func.func @bare() {
  %c1 = arith.constant 1 : index
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}
gpu.module @kernels {
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// An asynchronous launch after other work, with clusters, i32 sizes and a discardable
// attribute.
// CHECK-LABEL: func.func @async_clusters
// CHECK-NEXT:    %c2 = arith.constant 2 : i32
// CHECK-NEXT:    %done = gpu.launch_func async [%t, %u] @kernels::@k clusters in (%c2, %c2, %c2) blocks in (%c2, %c2, %c2) threads in (%c2, %c2, %c2) : i32 args(%a : memref<4xf32>) {note = "x"}
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "async_clusters"
// GENERIC:       %done = "gpu.launch_func"(%t, %u, %c2, %c2, %c2, %c2, %c2, %c2, %c2, %c2, %c2, %a) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0>}> {note = "x"} : (!gpu.async.token, !gpu.async.token, i32, i32, i32, i32, i32, i32, i32, i32, i32, memref<4xf32>) -> !gpu.async.token
func.func @async_clusters(%a: memref<4xf32>, %t: !gpu.async.token, %u: !gpu.async.token) {
  %c2 = arith.constant 2 : i32
  %done = gpu.launch_func async [%t, %u] @kernels::@k clusters in (%c2, %c2, %c2) blocks in (%c2, %c2, %c2) threads in (%c2, %c2, %c2) : i32 args(%a : memref<4xf32>) {note = "x"}
  func.return
}
gpu.module @kernels {
  gpu.func @k(%x0: memref<4xf32>) kernel {
    gpu.return
  }
}

// -----

// A launch on a given stream (the async object), after one dependency.
// CHECK-LABEL: func.func @on_stream
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch_func [%t] <%stream : !llvm.ptr> @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1){{$}}
// GENERIC-LABEL: "func.func"() <{sym_name = "on_stream"
// GENERIC:       "gpu.launch_func"(%t, %c1, %c1, %c1, %c1, %c1, %c1, %stream) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1>}> : (!gpu.async.token, index, index, index, index, index, index, !llvm.ptr) -> ()
func.func @on_stream(%stream: !llvm.ptr, %t: !gpu.async.token) {
  %c1 = arith.constant 1 : index
  gpu.launch_func [%t] <%stream : !llvm.ptr> @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}
gpu.module @kernels {
  gpu.func @k() kernel {
    gpu.return
  }
}
