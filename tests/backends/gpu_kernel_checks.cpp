// The shared GPU kernel checks (see gpu_kernel_checks.h).
#include "backends/gpu_kernel_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <utility>

#include <tessera/kit/tensor_info.h>

#include "backends/cpu/ops/kv_write.h"
#include "backends/cpu/ops/moe.h"
#include "backends/gpu_session.h"

namespace tessera::gpu_test {

using cpu::test::random_route;
using cpu::test::random_values;
using cpu::test::relative_error;

void expect_device_backend_table(const std::string& name) {
  const Session& s = session();
  ASSERT_NE(s.plugin, nullptr) << s.skip_reason;
  EXPECT_EQ(s.plugin->name(), name);
  EXPECT_EQ(s.plugin->version(), "0.1.0");
  const tsr_plugin& t = s.plugin->table();
  EXPECT_NE(t.step_begin, nullptr);
  EXPECT_NE(t.step_end, nullptr);
  EXPECT_EQ(t.buffer_host_ptr, nullptr);
  EXPECT_EQ(t.buffer_wrap_host, nullptr);
}

void expect_every_cpu_kernel_registered() {
  const Session& s = session();
  ASSERT_NE(s.plugin, nullptr) << s.skip_reason;
  const auto cpu = s.host.find("cpu");
  ASSERT_NE(cpu, nullptr);
  const auto keys = [](const PluginLibrary& p) {
    std::set<std::pair<int, int>> k;
    for (const tsr_kernel_desc& d : p.kernels()) k.insert({d.op, d.dtype});
    return k;
  };
  const auto expected = keys(*cpu);
  EXPECT_TRUE(expected.contains({TSR_OP_KV_WRITE, TSR_DTYPE_Q8_0}));
  EXPECT_TRUE(expected.contains({TSR_OP_ATTENTION, TSR_DTYPE_Q8_0}));
  EXPECT_TRUE(expected.contains({TSR_OP_MOE_MATMUL, TSR_DTYPE_Q4_K}));
  EXPECT_EQ(keys(*s.plugin), expected);
  EXPECT_EQ(s.plugin->kernels().size(), expected.size());
}

void expect_unaligned_round_trip() {
  DeviceBuffer b = DeviceBuffer::alloc(session().device, 1000, "round trip");
  const char text[] = "tessera";
  b.write(333, text, sizeof text);
  char back[sizeof text] = {};
  b.read(333, back, sizeof back);
  EXPECT_STREQ(back, "tessera");
}

void expect_overrun_refused() {
  const Session& s = session();
  DeviceBuffer b = DeviceBuffer::alloc(s.device, 64, "small");
  const char data[16] = {};
  const tsr_plugin& t = s.plugin->table();
  EXPECT_EQ(t.buffer_write(s.device->handle(), b.handle(), 60, data, sizeof data), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(t.last_error(s.device->handle()), "buffer_write: 16 bytes at offset 60 overrun a buffer of 64 bytes");
}

std::string kv_write_case_name(const KvWriteCase& c) {
  return std::string(kit::dtype_label(c.dtype)) + "_blocks" + std::to_string(c.n_blocks) + "x" +
         std::to_string(c.block_size) + "_width" + std::to_string(c.n_kv_heads * c.head_dim) + "_t" +
         std::to_string(c.n_tokens);
}

void expect_kv_write_like_reference(const KvWriteCase& c, double tolerance) {
  const int64_t width = static_cast<int64_t>(c.n_kv_heads) * c.head_dim;
  const int64_t rows = static_cast<int64_t>(c.n_blocks) * c.block_size;
  const HostTensor x = HostTensor::f32({c.n_tokens, width}, random_values(static_cast<size_t>(c.n_tokens * width), 61));
  std::vector<int32_t> slots(static_cast<size_t>(rows));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), std::mt19937(62));
  slots.resize(static_cast<size_t>(c.n_tokens));
  const HostTensor slot = HostTensor::i32({c.n_tokens}, slots);
  const std::vector<float> initial = random_values(static_cast<size_t>(rows * width), 63);
  HostTensor ref = HostTensor::from_f32(c.dtype, {c.n_blocks, c.block_size, width}, initial);
  const HostTensor cache = HostTensor::from_f32(c.dtype, {c.n_blocks, c.block_size, width}, initial);
  const tsr_kv_write_params p{c.n_kv_heads, c.head_dim, c.block_size};
  run_reference(cpu::kv_write_ref, TSR_OP_KV_WRITE, &p, {&x, &slot}, ref);
  const auto got = run_on_backend(TSR_OP_KV_WRITE, c.dtype, &p, {&x, &slot}, cache, {36, 132, odd_offset(c.dtype, 64)});
  EXPECT_LE(relative_error(got, ref.to_f32()), tolerance);
}

std::vector<MoeRouteCase> moe_route_cases() {
  return {MoeRouteCase{"softmax_top2_normalised", 37, 8, {2, TSR_MOE_SOFTMAX, 1, 1.0f}},
          MoeRouteCase{"softmax_top1", 5, 4, {1, TSR_MOE_SOFTMAX, 0, 1.0f}},
          MoeRouteCase{"softmax_top8_of_60", 13, 60, {8, TSR_MOE_SOFTMAX, 1, 1.0f}},
          MoeRouteCase{"sigmoid_top3_scaled", 9, 16, {3, TSR_MOE_SIGMOID, 0, 2.5f}}};
}

void expect_moe_route_like_reference(const MoeRouteCase& c) {
  const HostTensor logits =
      HostTensor::f32({c.tokens, c.experts}, random_values(static_cast<size_t>(c.tokens * c.experts), 41, -4, 4));
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}});
  run_reference(cpu::moe_route_ref, TSR_OP_MOE_ROUTE, &c.p, {&logits}, ref);
  const std::vector<float> want = ref.to_f32();
  const std::vector<float> got = run_on_backend(TSR_OP_MOE_ROUTE, TSR_DTYPE_F32, &c.p, {&logits},
                                                HostTensor(TSR_DTYPE_F32, {c.tokens, 2 * int64_t{c.p.k}}), {4, 68});
  ASSERT_EQ(got.size(), want.size());
  for (int64_t t = 0; t < c.tokens; ++t) {
    for (int32_t j = 0; j < 2 * c.p.k; ++j) {
      const size_t i = static_cast<size_t>(t * 2 * c.p.k + j);
      if (j < c.p.k) {
        EXPECT_EQ(got[i], want[i]) << "token " << t << " slot " << j;
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << "token " << t << " weight " << j;
      }
    }
  }
}

std::vector<MoeMatmulCase> moe_matmul_cases() {
  return {MoeMatmulCase{TSR_DTYPE_F32, 1, false}, MoeMatmulCase{TSR_DTYPE_F32, 13, true},
          MoeMatmulCase{TSR_DTYPE_F16, 7, false}, MoeMatmulCase{TSR_DTYPE_BF16, 3, true},
          MoeMatmulCase{TSR_DTYPE_Q8_0, 1, false}, MoeMatmulCase{TSR_DTYPE_Q4_0, 9, true},
          MoeMatmulCase{TSR_DTYPE_Q4_1, 2, false}, MoeMatmulCase{TSR_DTYPE_Q5_K, 1, true},
          MoeMatmulCase{TSR_DTYPE_Q4_K, 11, false}, MoeMatmulCase{TSR_DTYPE_Q6_K, 4, false},
          MoeMatmulCase{TSR_DTYPE_Q2_K, 3, false}, MoeMatmulCase{TSR_DTYPE_IQ4_XS, 5, true}};
}

std::string moe_matmul_case_name(const MoeMatmulCase& c) {
  return std::string(kit::dtype_label(c.dtype)) + "_t" + std::to_string(c.tokens) + (c.per_slot ? "_wide" : "");
}

void expect_moe_matmul_like_reference(const MoeMatmulCase& c) {
  constexpr int64_t kExperts = 5, kSlots = 2, kM = 19, kK = 256;
  const HostTensor w =
      HostTensor::from_f32(c.dtype, {kExperts, kM, kK}, random_values(static_cast<size_t>(kExperts * kM * kK), 42));
  const int64_t x_cols = c.per_slot ? kSlots * kK : kK;
  const HostTensor x = HostTensor::f32({c.tokens, x_cols}, random_values(static_cast<size_t>(c.tokens * x_cols), 43));
  const HostTensor route = HostTensor::f32({c.tokens, 2 * kSlots}, random_route(c.tokens, kSlots, kExperts, 44));
  HostTensor ref(TSR_DTYPE_F32, {c.tokens, kSlots * kM});
  run_reference(cpu::moe_matmul_ref, TSR_OP_MOE_MATMUL, nullptr, {&x, &w, &route}, ref);
  const std::vector<float> got =
      run_on_backend(TSR_OP_MOE_MATMUL, c.dtype, nullptr, {&x, &w, &route},
                     HostTensor(TSR_DTYPE_F32, {c.tokens, kSlots * kM}), {4, odd_offset(c.dtype, 9), 36, 132});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-4);
}

void expect_moe_combine_like_reference() {
  constexpr int64_t kTokens = 23, kSlots = 3, kCols = 37;
  const HostTensor y = HostTensor::f32({kTokens, kSlots * kCols}, random_values(kTokens * kSlots * kCols, 47));
  const HostTensor route = HostTensor::f32({kTokens, 2 * kSlots}, random_values(kTokens * 2 * kSlots, 48, 0, 1));
  HostTensor ref(TSR_DTYPE_F32, {kTokens, kCols});
  run_reference(cpu::moe_combine_ref, TSR_OP_MOE_COMBINE, nullptr, {&y, &route}, ref);
  const std::vector<float> got = run_on_backend(TSR_OP_MOE_COMBINE, TSR_DTYPE_F32, nullptr, {&y, &route},
                                                HostTensor(TSR_DTYPE_F32, {kTokens, kCols}), {4, 8, 12});
  EXPECT_LE(relative_error(got, ref.to_f32()), 1e-6);
}

}  // namespace tessera::gpu_test
