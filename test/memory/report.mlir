// The layout report: JSON (to stderr or a file) and the SVG picture.

// RUN: tile-opt %s -p 'merge-shared-memory{report=json}' 2>&1 >/dev/null | filecheck %s --check-prefix=JSON
// RUN: tile-opt %s -p 'merge-shared-memory{report=json report-file="%t.json" report-svg="%t.svg"}' >/dev/null
// RUN: %python -c "import json, sys; a = json.load(open(sys.argv[1]))['arenas'][0]; print(a['arena_bytes'], a['no_reuse_bytes'], a['peak_live_bytes'], [(b['name'], b['offset']) for b in a['buffers']])" %t.json | filecheck %s --check-prefix=FILE
// RUN: filecheck %s --check-prefix=SVG < %t.svg

// JSON:      "arenas": [
// JSON:        "function": "gemm_epilogue",
// JSON-NEXT:   "space": "shared",
// JSON-NEXT:   "target": "sm_90",
// JSON-NEXT:   "budget": 232448,
// JSON-NEXT:   "reuse": true,
// JSON-NEXT:   "arena_bytes": 65536,
// JSON-NEXT:   "no_reuse_bytes": 98304,
// JSON-NEXT:   "peak_live_bytes": 65536,
// JSON-NEXT:   "fits": true,
// JSON:          "name": "A_shared",
// JSON-NEXT:     "interval": [
// JSON:          "versions": 2,
// JSON-NEXT:     "bytes_per_version": 16384,
// JSON-NEXT:     "bytes": 32768,
// JSON-NEXT:     "alignment": 16,
// JSON-NEXT:     "offset": 0

// FILE: 65536 98304 65536 [('A_shared', 0), ('B_shared', 32768), ('C_shared', 0)]

// SVG:      <svg xmlns="http://www.w3.org/2000/svg"
// SVG:      @gemm_epilogue shared: arena 65536 B, peak live 65536 B, budget 232448 B
// SVG:      <rect {{.*}}><title>A_shared 2x16384 @0</title></rect>
// SVG:      <rect {{.*}}><title>B_shared 2x16384 @32768</title></rect>
// SVG:      <rect {{.*}}><title>C_shared 1x32768 @0</title></rect>
// SVG:      </svg>

func.func @gemm_epilogue(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                         %C: memref<1024x1024xf16>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64,
                tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_shared = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x128x64xf16, "shared">
  %B_shared = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x64x128xf16, "shared">
  %C_shared = memref.alloc() : memref<128x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %A[%c0, %c0] -> %A_shared[%c0, %c0, %c0] : memref<1024x1024xf16> -> memref<2x128x64xf16, "shared">
  tile.copy<64x128> %B[%c0, %c0] -> %B_shared[%c0, %c0, %c0] : memref<1024x1024xf16> -> memref<2x64x128xf16, "shared">
  scf.for %k = %c0 to %c15 step %c1 {
    %next = arith.addi %k, %c1 : index
    %k0 = arith.muli %next, %c64 : index
    %write_slot = arith.remui %next, %c2 : index
    %read_slot = arith.remui %k, %c2 : index
    tile.copy<128x64> %A[%c0, %k0] -> %A_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<2x128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %c0] -> %B_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<2x64x128xf16, "shared">
    tile.gemm<128x128x64> %A_shared[%read_slot, %c0, %c0], %B_shared[%read_slot, %c0, %c0] -> %C_f : memref<2x128x64xf16, "shared">, memref<2x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.gemm<128x128x64> %A_shared[%c1, %c0, %c0], %B_shared[%c1, %c0, %c0] -> %C_f : memref<2x128x64xf16, "shared">, memref<2x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.cast<128x128> %C_f -> %C_shared : memref<128x128xf32, "fragment"> -> memref<128x128xf16, "shared">
  tile.copy<128x128> %C_shared -> %C[%c0, %c0] : memref<128x128xf16, "shared"> -> memref<1024x1024xf16>
  func.return
}
