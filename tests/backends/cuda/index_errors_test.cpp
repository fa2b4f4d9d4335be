// Bad indices met by the CUDA kernels on the device (kit/device_errors.h): each comes
// back as the error the Vulkan backend reports for the same call, outside a step from
// the call itself and inside one from step_end, which clears the word for the next call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/gpu_index_errors.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

using ::testing::HasSubstr;

TEST_F(CudaTest, GetRowsReportsAnIndexOutsideTheTable) {
  EXPECT_THAT(gpu_test::get_rows_error({1, 0, 600}), HasSubstr("get_rows: idx[2] = 600 is outside the table's 7 rows"));
  EXPECT_THAT(gpu_test::get_rows_error({-3}), HasSubstr("get_rows: idx[0] = -3 is outside the table's 7 rows"));
}

TEST_F(CudaTest, GetRowsWithinTheTableReportsNothing) { EXPECT_EQ(gpu_test::get_rows_error({6, 0, 3}), ""); }

TEST_F(CudaTest, ErrorInsideAStepComesBackFromStepEnd) { gpu_test::expect_step_end_reports_the_kernels_error(); }

TEST_F(CudaTest, KvWriteReportsASlotOutsideTheCache) {
  EXPECT_THAT(gpu_test::kv_write_error({5, 64}), HasSubstr("kv_write: slot[1] = 64 is outside the cache's 64 rows"));
  EXPECT_EQ(gpu_test::kv_write_error({5, 63}), "");
}

TEST_F(CudaTest, AttentionReportsABlockTableEntryOutsideTheCache) {
  EXPECT_THAT(gpu_test::attention_error(5, 0, {1, 99}),
              HasSubstr("attention: token 0 reads block 99 from its block table but the cache has 2 blocks"));
}

TEST_F(CudaTest, AttentionReportsANegativePosition) {
  EXPECT_THAT(gpu_test::attention_error(-1, 0, {1, 0}), HasSubstr("attention: token 0 has negative position -1"));
}

TEST_F(CudaTest, AttentionReportsASequenceOutsideTheBlockTables) {
  EXPECT_THAT(gpu_test::attention_error(2, 3, {1, 0}),
              HasSubstr("attention: token 0 has seq 3 outside the 1 block tables"));
}

TEST_F(CudaTest, AttentionReportsAPositionBeyondTheBlockTable) {
  EXPECT_THAT(gpu_test::attention_error(8, 0, {1, 0}),
              HasSubstr("attention: token 0 at position 8 needs block index 2 but block tables hold 2 blocks per sequence"));
}

TEST_F(CudaTest, AttentionWithinTheCacheReportsNothing) { EXPECT_EQ(gpu_test::attention_error(7, 0, {1, 0}), ""); }

TEST_F(CudaTest, MoeMatmulReportsARouteNamingNoExpert) {
  EXPECT_THAT(gpu_test::moe_matmul_error({1, 0, 7, 2}),
              HasSubstr("moe_matmul: route slot 2 names expert 7, expected a whole number 0 .. 2"));
  EXPECT_EQ(gpu_test::moe_matmul_error({1, 0, 2, 2}), "");
}

}  // namespace
}  // namespace tessera::cuda::test
