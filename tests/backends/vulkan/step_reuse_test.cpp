// Steps recorded once and replayed (VulkanDevice directly, not through the plugin):
// identical steps rerun the recorded command buffer with fresh input data, a change of
// push constants records anew, alternating steps both come from the cache, freed memory
// and grown scratch drop what was recorded, and a replayed step still reports a
// kernel's error with its message. Any validation message fails a test. Most steps use
// SCALE and GET_ROWS, whose push-constant structs have no padding bytes; one checks that
// ADD's (which has padding) still replays, as the plugin's objects zero their locals.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

#include "backends/vulkan/buffer.h"
#include "backends/vulkan/device.h"
#include "backends/vulkan/ops/ops.h"
#include "backends/vulkan/runtime.h"

namespace tessera::vulkan {
namespace {

constexpr int64_t kCount = 300;  // elements of each test tensor: several workgroups

// A 1-D tensor of `count` elements of `dtype` in its own device allocation.
class DeviceVector {
 public:
  DeviceVector(VulkanDevice& device, tsr_dtype dtype, int64_t count) : device_(device) {
    buffer_.allocation = device.memory().allocate(static_cast<uint64_t>(count) * 4);
    desc_.buffer = &buffer_;
    desc_.dtype = dtype;
    desc_.ndim = 1;
    desc_.shape[0] = count;
    for (int i = 1; i < 4; ++i) desc_.shape[i] = 1;
  }
  ~DeviceVector() {
    if (buffer_.allocation.block) device_.free(buffer_.allocation);
  }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;

  const tsr_tensor& desc() const { return desc_; }
  // Frees the memory now (as buffer_free does); the tensor is unusable afterwards.
  void free() {
    device_.free(buffer_.allocation);
    buffer_.allocation = {};
  }
  template <class T>
  void write(const std::vector<T>& values) {
    device_.write(buffer_.allocation, 0, values.data(), values.size() * sizeof(T));
  }
  std::vector<float> read() {
    std::vector<float> values(static_cast<size_t>(desc_.shape[0]));
    device_.read(buffer_.allocation, 0, values.data(), values.size() * sizeof(float));
    return values;
  }

 private:
  VulkanDevice& device_;
  tsr_buffer_impl buffer_{};
  tsr_tensor desc_{};
};

std::vector<float> ramp(float start, float step, int64_t count = kCount) {
  std::vector<float> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

class StepReuse : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Runtime::get().device_count() == 0) {
      GTEST_SKIP() << "no Vulkan device: " << Runtime::get().unavailable_reason();
    }
    messages_before_ = Runtime::get().validation_messages();
    device_ = std::make_unique<VulkanDevice>(0);
    a_ = vector(TSR_DTYPE_F32);
    b_ = vector(TSR_DTYPE_F32);
    out_ = vector(TSR_DTYPE_F32);
  }
  void TearDown() override {
    if (!device_) return;
    a_.reset();
    b_.reset();
    out_.reset();
    device_.reset();
    EXPECT_EQ(Runtime::get().validation_messages(), messages_before_) << "validation messages (see stderr)";
  }

  std::unique_ptr<DeviceVector> vector(tsr_dtype dtype, int64_t count = kCount) {
    return std::make_unique<DeviceVector>(*device_, dtype, count);
  }
  // out = factor * x through the SCALE kernel (the factor is a push constant).
  void scale(const DeviceVector& x, float factor, const DeviceVector& out) {
    const tsr_scale_params params{factor};
    vulkan::scale(*device_, tsr_op_call{TSR_OP_SCALE, &params, 1, &x.desc(), &out.desc()});
  }
  // out = x + y through the ADD kernel (its push constants end in 4 padding bytes).
  void add(const DeviceVector& x, const DeviceVector& y, const DeviceVector& out) {
    const tsr_tensor in[2] = {x.desc(), y.desc()};
    vulkan::add(*device_, tsr_op_call{TSR_OP_ADD, nullptr, 2, in, &out.desc()});
  }
  // One step that scales a_ into out_.
  void scale_step(float factor) {
    device_->begin_step();
    scale(*a_, factor, *out_);
    device_->end_step();
  }
  void expect_scaled(const std::vector<float>& x, float factor) {
    const std::vector<float> got = out_->read();
    ASSERT_EQ(got.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], factor * x[i]) << "element " << i;
  }

  std::unique_ptr<VulkanDevice> device_;
  std::unique_ptr<DeviceVector> a_, b_, out_;
  uint64_t messages_before_ = 0;
};

TEST_F(StepReuse, SecondIdenticalStepReplaysWithTheNewInputData) {
  for (int round = 0; round < 3; ++round) {
    const std::vector<float> x = ramp(static_cast<float>(round), 0.5f);
    a_->write(x);
    device_->begin_step();  // out = 3 a, then b = out / 2: the second reads the first
    scale(*a_, 3.0f, *out_);
    scale(*out_, 0.5f, *b_);
    device_->end_step();
    expect_scaled(x, 3.0f);
    const std::vector<float> got = b_->read();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], 3.0f * x[i] * 0.5f) << "round " << round << " element " << i;
  }
  EXPECT_EQ(device_->steps_recorded(), 1u);
  EXPECT_EQ(device_->steps_replayed(), 2u);
}

TEST_F(StepReuse, StepOfAKernelWithPaddedPushConstantsReplays) {
  for (int round = 0; round < 3; ++round) {
    const std::vector<float> x = ramp(static_cast<float>(round), 0.5f), y = ramp(-3.0f, static_cast<float>(round));
    a_->write(x);
    b_->write(y);
    device_->begin_step();
    add(*a_, *b_, *out_);
    device_->end_step();
    const std::vector<float> got = out_->read();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] + y[i]) << "round " << round << " element " << i;
  }
  EXPECT_EQ(device_->steps_recorded(), 1u);
  EXPECT_EQ(device_->steps_replayed(), 2u);
}

TEST_F(StepReuse, StepWithOtherPushConstantsIsRecordedAnew) {
  const std::vector<float> x = ramp(1.0f, 0.25f);
  a_->write(x);
  scale_step(2.0f);
  expect_scaled(x, 2.0f);
  scale_step(3.0f);
  expect_scaled(x, 3.0f);
  EXPECT_EQ(device_->steps_recorded(), 2u);
  EXPECT_EQ(device_->steps_replayed(), 0u);
}

TEST_F(StepReuse, AlternatingStepsAreBothReplayedFromTheCache) {
  const std::vector<float> x = ramp(-2.0f, 0.125f);
  a_->write(x);
  for (int i = 0; i < 6; ++i) {
    const float factor = i % 2 == 0 ? 2.0f : 0.5f;
    scale_step(factor);
    expect_scaled(x, factor);
  }
  EXPECT_EQ(device_->steps_recorded(), 2u);
  EXPECT_EQ(device_->steps_replayed(), 4u);
  EXPECT_EQ(device_->recorded_steps_kept(), 2u);
}

TEST_F(StepReuse, StepBeyondTheSlotsEvictsTheLeastRecentlyUsed) {
  const std::vector<float> x = ramp(1.0f, 1.0f);
  a_->write(x);
  const uint32_t slots = VulkanDevice::kStepSlots;
  for (uint32_t i = 0; i <= slots; ++i) scale_step(static_cast<float>(i + 1));  // the last evicts factor 1
  scale_step(2.0f);  // still kept
  expect_scaled(x, 2.0f);
  EXPECT_EQ(device_->steps_replayed(), 1u);
  scale_step(1.0f);  // evicted: recorded again
  expect_scaled(x, 1.0f);
  EXPECT_EQ(device_->steps_recorded(), slots + 2);
  EXPECT_EQ(device_->steps_replayed(), 1u);
}

TEST_F(StepReuse, FreeingABufferDropsTheRecordedSteps) {
  const std::vector<float> x = ramp(0.0f, 1.0f);
  a_->write(x);
  scale_step(2.0f);
  ASSERT_EQ(device_->recorded_steps_kept(), 1u);
  b_->free();
  EXPECT_EQ(device_->recorded_steps_kept(), 0u);
  scale_step(2.0f);
  expect_scaled(x, 2.0f);
  EXPECT_EQ(device_->steps_recorded(), 2u);
  EXPECT_EQ(device_->steps_replayed(), 0u);
}

TEST_F(StepReuse, GrowingTheScratchBufferDropsTheRecordedSteps) {
  scale_step(2.0f);
  ASSERT_EQ(device_->recorded_steps_kept(), 1u);
  device_->scratch(4096);
  EXPECT_EQ(device_->recorded_steps_kept(), 0u);
  device_->scratch(1024);  // fits: nothing changes
  scale_step(2.0f);
  EXPECT_EQ(device_->recorded_steps_kept(), 1u);
  EXPECT_EQ(device_->steps_recorded(), 2u);
}

TEST_F(StepReuse, ErrorInAReplayedStepGivesTheKernelsMessage) {
  // The step: SCALE (call 0), then GET_ROWS (call 1) from a 7-row table.
  auto table = vector(TSR_DTYPE_F32, 7 * 4);
  table->write(ramp(0.0f, 1.0f, 7 * 4));
  auto idx = vector(TSR_DTYPE_I32, 3);
  auto rows = vector(TSR_DTYPE_F32, 3 * 4);
  tsr_tensor table_desc = table->desc(), rows_desc = rows->desc();
  table_desc.ndim = rows_desc.ndim = 2;
  table_desc.shape[0] = 7;
  rows_desc.shape[0] = 3;
  table_desc.shape[1] = rows_desc.shape[1] = 4;
  const auto step = [&] {
    device_->begin_step();
    scale(*a_, 2.0f, *out_);
    const tsr_tensor in[2] = {table_desc, idx->desc()};
    get_rows(*device_, tsr_op_call{TSR_OP_GET_ROWS, nullptr, 2, in, &rows_desc});
    device_->end_step();
  };
  idx->write(std::vector<int32_t>{1, 2, 3});
  step();
  idx->write(std::vector<int32_t>{1, 2, 600});
  try {
    step();
    FAIL() << "the bad index was not reported";
  } catch (const VulkanError& e) {
    EXPECT_EQ(std::string(e.what()), "get_rows: idx[2] = 600 is outside the table's 7 rows");
  }
  EXPECT_EQ(device_->steps_replayed(), 1u);
  idx->write(std::vector<int32_t>{6, 0, 5});
  step();
  EXPECT_EQ(rows->read(), (std::vector<float>{24, 25, 26, 27, 0, 1, 2, 3, 20, 21, 22, 23}));
  EXPECT_EQ(device_->steps_recorded(), 1u);
  EXPECT_EQ(device_->steps_replayed(), 2u);
}

TEST_F(StepReuse, BeginStepDropsTheDispatchesOfAnUnfinishedStep) {
  const std::vector<float> x = ramp(1.0f, 1.0f), zeros(static_cast<size_t>(kCount), 0.0f);
  a_->write(x);
  b_->write(zeros);
  device_->begin_step();
  scale(*a_, 5.0f, *b_);  // never submitted
  device_->begin_step();
  scale(*a_, 2.0f, *out_);
  device_->end_step();
  expect_scaled(x, 2.0f);
  EXPECT_EQ(b_->read(), zeros);
  EXPECT_EQ(device_->steps_recorded(), 1u);
}

TEST_F(StepReuse, ReadInsideAStepRunsWhatIsPendingAndBothPartsReplay) {
  for (int round = 0; round < 2; ++round) {
    const std::vector<float> x = ramp(static_cast<float>(round), 2.0f);
    a_->write(x);
    device_->begin_step();
    scale(*a_, 3.0f, *out_);
    expect_scaled(x, 3.0f);  // the read flushes the first part
    scale(*out_, 0.5f, *a_);
    device_->end_step();
    const std::vector<float> got = a_->read();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], 3.0f * x[i] * 0.5f) << "element " << i;
  }
  EXPECT_EQ(device_->steps_recorded(), 2u);
  EXPECT_EQ(device_->steps_replayed(), 2u);
}

TEST_F(StepReuse, DispatchOutsideAStepRunsAtOnceUnrecorded) {
  const std::vector<float> x = ramp(4.0f, -0.5f);
  a_->write(x);
  scale(*a_, 4.0f, *out_);
  expect_scaled(x, 4.0f);
  EXPECT_EQ(device_->steps_recorded(), 0u);
  EXPECT_EQ(device_->recorded_steps_kept(), 0u);
}

}  // namespace
}  // namespace tessera::vulkan
