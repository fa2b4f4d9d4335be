// The CUDA plugin through the host: it loads on any machine (runtime and cuBLAS only,
// no driver library), says why it has no device, lists its kernels; and with a GPU,
// describes it and moves bytes through its buffers with checked ranges and a named
// out-of-memory error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include "core/util/error.h"
#include "backends/gpu_kernel_checks.h"
#include "cuda_session.h"

namespace tessera::gpu_test {

const char* program_backend() { return "cuda"; }

}  // namespace tessera::gpu_test

namespace tessera::cuda::test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::StrEq;

TEST(CudaPlugin, LoadsThroughTheHostWithStepsAndWithoutHostPointers) {
  gpu_test::expect_device_backend_table("cuda");
}

// Every CPU kernel has a CUDA twin, the int8 KV cache and the MoE ops included: a
// kernel added to the CPU plugin alone fails this test.
TEST(CudaPlugin, RegistersEveryCpuKernel) { gpu_test::expect_every_cpu_kernel_registered(); }

TEST(CudaPlugin, WithoutADeviceSaysWhyAndRefusesToOpenOne) {
  const auto& s = session();
  ASSERT_NE(s.plugin, nullptr) << s.skip_reason;
  if (s.plugin->device_count() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_THAT(s.plugin->unavailable_reason(), StartsWith("no CUDA device: "));
  EXPECT_THAT(s.skip_reason, StartsWith("no CUDA device: "));
  const tsr_plugin& t = s.plugin->table();
  tsr_device_info info{};
  EXPECT_EQ(t.device_info(0, &info), TSR_E_INVALID_ARGUMENT);
  EXPECT_THAT(t.last_error(nullptr), StrEq("device_info: no cuda device 0 (there are 0)"));
  void* handle = reinterpret_cast<void*>(1);
  EXPECT_EQ(t.device_open(0, nullptr, &handle), TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(handle, nullptr);
  EXPECT_THAT(t.last_error(nullptr), StrEq("device_open: no cuda device 0 (there are 0)"));
}

class OpenCudaDevice : public CudaTest {
 protected:
  Device& device() { return *session().device; }
  const tsr_plugin& table() { return session().plugin->table(); }
};

TEST_F(OpenCudaDevice, DescriptionNamesComputeCapabilitySmsAndMemory) {
  const tsr_device_info info = session().plugin->device_info(0);
  EXPECT_GT(std::strlen(info.name), 0u);
  EXPECT_THAT(info.description, HasSubstr("compute capability "));
  EXPECT_THAT(info.description, HasSubstr(" SMs, "));
  EXPECT_THAT(info.description, HasSubstr(" GiB free of "));
  EXPECT_GT(info.memory_bytes, 0u);
  EXPECT_EQ(info.host_visible, 0);
}

TEST_F(OpenCudaDevice, WriteThenReadRoundTripsAtAnUnalignedOffset) { gpu_test::expect_unaligned_round_trip(); }

// 40 MiB and some: more than two chunks of the pinned staging buffers, at an odd offset.
TEST_F(OpenCudaDevice, LargeWriteThroughTheStagingBuffersRoundTrips) {
  const uint64_t size = (uint64_t{40} << 20) + 123;
  std::vector<uint8_t> data(size);
  for (uint64_t i = 0; i < size; ++i) data[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  DeviceBuffer b = DeviceBuffer::alloc(session().device, size + 7, "large");
  b.write(7, data.data(), size);
  std::vector<uint8_t> back(size);
  b.read(7, back.data(), size);
  EXPECT_TRUE(back == data);
}

TEST_F(OpenCudaDevice, BufferWritePastTheEndFailsWithAMessage) { gpu_test::expect_overrun_refused(); }

TEST_F(OpenCudaDevice, ImpossibleAllocationIsOutOfMemoryNamingTheSizeAndTheFreeMemory) {
  tsr_buffer b = nullptr;
  EXPECT_EQ(table().buffer_alloc(device().handle(), uint64_t{1} << 50, &b), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(b, nullptr);
  EXPECT_THAT(table().last_error(device().handle()),
              HasSubstr("buffer_alloc: 1125899906842624 bytes do not fit on cuda:0 ("));
  EXPECT_THAT(table().last_error(device().handle()), HasSubstr(" bytes free)"));
}

}  // namespace
}  // namespace tessera::cuda::test
