// The wgmma ops of the nvvm subset (dialects/nvvm_wgmma.py) print and parse: fence,
// commit and wait in upstream MLIR 22.1.8's custom form, mma_async in the generic
// form (upstream reads both), and print -> parse -> print is a fixed point.
// RUN: tile-opt %s | filecheck %s
// RUN: tile-opt %s | tile-opt - | filecheck %s

!acc = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>

// CHECK-LABEL: func.func @chain(
// CHECK:         nvvm.wgmma.fence.aligned
// CHECK-NEXT:    %[[D:.*]] = "nvvm.wgmma.mma_async"(%{{.*}}, %{{.*}}, %{{.*}}) <{shape = #nvvm.shape<m = 64, n = 16, k = 16>, typeA = #nvvm.wgmma_type<bf16>, typeB = #nvvm.wgmma_type<bf16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<zero>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}> : (!llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, i64, i64) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 1
func.func @chain(%acc: !acc, %a: i64, %b: i64) -> !acc {
  nvvm.wgmma.fence.aligned
  %d = "nvvm.wgmma.mma_async"(%acc, %a, %b) <{shape = #nvvm.shape<m = 64, n = 16, k = 16>, typeA = #nvvm.wgmma_type<bf16>, typeB = #nvvm.wgmma_type<bf16>, typeD = #nvvm.wgmma_type<f32>, scaleD = #nvvm.wgmma_scale_out<zero>, scaleA = #nvvm.wgmma_scale_in<one>, scaleB = #nvvm.wgmma_scale_in<one>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>}> : (!acc, i64, i64) -> !acc
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 1
  func.return %d : !acc
}
