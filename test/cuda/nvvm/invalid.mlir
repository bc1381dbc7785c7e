// lower-to-nvvm rejects what it cannot lower with one located error each.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-nvvm

// expected-error @+1 {{lower-to-nvvm needs a CUDA target, got 'ascend910b'}}
func.func @ascend_kernel() attributes {tile.target = "ascend910b"} {
  func.return
}

// -----

// expected-error @+1 {{needs 200704 bytes of shared memory, sm_80 has 166912 per block}}
func.func @over_budget() attributes {tile.target = "sm_80"} {
  %big = memref.alloc() : memref<100352xf16, "shared">
  func.return
}

// -----

func.func @bulk_copy_on_sm80(%A: memref<1024x1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{bulk (TMA) copies need sm_90; target sm_80 has no TMA}}
  pipeline.bulk_copy<64x64> %A[%c0, %c0] -> %A_s, %bars[%c0] : memref<1024x1024xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  func.return
}

// -----

func.func @reduce_fragment_rows_across_warps() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %f = memref.alloc() : memref<64x48xf32, "fragment">
  %m = memref.alloc() : memref<64xf32, "shared">
  // expected-error @+1 {{the rows of this register fragment are spread over several warps; copy the tile to shared memory first}}
  tile.reduce<64x48> sum %f -> %m axis 1 : memref<64x48xf32, "fragment"> -> memref<64xf32, "shared">
  func.return
}

// -----

func.func @reduce_fragment_columns() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %f = memref.alloc() : memref<64x32xf32, "fragment">
  %m = memref.alloc() : memref<32xf32, "shared">
  // expected-error @+1 {{a register fragment is reduced along its rows into shared or global memory only; copy the tile to shared memory first}}
  tile.reduce<64x32> sum %f -> %m axis 0 : memref<64x32xf32, "fragment"> -> memref<32xf32, "shared">
  func.return
}

// -----

func.func @accumulator_not_the_tile() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<128x64xf32, "fragment">
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a tensor-core accumulator must be exactly the 64x64 tile, got memref<128x64xf32, "fragment">}}
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f[%c0, %c0] : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<128x64xf32, "fragment">
  func.return
}

// -----

func.func @expect_tx_on_sm80() attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{mbarrier transaction counts need sm_90 (TMA); target sm_80 has no mbarrier.expect_tx}}
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
  func.return
}

// -----

func.func @bulk_copy_unaligned_rows(%A: memref<1024x1024xf16>) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x4xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{bulk copies move 16-byte aligned rows; cannot prove that for rows of 4 x 2 bytes at these offsets}}
  pipeline.bulk_copy<64x4> %A[%c0, %c0] -> %A_s, %bars[%c0] : memref<1024x1024xf16> -> memref<64x4xf16, "shared">, memref<1xi64, "shared">
  func.return
}

// -----

// f16/bf16 gemms run on tensor cores only; a tile that does not split into
// m16n8k16 blocks over the warps is an error, not a silent scalar path.
func.func @tile_does_not_split() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<48x16xf16, "shared">
  %B_s = memref.alloc() : memref<16x48xf16, "shared">
  %C_f = memref.alloc() : memref<48x48xf32, "fragment">
  // expected-error @+1 {{f16 gemms run on tensor cores (mma.sync m16n8k16), but no grid of its 4 warps tiles 48x48 into whole 16x8 blocks (each warp's rows a multiple of 16, its columns of 8); choose a tile that splits, or f32 for the scalar path}}
  tile.gemm<48x48x16> %A_s, %B_s -> %C_f : memref<48x16xf16, "shared">, memref<16x48xf16, "shared"> -> memref<48x48xf32, "fragment">
  func.return
}

// -----

func.func @k_does_not_split() attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %A_s = memref.alloc() : memref<64x24xbf16, "shared">
  %B_s = memref.alloc() : memref<24x64xbf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  // expected-error @+1 {{bf16 gemms run on tensor cores (mma.sync m16n8k16), but K = 24 is not a multiple of 16; choose a tile that splits, or f32 for the scalar path}}
  tile.gemm<64x64x24> %A_s, %B_s -> %C_f : memref<64x24xbf16, "shared">, memref<24x64xbf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// ldmatrix reads 16-byte rows: a gemm operand at a column that is no multiple of 8
// f16 elements cannot be read by it (and the hardware faults on it).
func.func @ldmatrix_unaligned() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  // expected-error @+1 {{ldmatrix reads 16-byte rows: a must be rows of a multiple of 8 elements at a column offset that is provably a multiple of 8}}
  tile.gemm<64x64x32> %A_s[%c0, %c4], %B_s -> %C_f : memref<64x64xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}
