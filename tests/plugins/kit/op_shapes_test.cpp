// The kit's op-level dtype and shape checks that every backend calls: what each accepts,
// and the exact message of each refusal.
#include <tessera/kit/op_shapes.h>

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include <tessera/kit/kernel_error.h>
#include "plugins/kit/kernel_failure.h"

namespace tessera::kit {
namespace {

TensorInfo info(tsr_dtype dtype, std::initializer_list<int64_t> shape) {
  TensorInfo t;
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t d : shape) t.shape[i++] = d;
  return t;
}

using test::failure;

TEST(OpShapes, MatmulReturnsTheShapeAndNamesAMismatch) {
  const MatmulShape s =
      check_matmul(info(TSR_DTYPE_F32, {3, 64}), info(TSR_DTYPE_Q4_K, {5, 64}), info(TSR_DTYPE_F32, {3, 5}));
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(s.k, 64);
  EXPECT_EQ(s.m, 5);
  EXPECT_EQ(failure([] {
              check_matmul(info(TSR_DTYPE_F32, {3, 64}), info(TSR_DTYPE_F16, {5, 63}), info(TSR_DTYPE_F32, {3, 5}));
            }),
            "matmul: x has 64 columns but w has 63");
  EXPECT_EQ(failure([] {
              check_matmul(info(TSR_DTYPE_F32, {3, 64}), info(TSR_DTYPE_I32, {5, 64}), info(TSR_DTYPE_F32, {3, 5}));
            }),
            "matmul: w is i32, expected a float or block dtype");
}

TEST(OpShapes, UnaryAndSwigluWantF32OfOneShape) {
  EXPECT_NO_THROW(check_unary(info(TSR_DTYPE_F32, {2, 7}), info(TSR_DTYPE_F32, {2, 7}), "silu"));
  EXPECT_NE(failure([] { check_unary(info(TSR_DTYPE_F16, {2, 7}), info(TSR_DTYPE_F32, {2, 7}), "silu"); })
                .rfind("silu: x ", 0),
            std::string::npos);
  EXPECT_NE(failure([] {
              check_swiglu(info(TSR_DTYPE_F32, {2, 7}), info(TSR_DTYPE_F32, {2, 8}), info(TSR_DTYPE_F32, {2, 7}));
            }).rfind("swiglu: up ", 0),
            std::string::npos);
}

TEST(OpShapes, BinaryOpChecksSwigluOrBroadcastByItsKind) {
  EXPECT_STREQ(binary_roles(true).a, "gate");
  EXPECT_STREQ(binary_roles(false).b, "b");
  EXPECT_TRUE(check_binary_op(info(TSR_DTYPE_F32, {2, 8}), info(TSR_DTYPE_F32, {8}), info(TSR_DTYPE_F32, {2, 8}), "add",
                              false));
  EXPECT_FALSE(check_binary_op(info(TSR_DTYPE_F32, {2, 8}), info(TSR_DTYPE_F32, {2, 8}), info(TSR_DTYPE_F32, {2, 8}),
                               "swiglu", true));
  EXPECT_EQ(failure([] {
              check_binary_op(info(TSR_DTYPE_F32, {2, 8}), info(TSR_DTYPE_F32, {8}), info(TSR_DTYPE_F32, {2, 8}),
                              "swiglu", true);
            }).rfind("swiglu: up ", 0),
            0u);
}

TEST(OpShapes, RopeReturnsTheTokensAndChecksTheWidth) {
  tsr_rope_params p{};
  p.theta = 10000.0f;
  p.freq_scale = 1.0f;
  p.n_heads = 2;
  p.head_dim = 8;
  p.n_rot = 8;
  EXPECT_EQ(check_rope(info(TSR_DTYPE_F32, {5, 16}), info(TSR_DTYPE_I32, {5}), info(TSR_DTYPE_F32, {5, 16}), p), 5);
  EXPECT_EQ(failure([&] {
              check_rope(info(TSR_DTYPE_F32, {5, 12}), info(TSR_DTYPE_I32, {5}), info(TSR_DTYPE_F32, {5, 12}), p);
            }),
            "rope: x has 12 columns but n_heads * head_dim = 16");
}

TEST(OpShapes, KvWriteChecksSizesAndWidth) {
  const tsr_kv_write_params p{2, 16, 8};
  EXPECT_EQ(check_kv_write(info(TSR_DTYPE_F32, {3, 32}), info(TSR_DTYPE_I32, {3}), info(TSR_DTYPE_Q8_0, {4, 8, 32}), p),
            3);
  EXPECT_EQ(failure([] {
              check_kv_write(info(TSR_DTYPE_F32, {3, 32}), info(TSR_DTYPE_I32, {3}), info(TSR_DTYPE_F32, {4, 8, 32}),
                             tsr_kv_write_params{0, 16, 8});
            }),
            "kv_write: n_kv_heads, head_dim and block_size must be positive");
  EXPECT_EQ(failure([&] {
              check_kv_write(info(TSR_DTYPE_F32, {3, 30}), info(TSR_DTYPE_I32, {3}), info(TSR_DTYPE_F32, {4, 8, 32}), p);
            }),
            "kv_write: x has 30 columns but n_kv_heads * head_dim = 32");
}

TEST(OpShapes, RowIdsNameTheFirstOutsideTheLimit) {
  const int32_t ids[] = {0, 3, 4, -1};
  EXPECT_NO_THROW(check_row_ids(ids, 2, 4, "get_rows", "idx", "table"));
  EXPECT_EQ(failure([&] { check_row_ids(ids, 4, 4, "get_rows", "idx", "table"); }),
            "get_rows: idx[2] = 4 is outside the table's 4 rows");
  EXPECT_EQ(failure([&] { check_row_ids(ids + 3, 1, 64, "kv_write", "slot", "cache"); }),
            "kv_write: slot[0] = -1 is outside the cache's 64 rows");
}

TEST(OpShapes, SliceChecksTheColumnsRead) {
  EXPECT_NO_THROW(check_slice(info(TSR_DTYPE_F32, {2, 96}), info(TSR_DTYPE_F32, {2, 30}), tsr_slice_params{8, 10, 24, 3}));
  EXPECT_NE(failure([] {
              check_slice(info(TSR_DTYPE_F32, {2, 96}), info(TSR_DTYPE_F32, {2, 30}), tsr_slice_params{8, 10, 40, 3});
            }).find("read past the 96 columns of x"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera::kit
