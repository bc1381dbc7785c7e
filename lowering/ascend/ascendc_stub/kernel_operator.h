// Declarations of the AscendC API surface tilepipe emits, for `g++ -fsyntax-only`.
//
// tilepipe's AscendC printer (lowering/ascendc.py) is checked by compiling its output
// against this header.  Every type, constructor, template parameter list and free
// function the printer emits is declared here as the public AscendC headers of CANN
// (the asc-devkit sources) declare it -- in particular the parameter structs are NOT
// aggregates: they have the real headers' constructors only, so an initializer the
// real headers reject is rejected here too.  The source of each declaration is noted
// next to it ("asc-devkit <file>"; "doc <page>" where only the API documentation was
// available; UNVERIFIED where neither gave the exact spelling -- see docs/ascend.md,
// "AscendC API surface").  Members and overloads tilepipe never emits are left out.
//
// It is NOT an implementation: nothing here can be linked or run, and it says nothing
// about the calls' behaviour -- tilepipe's pipe simulator does that.
#ifndef TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H
#define TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H

#include <cstdint>

// Function-space qualifiers of the bisheng compiler: empty under a host compiler, as
// in CANN's CPU-debug build.
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t *

using half = _Float16;  // a builtin type of the bisheng compiler
struct bfloat16_t { uint16_t bits; };  // a builtin type of the bisheng compiler

// pipe_t: a builtin enum of the bisheng compiler (CCE), declared by CANN's CPU-debug
// stub (stub_def.h).  UNVERIFIED: the values (unused here).
enum pipe_t {
  PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5,
  PIPE_ALL = 6, PIPE_MTE4 = 7, PIPE_MTE5 = 8, PIPE_V2 = 9, PIPE_FIX = 10,
};

// QuantMode_t: a builtin enum of the bisheng compiler (CCE), the fixpipe's
// quantization (doc asc_copy_l0c2gm: NoQuant, F322F16, F322BF16, DEQF16, ...); used
// as QuantMode_t::F322F16 by asc-devkit's conv/matmul code.  UNVERIFIED: the values.
enum class QuantMode_t : uint8_t { NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16 };

// Lock pool, 910B-class (dav-2201) targets: the CCE buffer-lock intrinsics
// `get_buf(pipe_t, bufId, bool mode)` / `rls_buf(...)`, which AscendC's own
// GetBufInternal/RlsBufInternal call on every arch (asc-devkit
// impl/basic_api/kernel_event.h; CPU stub tests/api/c_api/stub/cce_stub.h declares the
// id uint64_t, the mocks of tests/api/c_api/npu_arch_3510/sync uint8_t).
// mode: false = blocking, true = non-blocking (asc-devkit
// impl/c_api/instr_impl/npu_arch_3510/sync_impl/asc_lock_impl.h maps ASC_LOCK_BLOCK to
// get_buf(..., false) and ASC_LOCK_NON_BLOCK to get_buf(..., true)).
void get_buf(pipe_t pipe, uint8_t bufId, bool mode);
void rls_buf(pipe_t pipe, uint8_t bufId, bool mode);

// Lock pool, Ascend 950-class (dav-3510) targets: `asc_lock(pipe, mutex_id[, mode])` /
// `asc_unlock`, macros over get_buf/rls_buf in asc-devkit include/c_api/sync/sync.h
// (doc "asc_lock": "Atlas A2 ... not supported"), with the mode enum declared there.
enum ascMutexExecuteMode { ASC_LOCK_BLOCK = 0, ASC_LOCK_NON_BLOCK = 1 };
void asc_lock(pipe_t pipe, uint8_t mutex_id);
void asc_lock(pipe_t pipe, uint8_t mutex_id, ascMutexExecuteMode mode);
void asc_unlock(pipe_t pipe, uint8_t mutex_id);
void asc_unlock(pipe_t pipe, uint8_t mutex_id, ascMutexExecuteMode mode);

// Mixed cube + vector kernels: the task type (doc KERNEL_TASK_TYPE_DEFAULT; UNVERIFIED:
// the enum's values and the macro's expansion), and the core-type guards of the AIC
// and AIV sections with CANN's CPU-debug definitions, under which both sections are
// compiled.
enum KernelMetaType : int {
  KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIV_1_0, KERNEL_TYPE_MIX_AIC_1_0,
  KERNEL_TYPE_MIX_AIC_1_1, KERNEL_TYPE_MIX_AIC_1_2,
};
#define KERNEL_TASK_TYPE_DEFAULT(type) static_assert((type) >= 0, "kernel task type")

namespace AscendC {
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC
extern int32_t g_coreType;
#define ASCEND_IS_AIC (g_coreType == AscendC::AIC)
#define ASCEND_IS_AIV (g_coreType == AscendC::AIV)

namespace AscendC {

// HardEvent: asc-devkit impl/basic_api/kernel_event.h (included by the sync interface
// below); members as the doc SetFlag/WaitFlag lists them.  UNVERIFIED: the order
// (no emitted code depends on the values).
enum class HardEvent : uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
  MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2,
  MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S,
  FIX_MTE3,
};

// TPosition (doc TPosition, TBuf).  UNVERIFIED: the underlying values (unused here).
enum class TPosition : uint8_t {
  GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC,
};

// asc-devkit include/basic_api/kernel_operator_block_sync_intf.h.
template <HardEvent event> __aicore__ void SetFlag(int32_t eventID);
template <HardEvent event> __aicore__ void WaitFlag(int32_t eventID);
template <pipe_t pipe> __aicore__ void PipeBarrier();
template <uint8_t modeId, pipe_t pipe> __aicore__ void CrossCoreSetFlag(uint16_t flagId);
template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
__aicore__ void CrossCoreWaitFlag(uint16_t flagId);

// doc GetBlockIdx: `__aicore__ inline int64_t GetBlockIdx()`.
__aicore__ int64_t GetBlockIdx();

// asc-devkit include/basic_api/kernel_tensor.h (GlobalTensor, LocalTensor).
template <typename T> class GlobalTensor {
 public:
  __aicore__ void SetGlobalBuffer(__gm__ T *buffer);
  __aicore__ void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize);
  __aicore__ GlobalTensor operator[](const uint64_t offset) const;
};

template <typename T> class LocalTensor {
 public:
  __aicore__ LocalTensor operator[](const uint32_t offset) const;
};

// asc-devkit include/basic_api/kernel_tpipe.h (TBuf, TPipe::InitBuffer).
template <TPosition pos = TPosition::LCM> class TBuf {
 public:
  template <typename T> __aicore__ LocalTensor<T> Get();
};

class TPipe {
 public:
  __aicore__ TPipe();
  template <TPosition bufPos> __aicore__ bool InitBuffer(TBuf<bufPos> &buf, uint32_t bufLen);
};

// asc-devkit include/basic_api/kernel_struct_data_copy.h (DataCopyParams): counts and
// strides in 32-byte blocks.
struct DataCopyParams {
  __aicore__ DataCopyParams();
  __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                            const uint16_t dstStrideIn);
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;
  uint16_t srcStride = 0;
  uint16_t dstStride = 0;
};

// UB -> UB (doc "UBToUB连续数据搬运(DataCopy)", asc_copy_ub2ub: PIPE_V): a count of
// whole 32-byte blocks, or blocks with DataCopyParams.
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                         const uint32_t calCount);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                         const DataCopyParams &repeatParams);

// asc-devkit include/basic_api/kernel_struct_data_copy.h (Nd2NzParams): GM (ND) ->
// L1 (NZ) for the cube's operands.
struct Nd2NzParams {
  __aicore__ Nd2NzParams();
  __aicore__ Nd2NzParams(const uint16_t ndNumIn, const uint16_t nValueIn, const uint16_t dValueIn,
                         const uint16_t srcNdMatrixStrideIn, const uint16_t srcDValueIn,
                         const uint16_t dstNzC0StrideIn, const uint16_t dstNzNStrideIn,
                         const uint16_t dstNzMatrixStrideIn);
  uint16_t ndNum = 0;
  uint16_t nValue = 0;
  uint16_t dValue = 0;
  uint16_t srcNdMatrixStride = 0;
  uint16_t srcDValue = 0;
  uint16_t dstNzC0Stride = 0;
  uint16_t dstNzNStride = 0;
  uint16_t dstNzMatrixStride = 0;
};

// asc-devkit include/basic_api/kernel_operator_data_copy_intf.h (doc DataCopy: GM <->
// UB with a count or DataCopyParams; GM -> L1 with Nd2NzParams).
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dstLocal, const GlobalTensor<T> &srcGlobal,
                         const uint32_t calCount);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dstGlobal, const LocalTensor<T> &srcLocal,
                         const uint32_t calCount);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dstLocal, const GlobalTensor<T> &srcGlobal,
                         const DataCopyParams &repeatParams);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dstGlobal, const LocalTensor<T> &srcLocal,
                         const DataCopyParams &repeatParams);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dstLocal, const GlobalTensor<T> &srcGlobal,
                         const Nd2NzParams &intriParams);

// asc-devkit include/basic_api/kernel_struct_data_copy.h (DataCopyExtParams,
// DataCopyPadExtParams) and the DataCopyPad doc (ISASI): non-aligned GM <-> UB copies
// of blockCount blocks of blockLen bytes; a GM stride is a byte gap, a UB one a gap in
// 32-byte blocks; GM -> UB pads each block's last 32-byte block with paddingValue.
struct DataCopyExtParams {
  __aicore__ DataCopyExtParams();
  __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                               const uint32_t dstStrideIn, const uint32_t rsvIn);
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;
  uint32_t srcStride = 0;
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};
template <typename T>
struct DataCopyPadExtParams {
  __aicore__ DataCopyPadExtParams();
  __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                                  const uint8_t rightPadValue, T padValue);
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue;
};
template <typename T>
__aicore__ void DataCopyPad(const LocalTensor<T> &dstLocal, const GlobalTensor<T> &srcGlobal,
                            const DataCopyExtParams &dataCopyParams,
                            const DataCopyPadExtParams<T> &padParams);
template <typename T>
__aicore__ void DataCopyPad(const GlobalTensor<T> &dstGlobal, const LocalTensor<T> &srcLocal,
                            const DataCopyExtParams &dataCopyParams);

// asc-devkit include/basic_api/kernel_struct_mm.h (InitConstValueParams) and
// kernel_operator_mm_intf.h: fill an A1/B1 (L1) tensor with a value, repeatTimes
// iterations of blockNum 32-byte blocks, dstGap blocks apart.
template <typename T>
struct InitConstValueParams {
  __aicore__ InitConstValueParams();
  __aicore__ InitConstValueParams(const uint16_t repeatTimesIn, const uint16_t blockNumIn,
                                  const uint16_t dstGapIn, const T initValueIn);
  uint16_t repeatTimes = 0;
  uint16_t blockNum = 0;
  uint16_t dstGap = 0;
  T initValue;
};
template <typename T, typename U>
__aicore__ void InitConstValue(const LocalTensor<T> &dstLocal,
                               const InitConstValueParams<U> &initConstValueParams);

// asc-devkit include/basic_api/kernel_struct_mm.h (LoadData2DParams): L1 -> L0A/L0B
// (MTE1) in 512-byte fractals.
struct LoadData2DParams {
  __aicore__ LoadData2DParams();
  __aicore__ LoadData2DParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn,
                              const uint16_t srcStrideIn, const uint8_t sidIn,
                              const uint16_t dstGapIn, const bool ifTransposeIn,
                              const uint8_t addrModeIn);
  uint16_t startIndex = 0;
  uint16_t dstGap = 0;
  uint16_t srcStride = 0;
  bool ifTranspose = 0;
  uint8_t repeatTimes = 0;
  uint8_t sid = 0;
  uint8_t addrMode = 0;
};
// asc-devkit include/basic_api/kernel_operator_mm_intf.h (doc LoadData, 2D).
template <typename T>
__aicore__ void LoadData(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                         const LoadData2DParams &loadDataParams);

// asc-devkit include/basic_api/kernel_struct_mm.h (MmadParams): not an aggregate; a
// default, an 8-argument and a 6-argument constructor.
struct MmadParams {
  __aicore__ MmadParams();
  __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn,
                        const bool isBiasIn, const int32_t fmOffsetIn, const bool enSsparseIn,
                        const bool enWinogradAIn, const bool enWinogradBIn);
  __aicore__ MmadParams(const uint16_t mIn, const uint16_t nIn, const uint16_t kIn,
                        const uint8_t unitFlagIn, const bool cmatrixSourceIn,
                        const bool cmatrixInitValIn);
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;
  int32_t fmOffset = 0;
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;
  bool kDirectionAlign = false;
  bool cmatrixSource = false;
  bool cmatrixInitVal = true;
};
// asc-devkit include/basic_api/kernel_operator_mm_intf.h (doc Mmad).
template <typename T, typename U, typename S>
__aicore__ void Mmad(const LocalTensor<T> &dstLocal, const LocalTensor<U> &fmLocal,
                     const LocalTensor<S> &filterLocal, const MmadParams &mmadParams);

// asc-devkit include/basic_api/kernel_struct_fixpipe.h (FixpipeParamsV220): a default,
// a 5-argument (..., reluEn), an 11- and a 12-argument constructor; the 11-argument
// one sets quantPre (a converting move out of L0C); the 12-argument one (channel
// split) is not emitted and not declared.
struct FixpipeParamsV220 {
  __aicore__ FixpipeParamsV220();
  __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn,
                               const uint16_t srcStrideIn, const uint32_t dstStrideIn,
                               const bool reluEnIn);
  __aicore__ FixpipeParamsV220(const uint16_t nSizeIn, const uint16_t mSizeIn,
                               const uint16_t srcStrideIn, const uint32_t dstStrideIn,
                               const bool reluEnIn, const QuantMode_t quantPreIn,
                               const int64_t deqScalarIn, const uint16_t ndNumIn,
                               const uint16_t srcNdStrideIn, const uint16_t dstNdStrideIn,
                               const uint8_t unitFlagIn);
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
};
// asc-devkit include/basic_api/kernel_struct_fixpipe.h (FixpipeConfig; CFG_ROW_MAJOR:
// NZ in L0C -> ND in GM; CFG_NZ: NZ kept, into L1 for the cube) and
// kernel_operator_fixpipe_intf.h (doc Fixpipe, L0C -> GM and L0C -> L1).
enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig { CO2Layout format; };
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
__aicore__ void Fixpipe(const GlobalTensor<T> &dstGlobal, const LocalTensor<U> &srcLocal,
                        const FixpipeParamsV220 &intriParams);
template <typename T, typename U, const FixpipeConfig &config = CFG_ROW_MAJOR>
__aicore__ void Fixpipe(const LocalTensor<T> &dstLocal, const LocalTensor<U> &srcLocal,
                        const FixpipeParamsV220 &intriParams);

// Vector unit (V), on UB tensors: asc-devkit include/basic_api/kernel_operator_vec_
// binary_intf.h (Add, Sub, Mul, Max), kernel_operator_vec_unary_intf.h (Exp) and
// kernel_operator_vec_duplicate_intf.h (Duplicate), the count forms.
template <typename T>
__aicore__ void Add(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, const int32_t &calCount);
template <typename T>
__aicore__ void Sub(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, const int32_t &calCount);
template <typename T>
__aicore__ void Mul(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, const int32_t &calCount);
template <typename T>
__aicore__ void Max(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, const int32_t &calCount);
template <typename T, bool isReuseSource = false>
__aicore__ void Exp(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                    const int32_t &calCount);
template <typename T>
__aicore__ void Duplicate(const LocalTensor<T> &dstLocal, const T &scalarValue,
                          const int32_t &calCount);

// Ln, Sqrt, Rsqrt (kernel_operator_vec_unary_intf.h), Adds
// (kernel_operator_vec_binary_scalar_intf.h), CreateVecIndex
// (kernel_operator_vec_createvecindex_intf.h), Compare, CompareScalar
// (kernel_operator_vec_cmpsel_intf.h: a bit per element into U = uint8_t) and Select
// (the same header: mode 1 tensor/scalar, mode 2 tensor/tensor), the count forms.
template <typename T>
__aicore__ void Ln(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                   const int32_t &calCount);
template <typename T>
__aicore__ void Sqrt(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                     const int32_t &calCount);
template <typename T>
__aicore__ void Rsqrt(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                      const int32_t &calCount);
template <typename T, bool isSetMask = true>
__aicore__ void Adds(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                     const T &scalarValue, const int32_t &calCount);
template <typename T>
__aicore__ void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t count);

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t {
  VSEL_CMPMASK_SPR = 0,
  VSEL_TENSOR_SCALAR_MODE,
  VSEL_TENSOR_TENSOR_MODE,
};

template <typename T, typename U>
__aicore__ void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                        const LocalTensor<T> &src1, CMPMODE cmpMode, uint32_t count);
template <typename T, typename U>
__aicore__ void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0,
                              const T src1Scalar, CMPMODE cmpMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, T src1, SELMODE selMode, uint32_t count);
template <typename T, typename U>
__aicore__ void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask,
                       const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                       SELMODE selMode, uint32_t count);

// Div (kernel_operator_vec_binary_intf.h, the count form of the 910B class).
template <typename T>
__aicore__ void Div(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, const int32_t &calCount);

// Cast (kernel_operator_vec_vconv_intf.h, Level 2) and RoundMode
// (impl/basic_api/utils/kernel_utils_mode.h; doc Cast: CAST_NONE converts exactly or
// as CAST_RINT, CAST_RINT rounds to nearest even, CAST_TRUNC toward zero).
enum class RoundMode : uint8_t {
  CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD,
};
template <typename T, typename U>
__aicore__ void Cast(const LocalTensor<T> &dst, const LocalTensor<U> &src,
                     const RoundMode &roundMode, const uint32_t count);

// The saturation mode of half/bf16 results (kernel_base_types.h SaturationMode,
// kernel_operator_common_intf.h SetSaturationFlag; doc SetSaturationFlag(ISASI):
// FLOAT off keeps inf/NaN).
enum class SaturationMode : uint8_t { FLOAT, FLOAT8, INT, CAST };
template <SaturationMode mode> __aicore__ void SetSaturationFlag(bool enableSat);

// Level-0 Add/Max with a continuous mask and BinaryRepeatParams
// (kernel_operator_vec_binary_intf.h, kernel_struct_binary.h; strides in 32-byte
// blocks, uint8_t): the strided row steps of a reduction.
struct BinaryRepeatParams {
  __aicore__ BinaryRepeatParams();
  __aicore__ BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn,
                                const uint8_t src1BlkStrideIn, const uint8_t dstRepStrideIn,
                                const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn);
  uint32_t blockNumber = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};
template <typename T, bool isSetMask = true>
__aicore__ void Add(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);
template <typename T, bool isSetMask = true>
__aicore__ void Max(const LocalTensor<T> &dstLocal, const LocalTensor<T> &src0Local,
                    const LocalTensor<T> &src1Local, uint64_t mask, const uint8_t repeatTime,
                    const BinaryRepeatParams &repeatParams);

// Brcb (kernel_operator_vec_brcb_intf.h, kernel_struct_brcb.h): each of 8 elements per
// repeat fills one 32-byte block; and the Level-0 Adds with UnaryRepeatParams
// (kernel_operator_vec_binary_scalar_intf.h, kernel_struct_unary.h): the broadcast's
// strided copies.
struct BrcbRepeatParams {
  __aicore__ BrcbRepeatParams();
  __aicore__ BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn);
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = 8;
  uint16_t dstBlkStride = 1;
};
template <typename T>
__aicore__ void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src0,
                     const uint8_t repeatTime, const BrcbRepeatParams &repeatParams);
struct UnaryRepeatParams {
  __aicore__ UnaryRepeatParams();
  __aicore__ UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn,
                               const uint8_t dstRepStrideIn, const uint8_t srcRepStrideIn);
  uint32_t blockNumber = 8;
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
};
template <typename T, bool isSetMask = true>
__aicore__ void Adds(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
                     const T &scalarValue, uint64_t mask, const uint8_t repeatTime,
                     const UnaryRepeatParams &repeatParams);

// BlockReduceSum/BlockReduceMax, the mask-count form (kernel_operator_vec_reduce_intf.h
// before its ReduceDataBlock rewrite; doc ReduceDataBlock: each 32-byte block reduced
// as a binary tree, results written next to each other).
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const int32_t mask,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);
template <typename T, bool isSetMask = true>
__aicore__ void BlockReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                               const int32_t repeatTime, const int32_t mask,
                               const int32_t dstRepStride, const int32_t srcBlkStride,
                               const int32_t srcRepStride);

}  // namespace AscendC

#endif  // TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H
