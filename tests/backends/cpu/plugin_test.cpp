// The built plugin (libtessera_cpu.so) through its C ABI only, loaded with dlopen as a
// host would: the table, the device, buffers, kernels and errors at the boundary.
#include <dlfcn.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tessera/kit/quantize.h>
#include <tessera/plugin_abi.h>

#include "support/testdata.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StrEq;

class CpuPlugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = tessera::test::plugin_dir() + "/libtessera_cpu.so";
    library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    auto entry = reinterpret_cast<tsr_plugin_entry_fn>(dlsym(library_, TSR_PLUGIN_ENTRY_SYMBOL));
    ASSERT_NE(entry, nullptr) << dlerror();
    plugin_ = entry();
  }
  static void TearDownTestSuite() {
    if (library_) dlclose(library_);
    library_ = nullptr;
    plugin_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(plugin_, nullptr);
    const tsr_device_options options{sizeof(tsr_device_options), 2};
    ASSERT_EQ(plugin_->device_open(0, &options, &device_), TSR_OK) << plugin_->last_error(nullptr);
  }
  void TearDown() override {
    for (tsr_buffer b : buffers_) plugin_->buffer_free(device_, b);
    if (device_) plugin_->device_close(device_);
  }
  tsr_buffer alloc(uint64_t size) {
    tsr_buffer b = nullptr;
    EXPECT_EQ(plugin_->buffer_alloc(device_, size, &b), TSR_OK) << plugin_->last_error(device_);
    buffers_.push_back(b);
    return b;
  }
  // A tensor over `buffer` from offset 0.
  static tsr_tensor tensor(tsr_buffer buffer, tsr_dtype dtype, std::vector<int64_t> shape) {
    tsr_tensor t{buffer, 0, dtype, static_cast<int32_t>(shape.size()), {1, 1, 1, 1}, nullptr};
    for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
    return t;
  }
  const tsr_kernel_desc* find_kernel(tsr_op op, tsr_dtype dtype) const {
    for (int i = 0; i < plugin_->kernel_count; ++i) {
      if (plugin_->kernels[i].op == op && plugin_->kernels[i].dtype == dtype) return &plugin_->kernels[i];
    }
    return nullptr;
  }

  static inline void* library_ = nullptr;
  static inline const tsr_plugin* plugin_ = nullptr;
  void* device_ = nullptr;
  std::vector<tsr_buffer> buffers_;
};

TEST_F(CpuPlugin, TableHasTheAbiVersionNameAndOneDevice) {
  EXPECT_EQ(plugin_->abi_version, TSR_ABI_VERSION);
  EXPECT_EQ(plugin_->struct_size, sizeof(tsr_plugin));
  EXPECT_THAT(plugin_->name, StrEq("cpu"));
  EXPECT_EQ(plugin_->device_count(), 1);
  EXPECT_EQ(plugin_->unavailable_reason(), nullptr);
  EXPECT_EQ(plugin_->step_begin, nullptr);
  EXPECT_EQ(plugin_->step_end, nullptr);
}

TEST_F(CpuPlugin, DeviceInfoDescribesIsaThreadsAndMemory) {
  tsr_device_info info;
  ASSERT_EQ(plugin_->device_info(0, &info), TSR_OK);
  EXPECT_THAT(info.name, StrEq("cpu"));
  EXPECT_THAT(info.description, HasSubstr(" thread"));
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_EQ(info.host_visible, 1);
}

TEST_F(CpuPlugin, DeviceInfoOfAMissingDeviceFailsWithAMessage) {
  tsr_device_info info;
  EXPECT_EQ(plugin_->device_info(1, &info), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(plugin_->last_error(nullptr), StrEq("device_info: no cpu device 1 (there is 1)"));
}

TEST_F(CpuPlugin, DeviceOpenRejectsNegativeThreadCount) {
  const tsr_device_options options{sizeof(tsr_device_options), -1};
  void* device = nullptr;
  EXPECT_EQ(plugin_->device_open(0, &options, &device), TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(device, nullptr);
  EXPECT_THAT(plugin_->last_error(nullptr), StrEq("device_open: n_threads must be >= 0, got -1"));
}

TEST_F(CpuPlugin, RegistersEveryOpAndKeyDtypeAtPriorityZero) {
  std::set<std::pair<int, int>> expected = {
      {TSR_OP_GET_ROWS, TSR_DTYPE_F32},   {TSR_OP_GET_ROWS, TSR_DTYPE_F16},
      {TSR_OP_GET_ROWS, TSR_DTYPE_BF16},  {TSR_OP_GET_ROWS, TSR_DTYPE_Q8_0},
      {TSR_OP_RMS_NORM, TSR_DTYPE_F32},   {TSR_OP_LAYER_NORM, TSR_DTYPE_F32},
      {TSR_OP_MATMUL, TSR_DTYPE_F32},     {TSR_OP_MATMUL, TSR_DTYPE_F16},
      {TSR_OP_MATMUL, TSR_DTYPE_BF16},    {TSR_OP_MATMUL, TSR_DTYPE_Q8_0},
      {TSR_OP_ADD, TSR_DTYPE_F32},        {TSR_OP_MUL, TSR_DTYPE_F32},
      {TSR_OP_SILU, TSR_DTYPE_F32},       {TSR_OP_GELU, TSR_DTYPE_F32},
      {TSR_OP_SWIGLU, TSR_DTYPE_F32},     {TSR_OP_ROPE, TSR_DTYPE_F32},
      {TSR_OP_KV_WRITE, TSR_DTYPE_F32},   {TSR_OP_KV_WRITE, TSR_DTYPE_F16},
      {TSR_OP_KV_WRITE, TSR_DTYPE_Q8_0},  {TSR_OP_ATTENTION, TSR_DTYPE_F32},
      {TSR_OP_ATTENTION, TSR_DTYPE_F16},  {TSR_OP_ATTENTION, TSR_DTYPE_Q8_0},
      {TSR_OP_SCALE, TSR_DTYPE_F32},      {TSR_OP_GELU_TANH, TSR_DTYPE_F32},
      {TSR_OP_RELU, TSR_DTYPE_F32},       {TSR_OP_RELU_SQR, TSR_DTYPE_F32},
      {TSR_OP_SOFTCAP, TSR_DTYPE_F32},    {TSR_OP_SLICE, TSR_DTYPE_F32},
      {TSR_OP_SUB, TSR_DTYPE_F32},        {TSR_OP_AFFINE, TSR_DTYPE_F32},
      {TSR_OP_CLAMP, TSR_DTYPE_F32},      {TSR_OP_MOE_ROUTE, TSR_DTYPE_F32},
      {TSR_OP_MOE_COMBINE, TSR_DTYPE_F32}};
  // Every weight dtype has an expert matmul.
  for (const tsr_dtype d : {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_BF16, TSR_DTYPE_Q8_0}) {
    expected.insert({TSR_OP_MOE_MATMUL, d});
  }
  // Every block format beside q8_0 has an embedding lookup, a matmul and an expert matmul.
  for (const tsr_dtype d : {TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1, TSR_DTYPE_Q2_K,
                            TSR_DTYPE_Q3_K, TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_NL,
                            TSR_DTYPE_IQ4_XS}) {
    expected.insert({TSR_OP_GET_ROWS, d});
    expected.insert({TSR_OP_MATMUL, d});
    expected.insert({TSR_OP_MOE_MATMUL, d});
  }
  std::set<std::pair<int, int>> registered;
  for (int i = 0; i < plugin_->kernel_count; ++i) {
    const tsr_kernel_desc& k = plugin_->kernels[i];
    registered.insert({k.op, k.dtype});
    EXPECT_EQ(k.priority, 0) << k.name;
    EXPECT_NE(k.run, nullptr) << k.name;
  }
  EXPECT_EQ(registered, expected);
  EXPECT_EQ(plugin_->kernel_count, static_cast<int32_t>(expected.size()));  // no duplicates
}

TEST_F(CpuPlugin, BufferWriteThenReadRoundTripsAtAnOffset) {
  tsr_buffer b = alloc(100);
  const char text[] = "tessera";
  ASSERT_EQ(plugin_->buffer_write(device_, b, 90, text, sizeof text), TSR_OK);
  char back[sizeof text] = {};
  ASSERT_EQ(plugin_->buffer_read(device_, b, 90, back, sizeof back), TSR_OK);
  EXPECT_THAT(back, StrEq("tessera"));
}

TEST_F(CpuPlugin, BuffersAre64ByteAligned) {
  for (uint64_t size : {1u, 63u, 1000u}) {
    void* p = plugin_->buffer_host_ptr(device_, alloc(size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size;
  }
}

TEST_F(CpuPlugin, BufferWritePastTheEndFailsWithAMessage) {
  tsr_buffer b = alloc(64);
  const char data[16] = {};
  EXPECT_EQ(plugin_->buffer_write(device_, b, 60, data, sizeof data), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(plugin_->last_error(device_),
              StrEq("buffer_write: 16 bytes at offset 60 overrun a buffer of 64 bytes"));
}

TEST_F(CpuPlugin, BufferLargerThanPhysicalMemoryIsOutOfMemory) {
  tsr_buffer b = nullptr;
  EXPECT_EQ(plugin_->buffer_alloc(device_, uint64_t{1} << 62, &b), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(b, nullptr);
  EXPECT_THAT(plugin_->last_error(device_), HasSubstr("bytes of physical memory"));
}

TEST_F(CpuPlugin, WrappedHostMemoryIsZeroCopy) {
  std::vector<float> host = {1, 2, 3};
  tsr_buffer b = nullptr;
  ASSERT_EQ(plugin_->buffer_wrap_host(device_, host.data(), host.size() * 4, &b), TSR_OK);
  buffers_.push_back(b);
  EXPECT_EQ(plugin_->buffer_host_ptr(device_, b), host.data());
  host[1] = 20;
  float back = 0;
  ASSERT_EQ(plugin_->buffer_read(device_, b, 4, &back, 4), TSR_OK);
  EXPECT_EQ(back, 20.0f);
}

TEST_F(CpuPlugin, MatmulKernelRunsOnPluginBuffers) {
  const float x[] = {1, 2, 3, -1, 0, 1};  // [2, 3]
  const float w[] = {1, 0, -1, 2, 2, 2};  // [2, 3]
  tsr_buffer bx = alloc(sizeof x), bw = alloc(sizeof w), bo = alloc(16);
  ASSERT_EQ(plugin_->buffer_write(device_, bx, 0, x, sizeof x), TSR_OK);
  ASSERT_EQ(plugin_->buffer_write(device_, bw, 0, w, sizeof w), TSR_OK);
  const tsr_tensor inputs[] = {tensor(bx, TSR_DTYPE_F32, {2, 3}), tensor(bw, TSR_DTYPE_F32, {2, 3})};
  const tsr_tensor out = tensor(bo, TSR_DTYPE_F32, {2, 2});
  const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, inputs, &out};
  const tsr_kernel_desc* k = find_kernel(TSR_OP_MATMUL, TSR_DTYPE_F32);
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->run(device_, &call), TSR_OK) << plugin_->last_error(device_);
  float result[4];
  ASSERT_EQ(plugin_->buffer_read(device_, bo, 0, result, sizeof result), TSR_OK);
  EXPECT_THAT(result, ::testing::ElementsAre(-2.0f, 12.0f, -2.0f, 0.0f));
}

// Q4_K decode reads a copy of the weights made at their first decode (by default; see
// repacked_weights.h): writing new weights into the buffer must not leave the old copy
// in use.
TEST_F(CpuPlugin, DecodeAfterRewritingQ4KWeightsUsesTheNewWeights) {
  const int64_t m = 9, k = 512;  // one group of eight rows and a row after it
  const int64_t row_bytes = 144 * k / 256;
  std::vector<float> x(k), wa(m * k), wb(m * k);
  for (int64_t i = 0; i < k; ++i) x[i] = static_cast<float>((i * 37) % 19) / 9.0f - 1.0f;
  for (int64_t i = 0; i < m * k; ++i) {
    wa[i] = static_cast<float>((i * 13) % 23) / 11.0f - 1.0f;
    wb[i] = static_cast<float>((i * 7) % 29) / 14.0f - 1.0f;
  }
  const auto quantize = [&](const std::vector<float>& w) {
    std::vector<std::byte> q(static_cast<size_t>(m * row_bytes));
    for (int64_t r = 0; r < m; ++r) tessera::kit::quantize_row(TSR_DTYPE_Q4_K, w.data() + r * k, q.data() + r * row_bytes, k);
    return q;
  };
  const std::vector<std::byte> qa = quantize(wa), qb = quantize(wb);
  tsr_buffer bx = alloc(k * 4), bw = alloc(qa.size()), fresh = alloc(qb.size()), bo = alloc(m * 4);
  ASSERT_EQ(plugin_->buffer_write(device_, bx, 0, x.data(), k * 4), TSR_OK);
  const tsr_kernel_desc* kernel = find_kernel(TSR_OP_MATMUL, TSR_DTYPE_Q4_K);
  ASSERT_NE(kernel, nullptr);
  const auto decode = [&](tsr_buffer weights) {
    const tsr_tensor inputs[] = {tensor(bx, TSR_DTYPE_F32, {1, k}), tensor(weights, TSR_DTYPE_Q4_K, {m, k})};
    const tsr_tensor out = tensor(bo, TSR_DTYPE_F32, {1, m});
    const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, inputs, &out};
    std::vector<float> result(m);
    EXPECT_EQ(kernel->run(device_, &call), TSR_OK) << plugin_->last_error(device_);
    EXPECT_EQ(plugin_->buffer_read(device_, bo, 0, result.data(), m * 4), TSR_OK);
    return result;
  };
  ASSERT_EQ(plugin_->buffer_write(device_, bw, 0, qa.data(), qa.size()), TSR_OK);
  const std::vector<float> with_a = decode(bw);
  ASSERT_EQ(plugin_->buffer_write(device_, bw, 0, qb.data(), qb.size()), TSR_OK);
  const std::vector<float> rewritten = decode(bw);
  ASSERT_EQ(plugin_->buffer_write(device_, fresh, 0, qb.data(), qb.size()), TSR_OK);
  const std::vector<float> with_b = decode(fresh);
  EXPECT_EQ(rewritten, with_b);
  EXPECT_NE(rewritten, with_a);
}

TEST_F(CpuPlugin, KernelErrorComesBackAsStatusAndLastError) {
  tsr_buffer bx = alloc(64 * 4), bw = alloc(4 * 63 * 2), bo = alloc(16);
  const tsr_tensor inputs[] = {tensor(bx, TSR_DTYPE_F32, {1, 64}), tensor(bw, TSR_DTYPE_F16, {4, 63})};
  const tsr_tensor out = tensor(bo, TSR_DTYPE_F32, {1, 4});
  const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, inputs, &out};
  const tsr_kernel_desc* k = find_kernel(TSR_OP_MATMUL, TSR_DTYPE_F16);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->run(device_, &call), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(plugin_->last_error(device_), StrEq("matmul: x has 64 columns but w has 63"));
}

TEST_F(CpuPlugin, KernelWithoutADeviceFailsWithoutCrashing) {
  const tsr_kernel_desc* k = find_kernel(TSR_OP_SILU, TSR_DTYPE_F32);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->run(nullptr, nullptr), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(plugin_->last_error(nullptr), StrEq("kernel called without a device"));
}

}  // namespace
