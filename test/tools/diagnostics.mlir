// tile-opt reports bad input as one located diagnostic with exit status 1.
// RUN: not tile-opt %s 2>&1 | filecheck %s
// RUN: not tile-opt %s.missing 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not tile-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not tile-opt %s -p 'thread-sync{bogus=1}' 2>&1 | filecheck %s --check-prefix=OPTION

// CHECK: diagnostics.mlir:[[# @LINE + 3]]:3: error: 'tile.copy' op dst region [0, 128) is out of bounds in dimension 0 of size 64
func.func @f(%A: memref<128x64xf16>) {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<128x64> %A -> %s : memref<128x64xf16> -> memref<64x64xf16, "shared">
  func.return
}

// MISSING: tile-opt: error: cannot read '{{.*}}diagnostics.mlir.missing': No such file or directory
// PASS-NOT: Traceback
// PASS: tile-opt: error: bad pass pipeline 'no-such-pass': Unrecognized passes: ['no-such-pass']
// OPTION-NOT: Traceback
// OPTION: tile-opt: error: bad pass pipeline 'thread-sync{bogus=1}': Provided arguments ["bogus"] not found
