// The wgmma verifier: tilepipe models m64nNk16 with N a multiple of 8 up to 256, an
// f32 accumulator of N/2 registers, A and B both f16 or both bf16.
// RUN: tile-opt %s --split-input-file --verify-diagnostics

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>

func.func @wrong_m(%acc: !acc, %a: i64, %b: i64) {
  // expected-error @+1 {{tilepipe models m64nNk16 (N a multiple of 8 up to 256), got [32, 16, 16]}}
  %d = "nvvm.wgmma.mma_async"(%acc, %a, %b) <{shape = #nvvm.shape<m = 32, n = 16, k = 16>, typeA = #nvvm.wgmma_type<f16>, typeB = #nvvm.wgmma_type<f16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<one>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}> : (!acc, i64, i64) -> !acc
  func.return
}

// -----

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>

func.func @short_accumulator(%acc: !acc, %a: i64, %b: i64) {
  // expected-error @+1 {{the accumulator must be !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>}}
  %d = "nvvm.wgmma.mma_async"(%acc, %a, %b) <{shape = #nvvm.shape<m = 64, n = 32, k = 16>, typeA = #nvvm.wgmma_type<f16>, typeB = #nvvm.wgmma_type<f16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<one>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}> : (!acc, i64, i64) -> !acc
  func.return
}

// -----

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>

func.func @mixed_inputs(%acc: !acc, %a: i64, %b: i64) {
  // expected-error @+1 {{A and B must both be f16 or both bf16}}
  %d = "nvvm.wgmma.mma_async"(%acc, %a, %b) <{shape = #nvvm.shape<m = 64, n = 16, k = 16>, typeA = #nvvm.wgmma_type<f16>, typeB = #nvvm.wgmma_type<bf16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<one>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}> : (!acc, i64, i64) -> !acc
  func.return
}

// -----

func.func @negative_wait() {
  // expected-error @+1 {{the group count must be non-negative}}
  nvvm.wgmma.wait.group.sync.aligned -1
  func.return
}
