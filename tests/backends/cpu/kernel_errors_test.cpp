// Kernel error paths: bad shapes, dtypes, indices and buffers give TSR_E_INVALID_ARGUMENT
// and a message naming the op and the cause, never an out-of-bounds access.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/cpu/kernel_table.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/get_rows.h"
#include "backends/cpu/ops/kv_write.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/norm.h"
#include "backends/cpu/ops/rope.h"
#include "host_tensor.h"
#include "op_params.h"

namespace tessera::cpu::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StrEq;

class KernelErrors : public ::testing::Test {
 protected:
  // Runs `body`, expects TSR_E_INVALID_ARGUMENT, and returns the message.
  std::string fails(KernelBody body, tsr_op op, const void* params,
                    const std::vector<const HostTensor*>& in, HostTensor& out) {
    EXPECT_EQ(run_kernel(device_, body, op, params, in, out), TSR_E_INVALID_ARGUMENT);
    return device_.last_error();
  }
  CpuDevice device_{2};
};

TEST_F(KernelErrors, MatmulRejectsMismatchedInnerDimensionInBothKernels) {
  HostTensor x(TSR_DTYPE_F32, {1, 64}), w(TSR_DTYPE_F16, {4, 63}), out(TSR_DTYPE_F32, {1, 4});
  EXPECT_THAT(fails(matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, out),
              StrEq("matmul: x has 64 columns but w has 63"));
  EXPECT_THAT(fails(matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, out),
              StrEq("matmul: x has 64 columns but w has 63"));
}

TEST_F(KernelErrors, MatmulRejectsAWrongOutputShape) {
  HostTensor x(TSR_DTYPE_F32, {2, 8}), w(TSR_DTYPE_F32, {3, 8}), out(TSR_DTYPE_F32, {2, 4});
  EXPECT_THAT(fails(matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, out),
              StrEq("matmul: out has shape [2, 4], expected [2, 3]"));
}

TEST_F(KernelErrors, MatmulRejectsMissingInputs) {
  HostTensor x(TSR_DTYPE_F32, {2, 8}), out(TSR_DTYPE_F32, {2, 4});
  EXPECT_THAT(fails(matmul_fast, TSR_OP_MATMUL, nullptr, {&x}, out),
              StrEq("matmul: expects 2 inputs, got 1"));
}

TEST_F(KernelErrors, TensorLargerThanItsBufferIsRejected) {
  HostTensor x(TSR_DTYPE_F32, {2, 8}), w(TSR_DTYPE_F32, {3, 8}), out(TSR_DTYPE_F32, {2, 3});
  x.desc().shape[0] = 3;  // claims 96 bytes of a 64-byte buffer
  EXPECT_THAT(fails(matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, out),
              StrEq("matmul: x [3, 8] f32 needs 96 bytes at offset 0 but its buffer holds 64"));
}

TEST_F(KernelErrors, MisalignedF32TensorIsRejected) {
  HostTensor x(TSR_DTYPE_F32, {1, 4}), out(TSR_DTYPE_F32, {1, 3});
  x.desc().shape[1] = 3;
  x.desc().offset = 2;
  EXPECT_THAT(fails(silu_ref, TSR_OP_SILU, nullptr, {&x}, out),
              StrEq("silu: x at offset 2 is not aligned to 4 bytes for f32"));
}

TEST_F(KernelErrors, Q8_0RowsMustBeWholeBlocks) {
  HostTensor x(TSR_DTYPE_F32, {1, 33}), w(TSR_DTYPE_Q8_0, {1, 64}), out(TSR_DTYPE_F32, {1, 1});
  w.desc().shape[1] = 33;
  EXPECT_THAT(fails(matmul_fast, TSR_OP_MATMUL, nullptr, {&x, &w}, out),
              StrEq("matmul: w has 33 columns, not a multiple of the q8_0 block of 32"));
}

TEST_F(KernelErrors, GetRowsRejectsAnIndexOutsideTheTable) {
  HostTensor table(TSR_DTYPE_F32, {3, 2}), out(TSR_DTYPE_F32, {2, 2});
  auto idx = HostTensor::i32({2}, {1, 3});
  EXPECT_THAT(fails(get_rows_ref, TSR_OP_GET_ROWS, nullptr, {&table, &idx}, out),
              StrEq("get_rows: idx[1] = 3 is outside the table's 3 rows"));
}

TEST_F(KernelErrors, NormRejectsMissingParams) {
  HostTensor x(TSR_DTYPE_F32, {1, 4}), w(TSR_DTYPE_F32, {4}), out(TSR_DTYPE_F32, {1, 4});
  EXPECT_THAT(fails(rms_norm_ref, TSR_OP_RMS_NORM, nullptr, {&x, &w}, out),
              StrEq("rms_norm: params are missing"));
}

TEST_F(KernelErrors, NormRejectsAWeightOfTheWrongLength) {
  HostTensor x(TSR_DTYPE_F32, {1, 4}), w(TSR_DTYPE_F32, {3}), out(TSR_DTYPE_F32, {1, 4});
  const tsr_norm_params p = norm_params(1e-5f, false);
  EXPECT_THAT(fails(rms_norm_ref, TSR_OP_RMS_NORM, &p, {&x, &w}, out),
              StrEq("rms_norm: w has shape [3], expected 4 elements"));
}

TEST_F(KernelErrors, AddRejectsAnUnbroadcastableShape) {
  HostTensor a(TSR_DTYPE_F32, {2, 3}), b(TSR_DTYPE_F32, {2}), out(TSR_DTYPE_F32, {2, 3});
  EXPECT_THAT(fails(add_ref, TSR_OP_ADD, nullptr, {&a, &b}, out),
              StrEq("add: b has shape [2], expected [2, 3] or [3]"));
}

TEST_F(KernelErrors, RopeRejectsAnOddNRot) {
  HostTensor x(TSR_DTYPE_F32, {1, 8}), out(TSR_DTYPE_F32, {1, 8});
  auto pos = HostTensor::i32({1}, {0});
  const tsr_rope_params p = rope_params(10000.0f, 1.0f, 2, 4, 3, TSR_ROPE_NEOX);
  EXPECT_THAT(fails(rope_ref, TSR_OP_ROPE, &p, {&x, &pos}, out),
              StrEq("rope: n_rot 3 must be even and within head_dim 4"));
}

TEST_F(KernelErrors, KvWriteRejectsASlotOutsideTheCache) {
  HostTensor cache(TSR_DTYPE_F32, {2, 4, 8}), x(TSR_DTYPE_F32, {1, 8});
  auto slot = HostTensor::i32({1}, {8});
  const tsr_kv_write_params p{2, 4, 4};
  EXPECT_THAT(fails(kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, cache),
              StrEq("kv_write: slot[0] = 8 is outside the cache's 8 rows"));
}

// A one-token attention call on a cache of 2 blocks of 4 rows; tests break one part.
struct AttentionCall {
  tsr_attention_params p{2, 1, 4, 4, 1, 2, 0.5f, 0, 0.0f, 0.0f};
  HostTensor q{TSR_DTYPE_F32, {1, 8}};
  HostTensor k{TSR_DTYPE_F32, {2, 4, 4}};
  HostTensor v{TSR_DTYPE_F32, {2, 4, 4}};
  HostTensor pos = HostTensor::i32({1}, {5});
  HostTensor seq = HostTensor::i32({1}, {0});
  HostTensor tables = HostTensor::i32({1, 2}, {1, 0});
  HostTensor out{TSR_DTYPE_F32, {1, 8}};
  std::vector<const HostTensor*> inputs() const { return {&q, &k, &v, &pos, &seq, &tables}; }
};

TEST_F(KernelErrors, AttentionRejectsABlockIdOutsideTheCache) {
  AttentionCall c;
  c.tables = HostTensor::i32({1, 2}, {1, 9});
  EXPECT_THAT(fails(attention_fast, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out),
              StrEq("attention: block table of sequence 0 names block 9 at index 1 but the "
                    "cache has 2 blocks"));
}

TEST_F(KernelErrors, AttentionRejectsAPositionPastTheBlockTable) {
  AttentionCall c;
  c.pos = HostTensor::i32({1}, {8});
  EXPECT_THAT(fails(attention_ref, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out),
              StrEq("attention: token 0 at position 8 needs block index 2 but block tables "
                    "hold 2 blocks per sequence"));
}

TEST_F(KernelErrors, AttentionRejectsASequenceWithoutATable) {
  AttentionCall c;
  c.seq = HostTensor::i32({1}, {1});
  EXPECT_THAT(fails(attention_fast, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out),
              StrEq("attention: token 0 has seq 1 outside the 1 block tables"));
}

TEST_F(KernelErrors, AttentionRejectsHeadsNotDivisibleByKvHeads) {
  AttentionCall c;
  c.p.n_kv_heads = 3;
  EXPECT_THAT(fails(attention_fast, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out),
              StrEq("attention: n_heads 2 is not a multiple of n_kv_heads 3"));
}

TEST_F(KernelErrors, AttentionRejectsMismatchedCacheDtypes) {
  AttentionCall c;
  c.v = HostTensor(TSR_DTYPE_F16, {2, 4, 4});
  EXPECT_THAT(fails(attention_fast, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out),
              StrEq("attention: v_cache [2, 4, 4] f16 does not match k_cache [2, 4, 4] f32"));
}

TEST_F(KernelErrors, AttentionIgnoresTableEntriesOutsideTheWindow) {
  // With a window of 2 at position 5 only block index 1 is read; index 0 may be freed (-1).
  AttentionCall c;
  c.p.window = 2;
  c.tables = HostTensor::i32({1, 2}, {-1, 0});
  EXPECT_EQ(run_kernel(device_, attention_fast, TSR_OP_ATTENTION, &c.p, c.inputs(), c.out), TSR_OK)
      << device_.last_error();
}

TEST_F(KernelErrors, KernelCalledForAnotherOpIsRejected) {
  HostTensor x(TSR_DTYPE_F32, {1, 4}), out(TSR_DTYPE_F32, {1, 4});
  std::vector<tsr_tensor> in = {x.desc()};
  const tsr_op_call call{TSR_OP_GELU, nullptr, 1, in.data(), &out.desc()};
  EXPECT_EQ(run_guarded(&device_, &call, TSR_OP_SILU, silu_ref), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(device_.last_error(), StrEq("kernel for op 6 called with op 7"));
}

}  // namespace
}  // namespace tessera::cpu::test
