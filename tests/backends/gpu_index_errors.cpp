// The shared device-side index error checks (see gpu_index_errors.h).
#include "backends/gpu_index_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/gpu_session.h"

namespace tessera::gpu_test {

using cpu::test::HostTensor;
using cpu::test::random_values;
using ::testing::HasSubstr;

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

std::string moe_matmul_error(const std::vector<float>& experts) {
  const GpuTensor w(HostTensor::f32({3, 4, 8}, random_values(96, 45)), 4);
  const GpuTensor x(HostTensor::f32({2, 8}, random_values(16, 46)), 8);
  const GpuTensor route(HostTensor::f32({2, 4}, {experts.at(0), experts.at(1), 0.5f, 0.5f, experts.at(2),
                                                 experts.at(3), 0.5f, 0.5f}),
                        12);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {2, 8}), 16);
  return error_of([&] { run_backend(TSR_OP_MOE_MATMUL, TSR_DTYPE_F32, nullptr, {&x, &w, &route}, out); });
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
