// An async copy still in flight and a tile op writing the same tile (WAW); after the
// wait the same-mapping fill needs no barrier (thread t waited for its own copies).
// RUN: not tile-run %s -f racy --check-races --quiet 2>&1 | filecheck %s
// RUN: tile-run %s -f correct --check-races --quiet

func.func @racy(%A: memref<64x32xf16>, %C: memref<64x32xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %one = arith.constant 1.000000e+00 : f16
  %S = memref.alloc() : memref<64x32xf16, "shared">
  %t = pipeline.async_copy<64x32> %A -> %S : memref<64x32xf16> -> memref<64x32xf16, "shared">
  pipeline.commit_group [%t]
  tile.fill<64x32> %one -> %S : f16 -> memref<64x32xf16, "shared">
  pipeline.wait_group 0
  tile.copy<64x32> %S -> %C : memref<64x32xf16, "shared"> -> memref<64x32xf16>
  func.return
}

func.func @correct(%A: memref<64x32xf16>, %C: memref<64x32xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %one = arith.constant 1.000000e+00 : f16
  %S = memref.alloc() : memref<64x32xf16, "shared">
  %t = pipeline.async_copy<64x32> %A -> %S : memref<64x32xf16> -> memref<64x32xf16, "shared">
  pipeline.commit_group [%t]
  pipeline.wait_group 0
  tile.fill<64x32> %one -> %S : f16 -> memref<64x32xf16, "shared">
  tile.copy<64x32> %S -> %C : memref<64x32xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// CHECK:      race (WAW) on %S[0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}waw.mlir:10:3
// CHECK-NEXT:   second: write by thread 0 in 'tile.fill' at {{.*}}waw.mlir:12:3
// CHECK-NEXT:   no barrier, wait or mbarrier phase orders them
// CHECK-NEXT: tile-run: 1 race(s) found
