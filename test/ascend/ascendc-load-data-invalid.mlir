// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s
// An L1 -> L0B LoadData transposes each fractal (ifTranspose), which CANN's LoadData
// (2D) supports for 16-bit elements only: an f32 B operand is a diagnostic.

// CHECK: ascendc-load-data-invalid.mlir:[[# @LINE + 4]]:3: error: 'ascend.load_data' op an L1 -> L0B LoadData transposes its fractals, which the hardware does for 16-bit elements only
func.func @load_b_f32() attributes {tile.target = "ascend910b"} {
  %b_l1 = memref.alloc() : memref<64x64xf32, "l1">
  %b_l0b = memref.alloc() : memref<64x64xf32, "l0b">
  ascend.load_data<64x64> %b_l1 -> %b_l0b : memref<64x64xf32, "l1"> -> memref<64x64xf32, "l0b">
  func.return
}
