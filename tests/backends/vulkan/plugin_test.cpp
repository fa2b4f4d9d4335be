// The Vulkan plugin through the host: its table, devices and kernel list, buffers
// (sub-allocation, offsets, limits), steps recorded into one command buffer, and the
// errors it reports, host-side and device-side.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/op_params.h"
#include "backends/cpu/ops/norm.h"
#include "core/util/error.h"
#include "backends/gpu_index_errors.h"
#include "backends/gpu_kernel_checks.h"
#include "vulkan_session.h"

namespace tessera::vulkan::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StrEq;
using cpu::test::random_values;
using cpu::test::relative_error;

TEST(VulkanPlugin, LoadsThroughTheHostWithStepsAndWithoutHostPointers) {
  gpu_test::expect_device_backend_table("vulkan");
}

// Every CPU kernel has a Vulkan twin, the int8 (Q8_0-block) KV cache included: a
// kernel added to the CPU plugin alone fails this test.
TEST(VulkanPlugin, RegistersEveryCpuKernel) { gpu_test::expect_every_cpu_kernel_registered(); }

class OpenDevice : public VulkanTest {
 protected:
  Device& device() { return *session().device; }
  const tsr_plugin& table() { return session().plugin->table(); }
};

TEST_F(OpenDevice, DescriptionNamesTheFeaturesAndMemory) {
  const tsr_device_info info = session().plugin->device_info(0);
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_THAT(info.description, HasSubstr(", subgroup "));
  EXPECT_THAT(info.description, HasSubstr(", fp16 "));
  EXPECT_THAT(info.description, HasSubstr(", 16-bit storage yes"));
  EXPECT_THAT(info.description, HasSubstr(", int8 dot "));
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_EQ(info.host_visible, 0);
}

TEST_F(OpenDevice, ValidationIsOnWhenTheTestsAskForIt) {
  const char* value = std::getenv("TESSERA_VULKAN_VALIDATION");
  if (value == nullptr || std::string(value) != "1") GTEST_SKIP() << "TESSERA_VULKAN_VALIDATION is not 1";
  EXPECT_THAT(session().plugin->device_info(0).description, HasSubstr("; validation on, "));
  EXPECT_EQ(validation_messages(), 0);
}

TEST_F(OpenDevice, WriteThenReadRoundTripsAtAnUnalignedOffset) { gpu_test::expect_unaligned_round_trip(); }

TEST_F(OpenDevice, BufferWritePastTheEndFailsWithAMessage) { gpu_test::expect_overrun_refused(); }

TEST_F(OpenDevice, ImpossibleAllocationIsOutOfMemoryNamingTheHeap) {
  tsr_buffer b = nullptr;
  EXPECT_EQ(table().buffer_alloc(device().handle(), uint64_t{1} << 50, &b), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(b, nullptr);
  EXPECT_THAT(table().last_error(device().handle()),
              HasSubstr("buffer_alloc: cannot reserve 1024.0 TiB of device memory: the device heap holds "));
  const std::string message =
      error_of([&] { DeviceBuffer::alloc(session().device, uint64_t{1} << 50, "huge weights"); });
  EXPECT_THAT(message, HasSubstr("'huge weights'"));
  EXPECT_THAT(message, HasSubstr("cannot reserve"));
}

TEST_F(OpenDevice, FiveThousandSmallBuffersDoNotOverlap) {
  std::vector<DeviceBuffer> buffers;
  for (uint32_t i = 0; i < 5000; ++i) {
    buffers.push_back(DeviceBuffer::alloc(session().device, 100 + i % 7, "small"));
    const std::vector<uint32_t> fill(25, i);
    buffers.back().write(0, fill.data(), fill.size() * 4);
  }
  size_t wrong = 0;
  for (uint32_t i = 0; i < buffers.size(); ++i) {
    std::vector<uint32_t> back(25);
    buffers[i].read(0, back.data(), back.size() * 4);
    if (back != std::vector<uint32_t>(25, i)) ++wrong;
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(OpenDevice, BufferLargerThanAPoolBlockRoundTrips) {
  const uint64_t bytes = uint64_t{48} << 20;  // more than half of a 64 MiB block: a block of its own
  DeviceBuffer b = DeviceBuffer::alloc(session().device, bytes, "large");
  std::vector<uint32_t> data(bytes / 4);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint32_t>(i * 2654435761u);
  b.write(0, data.data(), bytes);
  std::vector<uint32_t> back(data.size());
  b.read(0, back.data(), bytes);
  EXPECT_EQ(back, data);
}

// ---- errors ------------------------------------------------------------------------

TEST_F(OpenDevice, BadShapeFailsOnTheHostWithTheCpuMessage) {
  const GpuTensor x(HostTensor(TSR_DTYPE_F32, {1, 64}), 4);
  const GpuTensor w(HostTensor(TSR_DTYPE_F16, {4, 63}), 2);
  const GpuTensor out(HostTensor(TSR_DTYPE_F32, {1, 4}), 4);
  EXPECT_THAT(error_of([&] { run_vulkan(TSR_OP_MATMUL, TSR_DTYPE_F16, nullptr, {&x, &w}, out); }),
              HasSubstr("matmul: x has 64 columns but w has 63"));
}

TEST_F(OpenDevice, MisalignedTensorIsRefused) {
  const GpuTensor x(HostTensor(TSR_DTYPE_F32, {2, 3}), 4);
  GpuTensor out(HostTensor(TSR_DTYPE_F32, {2, 3}), 4);
  tsr_tensor shifted = out.desc();
  shifted.offset = 6;
  const tsr_op_call call{TSR_OP_SILU, nullptr, 1, &x.desc(), &shifted};
  const RegisteredKernel* k = session().registry->find(OpKind::Silu, DType::F32, *session().plugin);
  EXPECT_THAT(error_of([&] { device().run(*k->desc, call); }),
              HasSubstr("silu: out at offset 6 is not aligned to 4 bytes for f32"));
}

TEST_F(OpenDevice, IndexOutsideTheTableIsReportedByTheKernel) { gpu_test::expect_get_rows_index_reported(); }
TEST_F(OpenDevice, DeviceErrorInsideAStepComesBackFromStepEnd) { gpu_test::expect_step_end_reports_the_kernels_error(); }
TEST_F(OpenDevice, SlotOutsideTheCacheIsReportedByTheKernel) { gpu_test::expect_kv_write_slot_reported(); }
TEST_F(OpenDevice, BlockTableEntryOutsideTheCacheIsReported) { gpu_test::expect_attention_block_reported(); }
TEST_F(OpenDevice, NegativePositionIsReported) { gpu_test::expect_attention_negative_position_reported(); }
TEST_F(OpenDevice, SequenceOutsideTheBlockTablesIsReported) { gpu_test::expect_attention_seq_reported(); }
TEST_F(OpenDevice, PositionBeyondTheBlockTableIsReported) { gpu_test::expect_attention_block_index_reported(); }

// ---- steps -------------------------------------------------------------------------

TEST_F(OpenDevice, ChainedKernelsInOneStepSeeEachOthersResults) {
  // h = x w^T; g = h + b; out = rms_norm(g): each kernel reads what the previous wrote.
  const HostTensor x = HostTensor::f32({3, 40}, random_values(120, 91));
  const HostTensor w = HostTensor::from_f32(TSR_DTYPE_F16, {24, 40}, random_values(960, 92));
  const HostTensor b = HostTensor::f32({24}, random_values(24, 93));
  const HostTensor gain = HostTensor::f32({24}, random_values(24, 94));
  const tsr_norm_params norm = cpu::test::norm_params(1e-5f, false);
  HostTensor h(TSR_DTYPE_F32, {3, 24}), g(TSR_DTYPE_F32, {3, 24}), ref(TSR_DTYPE_F32, {3, 24});
  run_reference(cpu::matmul_ref, TSR_OP_MATMUL, nullptr, {&x, &w}, h);
  run_reference(cpu::add_ref, TSR_OP_ADD, nullptr, {&h, &b}, g);
  run_reference(cpu::rms_norm_ref, TSR_OP_RMS_NORM, &norm, {&g, &gain}, ref);

  const GpuTensor gx(x, 4), gw(w, 2), gb(b, 12), ggain(gain, 20);
  const GpuTensor gh(HostTensor(TSR_DTYPE_F32, {3, 24}), 36), gg(HostTensor(TSR_DTYPE_F32, {3, 24}), 44);
  const GpuTensor gout(HostTensor(TSR_DTYPE_F32, {3, 24}), 52);
  device().begin_step();
  run_vulkan(TSR_OP_MATMUL, TSR_DTYPE_F16, nullptr, {&gx, &gw}, gh);
  run_vulkan(TSR_OP_ADD, TSR_DTYPE_F32, nullptr, {&gh, &gb}, gg);
  run_vulkan(TSR_OP_RMS_NORM, TSR_DTYPE_F32, &norm, {&gg, &ggain}, gout);
  device().end_step();
  EXPECT_LT(relative_error(gout.read().to_f32(), ref.to_f32()), 1e-5);
}

TEST_F(OpenDevice, ReadInsideAStepSeesTheKernelsBeforeIt) {
  const HostTensor x = HostTensor::f32({2, 5}, random_values(10, 95));
  const tsr_scale_params p{2.0f};
  HostTensor ref(TSR_DTYPE_F32, {2, 5});
  run_reference(cpu::scale_ref, TSR_OP_SCALE, &p, {&x}, ref);
  const GpuTensor gx(x, 4), gout(HostTensor(TSR_DTYPE_F32, {2, 5}), 8);
  device().begin_step();
  run_vulkan(TSR_OP_SCALE, TSR_DTYPE_F32, &p, {&gx}, gout);
  EXPECT_EQ(gout.read().to_f32(), ref.to_f32());
  device().end_step();
}

TEST_F(OpenDevice, BeginningAStepAgainDropsTheUnsubmittedKernels) {
  const HostTensor x = HostTensor::f32({1, 3}, {1, 2, 3});
  const tsr_scale_params p{10.0f};
  const GpuTensor gx(x, 4), gout(HostTensor(TSR_DTYPE_F32, {1, 3}), 8);
  device().begin_step();
  run_vulkan(TSR_OP_SCALE, TSR_DTYPE_F32, &p, {&gx}, gout);
  device().begin_step();  // the first step failed half way, say: its kernels never run
  device().end_step();
  EXPECT_EQ(gout.read().to_f32(), std::vector<float>({0, 0, 0}));
}

}  // namespace
}  // namespace tessera::vulkan::test
