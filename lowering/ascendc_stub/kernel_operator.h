// Declarations-only stand-in for AscendC's kernel_operator.h, for syntax checking.
//
// tilepipe's AscendC printer (lowering/ascendc.py) is checked by compiling its output
// with `g++ -fsyntax-only` against this header.  It declares exactly the AscendC API
// surface the printer uses, with the signatures of the CANN documentation, so the check
// proves the *shape* of every call (names, template arguments, argument counts and
// types).  It is NOT an implementation: nothing here can be linked or run, and it says
// nothing about the calls' behaviour -- tilepipe's pipe simulator does that.
#ifndef TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H
#define TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H

#include <cstdint>

#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t *

using half = _Float16;
struct bfloat16_t { uint16_t bits; };

enum pipe_t : int {
  PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5,
  PIPE_ALL = 6, PIPE_FIX = 10,
};

// The lock pool the flag budget spills to.
enum asc_lock_mode_t : int { ASC_LOCK_BLOCK = 0, ASC_LOCK_NON_BLOCK = 1 };
void asc_lock(pipe_t pipe, int64_t slot, asc_lock_mode_t mode);
void asc_unlock(pipe_t pipe, int64_t slot, asc_lock_mode_t mode);

// Mixed cube + vector kernels: the task type, and the core-type guards of the AIC and
// AIV sections (the CPU-debug definitions, under which both sections are compiled).
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

enum class HardEvent : int {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V,
  MTE3_MTE1, MTE1_MTE3, MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2,
  MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S,
  FIX_MTE3,
};

enum class TPosition : int {
  GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC,
};

template <HardEvent event> __aicore__ void SetFlag(int32_t eventID);
template <HardEvent event> __aicore__ void WaitFlag(int32_t eventID);
template <pipe_t pipe> __aicore__ void PipeBarrier();
template <uint8_t modeId, pipe_t pipe> __aicore__ void CrossCoreSetFlag(uint16_t flagId);
template <uint8_t modeId, pipe_t pipe> __aicore__ void CrossCoreWaitFlag(uint16_t flagId);

__aicore__ int64_t GetBlockIdx();

template <typename T> class GlobalTensor {
 public:
  __aicore__ void SetGlobalBuffer(__gm__ T *buffer);
  __aicore__ GlobalTensor operator[](uint64_t offset) const;
};

template <typename T> class LocalTensor {
 public:
  __aicore__ LocalTensor operator[](uint64_t offset) const;
};

template <TPosition position> class TBuf {
 public:
  template <typename T> __aicore__ LocalTensor<T> Get();
};

class TPipe {
 public:
  __aicore__ TPipe();
  template <TPosition position> __aicore__ bool InitBuffer(TBuf<position> &buf, uint32_t bytes);
};

// DataCopy: GM -> L1/UB (MTE2), UB -> GM (MTE3); strided forms count 32-byte blocks.
struct DataCopyParams {
  uint16_t blockCount;
  uint16_t blockLen;
  uint16_t srcStride;
  uint16_t dstStride;
};
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint32_t count);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint32_t count);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src,
                         const DataCopyParams &params);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src,
                         const DataCopyParams &params);

// LoadData: L1 -> L0A/L0B (MTE1), in 512-byte fractals.
struct LoadData2DParams {
  uint16_t startIndex;
  uint8_t repeatTimes;
  uint16_t srcStride;
  uint8_t sid;
  uint16_t dstGap;
  bool ifTranspose;
  uint8_t addrMode;
};
template <typename T>
__aicore__ void LoadData(const LocalTensor<T> &dst, const LocalTensor<T> &src,
                         const LoadData2DParams &params);

// Mmad: L0C (+)= L0A x L0B (M).
struct MmadParams {
  uint16_t m;
  uint16_t n;
  uint16_t k;
  bool isBias;
  int32_t fmOffset;
  bool enSsparse;
  bool enWinogradA;
  bool enWinogradB;
  uint8_t unitFlag;
  bool kDirectionAlign;
  bool cmatrixSource;
  bool cmatrixInitVal;
};
template <typename DstT, typename SrcT>
__aicore__ void Mmad(const LocalTensor<DstT> &dst, const LocalTensor<SrcT> &a,
                     const LocalTensor<SrcT> &b, const MmadParams &params);

// Fixpipe: L0C -> GM/L1 (FIX).
struct FixpipeParamsV220 {
  uint16_t nSize;
  uint16_t mSize;
  uint16_t srcStride;
  uint32_t dstStride;
};
template <typename DstT, typename SrcT>
__aicore__ void Fixpipe(const GlobalTensor<DstT> &dst, const LocalTensor<SrcT> &src,
                        const FixpipeParamsV220 &params);
template <typename DstT, typename SrcT>
__aicore__ void Fixpipe(const LocalTensor<DstT> &dst, const LocalTensor<SrcT> &src,
                        const FixpipeParamsV220 &params);

// Vector unit (V), on UB tensors.
template <typename T>
__aicore__ void Add(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                    const int32_t &count);
template <typename T>
__aicore__ void Sub(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                    const int32_t &count);
template <typename T>
__aicore__ void Mul(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                    const int32_t &count);
template <typename T>
__aicore__ void Max(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
                    const int32_t &count);
template <typename T>
__aicore__ void Exp(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count);
template <typename T>
__aicore__ void Duplicate(const LocalTensor<T> &dst, const T &value, const int32_t &count);

}  // namespace AscendC

#endif  // TILEPIPE_ASCENDC_STUB_KERNEL_OPERATOR_H
