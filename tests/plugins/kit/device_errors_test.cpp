// The kit's device-reported index errors (device_errors.h): the call list that turns a
// reported word into its call's message, the checks the kernels evaluate, and messages
// that match the host checks' word for word.
#include <tessera/kit/device_errors.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/moe_check.h>
#include <tessera/kit/op_shapes.h>

#include "plugins/kit/kernel_failure.h"

namespace tessera::kit {
namespace {

using test::failure;

TEST(DeviceCalls, GiveIdsInOrderAndMayReportOnlyWithAText) {
  DeviceCalls calls;
  EXPECT_EQ(calls.add({}), 0u);
  EXPECT_FALSE(calls.may_report());
  EXPECT_EQ(calls.add(row_id_text("get_rows", "idx", "table", 7)), 1u);
  EXPECT_TRUE(calls.may_report());
  EXPECT_EQ(calls.next_id(), 2u);
  calls.clear();
  EXPECT_EQ(calls.next_id(), 0u);
  EXPECT_FALSE(calls.may_report());
}

TEST(DeviceCalls, TakeTheReportingCallsMessageAndEmptyTheList) {
  DeviceCalls calls;
  calls.add(row_id_text("get_rows", "idx", "table", 7));
  calls.add(row_id_text("kv_write", "slot", "cache", 64));
  EXPECT_EQ(calls.take_message({1, 1, 3, 70}), "kv_write: slot[3] = 70 is outside the cache's 64 rows");
  EXPECT_EQ(calls.next_id(), 0u);
}

TEST(DeviceCalls, NameTheCodeWhenTheCallHasNoText) {
  DeviceCalls calls;
  calls.add({});
  EXPECT_EQ(calls.take_message({5, 0, 0, 0}), "a kernel reported error 5");
  EXPECT_EQ(calls.take_message({2, 9, 0, 0}), "a kernel reported error 2");  // an id not listed
}

TEST(RowIdText, SaysWhatTheHostCheckSays) {
  const int32_t ids[] = {0, 4, 1};
  const std::string host = failure([&] { check_row_ids(ids, 3, 4, "get_rows", "idx", "table"); });
  EXPECT_EQ(host, "get_rows: idx[1] = 4 is outside the table's 4 rows");
  EXPECT_EQ(row_id_text("get_rows", "idx", "table", 4)(kRowIdOutside, 1, 4), host);
}

TEST(RouteNamesExpert, OnlyWholeNumbersBelowTheExpertCount) {
  for (float e : {0.0f, 1.0f, 2.0f}) EXPECT_TRUE(route_names_expert(e, 3)) << e;
  for (float e : {-1.0f, 3.0f, 0.5f, -0.0001f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity(), 1e30f}) {
    EXPECT_FALSE(route_names_expert(e, 3)) << e;
    EXPECT_NE(failure([&] { route_expert(e, 3, "moe_matmul"); }), "<no KernelError>") << e;  // the host check agrees
  }
  EXPECT_EQ(route_text(3)(kRowIdOutside, 2, 7), "moe_matmul: route slot 2 names expert 7, expected a whole number 0 .. 2");
}

TEST(AttentionTokenFault, FindsTheSeqThenThePositionThenTheBlockIndex) {
  int32_t value = 0;
  EXPECT_EQ(attention_token_fault(0, 7, 1, 4, 2, value), 0u);
  EXPECT_EQ(attention_token_fault(3, 7, 1, 4, 2, value), kAttentionSeqOutside);
  EXPECT_EQ(value, 3);
  EXPECT_EQ(attention_token_fault(-1, -5, 1, 4, 2, value), kAttentionSeqOutside);  // the seq first
  EXPECT_EQ(value, -1);
  EXPECT_EQ(attention_token_fault(0, -5, 1, 4, 2, value), kAttentionNegativePosition);
  EXPECT_EQ(value, -5);
  EXPECT_EQ(attention_token_fault(0, 8, 1, 4, 2, value), kAttentionBlockIndexOutside);
  EXPECT_EQ(value, 8);
  EXPECT_TRUE(attention_block_outside(-1, 2));
  EXPECT_TRUE(attention_block_outside(2, 2));
  EXPECT_FALSE(attention_block_outside(1, 2));
}

TEST(AttentionText, WordsEachFaultAsTheHostCheckDoes) {
  // 2 query heads on 1 KV head of 4 dims, blocks of 4 keys, 1 table of 2 blocks
  const tsr_attention_params p{2, 1, 4, 4, 1, 2, 0.5f, 0, 0.0f, 0.0f};
  const DeviceErrorText text = attention_text(p, 2);
  const int32_t table[] = {1, 0};
  for (const auto& [seq, pos, code, value] : {std::tuple{3, 2, kAttentionSeqOutside, 3},
                                              std::tuple{0, -1, kAttentionNegativePosition, -1},
                                              std::tuple{0, 8, kAttentionBlockIndexOutside, 8}}) {
    const std::string host = failure([&] { check_attention_tokens(p, &pos, &seq, table, 1, 2); });
    EXPECT_NE(host, "<no KernelError>");
    EXPECT_EQ(text(code, 0, value), host);
  }
  EXPECT_EQ(text(kAttentionBlockOutside, 0, 99),
            "attention: token 0 reads block 99 from its block table but the cache has 2 blocks");
}

}  // namespace
}  // namespace tessera::kit
