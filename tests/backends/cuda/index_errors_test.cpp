// Bad indices met by the CUDA kernels on the device (kit/device_errors.h): each comes
// back as the error the Vulkan backend reports for the same call, outside a step from
// the call itself and inside one from step_end, which clears the word for the next call.
#include <gtest/gtest.h>

#include "backends/gpu_index_errors.h"
#include "cuda_session.h"

namespace tessera::cuda::test {
namespace {

TEST_F(CudaTest, GetRowsReportsAnIndexOutsideTheTable) { gpu_test::expect_get_rows_index_reported(); }
TEST_F(CudaTest, ErrorInsideAStepComesBackFromStepEnd) { gpu_test::expect_step_end_reports_the_kernels_error(); }
TEST_F(CudaTest, KvWriteReportsASlotOutsideTheCache) { gpu_test::expect_kv_write_slot_reported(); }
TEST_F(CudaTest, AttentionReportsABlockOutsideTheCache) { gpu_test::expect_attention_block_reported(); }
TEST_F(CudaTest, AttentionReportsANegativePosition) { gpu_test::expect_attention_negative_position_reported(); }
TEST_F(CudaTest, AttentionReportsASeqOutsideTheTables) { gpu_test::expect_attention_seq_reported(); }
TEST_F(CudaTest, AttentionReportsAPositionBeyondTheTable) { gpu_test::expect_attention_block_index_reported(); }
TEST_F(CudaTest, MoeMatmulReportsARouteNamingNoExpert) { gpu_test::expect_moe_route_reported(); }

}  // namespace
}  // namespace tessera::cuda::test
