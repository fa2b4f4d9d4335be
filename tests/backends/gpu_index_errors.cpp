// The shared device-side index error checks (see gpu_index_errors.h).
#include "backends/gpu_index_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/gpu_session.h"

namespace tessera::gpu_test {
namespace {

using cpu::test::HostTensor;
using cpu::test::random_values;
using ::testing::HasSubstr;

// Each runs one call and returns the error it came back with ("" when it succeeded).

std::string get_rows_error(const std::vector<int32_t>& ids) {
  const GpuTensor table(HostTensor::f32({7, 4}, random_values(28, 81)), 36);
  const GpuTensor idx(HostTensor::i32({static_cast<int64_t>(ids.size())}, ids), 8);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {static_cast<int64_t>(ids.size()), 4}), 4);
  return error_of([&] { run_backend(TSR_OP_GET_ROWS, TSR_DTYPE_F32, nullptr, {&table, &idx}, out); });
}

std::string kv_write_error(const std::vector<int32_t>& slots) {
  const tsr_kv_write_params p{2, 4, 8};
  const GpuTensor x(HostTensor::f32({2, 8}, random_values(16, 83)), 4);
  const GpuTensor slot(HostTensor::i32({2}, slots), 4);
  const GpuTensor cache(HostTensor(TSR_DTYPE_F16, {8, 8, 8}), 2);
  return error_of([&] { run_backend(TSR_OP_KV_WRITE, TSR_DTYPE_F16, &p, {&x, &slot}, cache); });
}

// One token at `position` of sequence `seq`, one block table `table`, blocks of 4 keys,
// a cache of 2 blocks.
std::string attention_error(int32_t position, int32_t seq, const std::vector<int32_t>& table) {
  const tsr_attention_params p{2, 1, 4, 4, 1, static_cast<int32_t>(table.size()), 0.5f, 0, 0.0f, 0.0f};
  const GpuTensor q(HostTensor::f32({1, 8}, random_values(8, 84)), 4);
  const GpuTensor k(HostTensor(TSR_DTYPE_F32, {2, 4, 4}), 4);
  const GpuTensor v(HostTensor(TSR_DTYPE_F32, {2, 4, 4}), 4);
  const GpuTensor pos(HostTensor::i32({1}, {position}), 4);
  const GpuTensor sq(HostTensor::i32({1}, {seq}), 4);
  const GpuTensor bt(HostTensor::i32({1, static_cast<int64_t>(table.size())}, table), 4);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {1, 8}), 4);
  return error_of([&] { run_backend(TSR_OP_ATTENTION, TSR_DTYPE_F32, &p, {&q, &k, &v, &pos, &sq, &bt}, out); });
}

// Two tokens, 2 slots each, 3 experts; `experts`: t0 j0, t0 j1, t1 j0, t1 j1.
std::string moe_matmul_error(const std::vector<float>& experts) {
  const GpuTensor w(HostTensor::f32({3, 4, 8}, random_values(96, 45)), 4);
  const GpuTensor x(HostTensor::f32({2, 8}, random_values(16, 46)), 8);
  const GpuTensor route(HostTensor::f32({2, 4}, {experts.at(0), experts.at(1), 0.5f, 0.5f, experts.at(2),
                                                 experts.at(3), 0.5f, 0.5f}),
                        12);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {2, 8}), 16);
  return error_of([&] { run_backend(TSR_OP_MOE_MATMUL, TSR_DTYPE_F32, nullptr, {&x, &w, &route}, out); });
}

}  // namespace

void expect_get_rows_index_reported() {
  EXPECT_THAT(get_rows_error({1, 0, 600}), HasSubstr("get_rows: idx[2] = 600 is outside the table's 7 rows"));
  EXPECT_THAT(get_rows_error({-3}), HasSubstr("get_rows: idx[0] = -3 is outside the table's 7 rows"));
  EXPECT_EQ(get_rows_error({6, 0, 3}), "");
}

void expect_kv_write_slot_reported() {
  EXPECT_THAT(kv_write_error({5, 64}), HasSubstr("kv_write: slot[1] = 64 is outside the cache's 64 rows"));
  EXPECT_EQ(kv_write_error({5, 63}), "");
}

void expect_attention_block_reported() {
  EXPECT_THAT(attention_error(5, 0, {1, 99}),
              HasSubstr("attention: token 0 reads block 99 from its block table but the cache has 2 blocks"));
  EXPECT_EQ(attention_error(7, 0, {1, 0}), "");
}

void expect_attention_negative_position_reported() {
  EXPECT_THAT(attention_error(-1, 0, {1, 0}), HasSubstr("attention: token 0 has negative position -1"));
}

void expect_attention_seq_reported() {
  EXPECT_THAT(attention_error(2, 3, {1, 0}), HasSubstr("attention: token 0 has seq 3 outside the 1 block tables"));
}

void expect_attention_block_index_reported() {
  EXPECT_THAT(attention_error(8, 0, {1, 0}),
              HasSubstr("attention: token 0 at position 8 needs block index 2 but block tables hold 2 blocks per sequence"));
}

void expect_moe_route_reported() {
  EXPECT_THAT(moe_matmul_error({1, 0, 7, 2}),
              HasSubstr("moe_matmul: route slot 2 names expert 7, expected a whole number 0 .. 2"));
  EXPECT_EQ(moe_matmul_error({1, 0, 2, 2}), "");
}

void expect_step_end_reports_the_kernels_error() {
  const GpuTensor table(HostTensor::f32({7, 4}, random_values(28, 82)), 36);
  const GpuTensor idx(HostTensor::i32({2}, {3, -1}), 8);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {2, 4}), 4);
  const Device& device = *session().device;
  device.begin_step();
  EXPECT_EQ(error_of([&] { run_backend(TSR_OP_GET_ROWS, TSR_DTYPE_F32, nullptr, {&table, &idx}, out); }), "");
  EXPECT_THAT(error_of([&] { device.end_step(); }), HasSubstr("get_rows: idx[1] = -1 is outside the table's 7 rows"));
  EXPECT_EQ(get_rows_error({6, 0}), "");
}

}  // namespace tessera::gpu_test
