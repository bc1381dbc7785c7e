// RUN: tile-opt %s --split-input-file --verify-diagnostics -p thread-sync

// thread-sync never emits a kernel it knows to be racy: a hazard that no sync it may
// place can order is a located error (see also nonuniform.mlir and tma.mlir).

// A read of cp.async data before the copy's group is committed: no wait_group can
// land the copy there.
func.func @read_before_commit(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %t = pipeline.async_copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  // expected-error @+1 {{'tile.copy' op touches bytes an async copy writes before that copy's group is committed on every path (RAW pipeline.async_copy (line 11) -> tile.copy (line 13) on %s); no wait_group can land the copy}}
  tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  pipeline.commit_group [%t]
  func.return
}

// -----

// Two copies into the same bytes in one group: the second cannot wait for the first.
func.func @rewrite_in_one_group(%A: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %t0 = pipeline.async_copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  // expected-error @+1 {{'pipeline.async_copy' op touches bytes an async copy writes before that copy's group is committed on every path (WAW pipeline.async_copy (line 24) -> pipeline.async_copy (line 26) on %s)}}
  %t1 = pipeline.async_copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  pipeline.commit_group [%t0, %t1]
  pipeline.wait_group 0
  func.return
}
