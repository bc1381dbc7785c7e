// The pipeline report of the chapter's GEMM (§7.1 observations A and B).
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline{report=text}' 2>&1 | filecheck %s --check-prefix=TEXT
// RUN: sed 's/num_stages = 3/num_stages = 1/' %examples/gemm.mlir | tile-opt -p 'pipeline-planning,inject-software-pipeline{report=text}' 2>&1 | filecheck %s --check-prefix=TIGHT
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline{report=json}' 2>&1 | filecheck %s --check-prefix=JSON
// RUN: not tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline{report=yaml}' 2>&1 | filecheck %s --check-prefix=BAD

// TEXT:      pipeline.for at {{.*}}gemm.mlir:{{[0-9]+}}:{{[0-9]+}}: depth 3, max stage 2
// TEXT-NEXT:   stage = [0, 0, 2]  order = [0, 1, 2]
// TEXT-NEXT:   statements (stage, order):
// TEXT-NEXT:     tile.copy -> %A_s  (0, 0)
// TEXT-NEXT:     tile.copy -> %B_s  (0, 1)
// TEXT-NEXT:     tile.gemm -> %C_f  (2, 2)
// TEXT-NEXT:   buffers:
// TEXT-NEXT:     %A_s  memref<128x64xf16, "shared">  def 0  use 2  use-def+1 3  versions 3
// TEXT-NEXT:     %B_s  memref<64x128xf16, "shared">  def 0  use 2  use-def+1 3  versions 3
// TEXT-NEXT:     %C_f  memref<128x128xf32, "fragment">  def 2  use 2  use-def+1 1  versions 1
// TEXT:      memref.alloc() : memref<3x128x64xf16, "shared">

// TIGHT:     depth 1, max stage 1
// TIGHT:     stage = [0, 0, 1]  order = [1, 2, 0]
// TIGHT:     %A_s  memref<128x64xf16, "shared">  def 0  use 1  use-def+1 2  versions 1  (tightened: no writer/reader pair crosses stages in order)

// JSON:      "pipelined_loops": [
// JSON:          "depth": 3,
// JSON:          "stage": [
// JSON-NEXT:       0,
// JSON-NEXT:       0,
// JSON-NEXT:       2
// JSON:          "buffers": [
// JSON-NEXT:       {
// JSON-NEXT:         "buffer": "%A_s",
// JSON-NEXT:         "type": "memref<128x64xf16, \"shared\">",
// JSON-NEXT:         "def_stage": 0,
// JSON-NEXT:         "use_stage": 2,
// JSON-NEXT:         "upper_bound": 3,
// JSON-NEXT:         "versions": 3,
// JSON-NEXT:         "tightened": false

// BAD: report must be one of none, text, json, got 'yaml'
