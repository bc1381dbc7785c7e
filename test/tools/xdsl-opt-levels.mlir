// The stock xdsl-opt reads what tilepipe prints, through tilepipe's xdsl.universe
// entry point: the tile and scheduled levels with the dialects it registers, the
// lowered level with its frontend (-f tilepipe: tilepipe's gpu and vector dialects,
// upstream's ops, in place of xDSL's; see tilepipe/core/source.py).  (xdsl-opt is run
// with this Python, so that it sees this checkout's tilepipe.)
//
// RUN: tile-opt %examples/gemm.mlir -p '%{cuda:scheduled}' -o %t.synced.mlir
// RUN: tile-opt %examples/gemm.mlir -p '%{cuda:scheduled},lower-to-nvvm{host-launch=true}' -o %t.nvvm.mlir
// RUN: %python -m xdsl.tools.xdsl_opt %t.synced.mlir | diff - %t.synced.mlir
// RUN: %python -m xdsl.tools.xdsl_opt -f tilepipe %t.nvvm.mlir | diff - %t.nvvm.mlir
// RUN: %python -m xdsl.tools.xdsl_opt -f tilepipe %t.nvvm.mlir --print-op-generic | %python -m xdsl.tools.xdsl_opt -f tilepipe | diff - %t.nvvm.mlir
// RUN: not %python -m xdsl.tools.xdsl_opt %t.nvvm.mlir 2>&1 | filecheck %s --check-prefix=STOCK
// RUN: %python -m xdsl.tools.xdsl_opt %examples/gemm.mlir -p '%{cuda:scheduled},lower-to-nvvm' | %python -m xdsl.tools.xdsl_opt -f tilepipe | filecheck %s

// Without the frontend, xDSL's own gpu dialect reads it, and has no custom form of
// gpu.launch_func or gpu.module.
// STOCK: Operation gpu.launch_func does not have a custom format.

// xdsl-opt runs tilepipe's passes down to the lowered level and reads it back.
// CHECK-LABEL: gpu.module @tilepipe_kernels {
// CHECK-NEXT:    gpu.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 8, 1>, tilepipe.dynamic_shared_memory = 98304 : i64} {
// CHECK:           gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           "vector.store"({{.*}}) <{alignment = 8 : i64}>
// CHECK:           gpu.return
