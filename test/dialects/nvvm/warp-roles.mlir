// The warp-role ops of the nvvm subset (sm_90a), in upstream MLIR 22's spelling:
// setmaxnreg's custom form and its properties in the generic form, elect.sync.
// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip
// RUN: tile-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @roles
// CHECK-NEXT:    nvvm.setmaxregister decrease 24
// CHECK-NEXT:    nvvm.setmaxregister increase 240
// CHECK-NEXT:    %{{.*}} = nvvm.elect.sync -> i1
// GENERIC:       "nvvm.setmaxregister"() <{action = #nvvm<action decrease>, regCount = 24 : i32}> : () -> ()
// GENERIC:       "nvvm.elect.sync"() : () -> i1
func.func @roles() {
  nvvm.setmaxregister decrease 24
  nvvm.setmaxregister increase 240
  %leader = nvvm.elect.sync -> i1
  func.return
}
