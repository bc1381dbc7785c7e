// fuzz-2026-12/memref_cast_shared_lowering.mlir: lower-to-nvvm moved the shared
// buffer to address space 3 but left the memref.cast typed "shared", and upstream MLIR
// rejected the module.  Every value derived from a shared buffer is converted now
// (test/cuda/nvvm/memory-space-conversion.mlir has subview and reinterpret_cast).

// RUN: tilepipe compile %s --target sm_80 -o %t.ptx 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: filecheck %s < %t.ptx

// SUMMARY: upstream MLIR {{.*}} passes to ptx
// CHECK: .visible .entry k(
// CHECK: ld.shared
func.func @k(%G: memref<1024xf16>) attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<64xf16, "shared">
  %a_any = "memref.cast"(%a) : (memref<64xf16, "shared">) -> memref<?xf16, "shared">
  tile.copy<64> %G[%c0] -> %a : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %a_any[%c0] -> %G[%c0] : memref<?xf16, "shared"> -> memref<1024xf16>
  func.return
}
