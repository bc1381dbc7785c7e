// RUN: tile-opt %s --split-input-file --verify-diagnostics -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync

func.func @nested_guards(%x: memref<64xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    scf.if %p {
      scf.if %p {
        // expected-error @+1 {{must be a statement of its pipelined loop or of an scf.if or an scf.for in it}}
        tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
      }
    }
  }
  func.return
}

// -----

func.func @guard_outside_loops(%x: memref<64xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<64xf16, "ub">
  scf.if %p {
    // expected-error @+1 {{must be at the kernel's top level or in a pipelined loop}}
    tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
  }
  func.return
}

// -----

func.func @cross_core_in_inner_loop(%W: memref<16x16xf32>, %m: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  %w = memref.alloc() : memref<16x16xf32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 1 {
    scf.for %j = %c0 to %m step %c1 {
      // expected-error @+1 {{depends on another core's op in the same inner loop; cross-core sync inside an inner loop is not supported}}
      tile.copy<16x16> %c -> %W : memref<16x16xf32, "l0c"> -> memref<16x16xf32>
      tile.copy<16x16> %W -> %w : memref<16x16xf32> -> memref<16x16xf32, "ub">
    }
  }
  func.return
}
