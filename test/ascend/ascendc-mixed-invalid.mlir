// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s
// In a mixed cube + vector kernel a sync op on a pipe of both cores (MTE2, S, ALL) must
// name its core: the printer cannot tell which section it belongs to.

// CHECK: ascendc-mixed-invalid.mlir:[[# @LINE + 7]]:3: error: 'ascend.pipe_barrier' op runs on a pipe of both cores in a mixed kernel; name its core with ascend.core
func.func @mixed(%W: memref<64x64xf32>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<64x64xf32, "l0c">
  %u = memref.alloc() : memref<64x64xf32, "ub">
  ascend.fixpipe<64x64> %c -> %W : memref<64x64xf32, "l0c"> -> memref<64x64xf32>
  ascend.cross_core_set_flag[2, FIX] 0
  ascend.cross_core_wait_flag[2, MTE2] 0 {ascend.core = "vector"}
  ascend.pipe_barrier[MTE2]
  ascend.data_copy<64x64> %W -> %u : memref<64x64xf32> -> memref<64x64xf32, "ub">
  func.return
}
