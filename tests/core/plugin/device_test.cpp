#include "core/plugin/device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::error_message;
using test::fake_counter;
using test::fake_plugin;

std::shared_ptr<Device> open_fake(const std::string& variant = "good") {
  return Device::open(PluginLibrary::load(fake_plugin(variant)), 0);
}

TEST(Device, IsNamedPluginColonIndex) {
  const auto device = open_fake();
  EXPECT_EQ(device->name(), "fake:0");
  EXPECT_STREQ(device->info().name, "Fake Device");
  EXPECT_EQ(device->index(), 0);
  EXPECT_EQ(device->plugin().name(), "fake");
}

TEST(Device, OpenRefusesAPluginWithoutDevices) {
  const auto plugin = PluginLibrary::load(fake_plugin("absent"));
  EXPECT_EQ(error_message([&] { Device::open(plugin, 0); }),
            "absent: no devices (no fake hardware present)");
}

TEST(Device, OpenRefusesAnIndexOutOfRange) {
  const auto plugin = PluginLibrary::load(fake_plugin("good"));
  EXPECT_EQ(error_message([&] { Device::open(plugin, 3); }), "fake: no device 3 (the plugin has 1)");
}

TEST(Device, ClosesInItsDestructor) {
  auto device = open_fake();
  EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_open_devices"), 1);
  auto plugin_keeper = PluginLibrary::load(fake_plugin("good"));  // keeps the counters readable
  device.reset();
  EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_open_devices"), 0);
}

TEST(DeviceBuffer, WriteThenReadRoundTrips) {
  const auto device = open_fake();
  DeviceBuffer buffer = DeviceBuffer::alloc(device, 16, "x");
  const float in[4] = {1.5f, -2.0f, 3.25f, 0.0f};
  buffer.write(0, in, sizeof in);
  float out[2] = {};
  buffer.read(4, out, sizeof out);
  EXPECT_EQ(out[0], -2.0f);
  EXPECT_EQ(out[1], 3.25f);
  EXPECT_EQ(buffer.size(), 16u);
  EXPECT_EQ(buffer.what(), "x");
}

TEST(DeviceBuffer, AllocFailureNamesDeviceSizeTensorAndCause) {
  const auto device = open_fake();
  EXPECT_EQ(error_message([&] { DeviceBuffer::alloc(device, 2254857830ull, "blk.3.ffn_up.weight"); }),
            "fake:0: cannot allocate 2.1 GiB for 'blk.3.ffn_up.weight': "
            "fake device: 2254857830 bytes exceed the 1048576-byte limit");
}

TEST(DeviceBuffer, HostPtrIsTheBufferMemoryOnAHostVisibleDevice) {
  const auto device = open_fake();
  DeviceBuffer buffer = DeviceBuffer::alloc(device, 8, "x");
  const int32_t values[2] = {7, -9};
  buffer.write(0, values, sizeof values);
  ASSERT_NE(buffer.host_ptr(), nullptr);
  EXPECT_EQ(static_cast<const int32_t*>(buffer.host_ptr())[1], -9);
}

TEST(DeviceBuffer, HostPtrIsNullWhenThePluginHasNoSuchSlot) {
  const auto device = open_fake("copying");
  const DeviceBuffer buffer = DeviceBuffer::alloc(device, 8, "x");
  EXPECT_EQ(buffer.host_ptr(), nullptr);
}

TEST(DeviceBuffer, WrapHostIsZeroCopyWhenThePluginSupportsIt) {
  const auto device = open_fake();
  std::vector<float> host = {1, 2, 3};
  const DeviceBuffer buffer = DeviceBuffer::wrap_host(device, host.data(), 12, "w");
  EXPECT_FALSE(buffer.copied_from_host());
  EXPECT_EQ(buffer.host_ptr(), host.data());
  host[2] = 42;  // shared memory: the device sees the change
  float out = 0;
  buffer.read(8, &out, sizeof out);
  EXPECT_EQ(out, 42.0f);
}

TEST(DeviceBuffer, WrapHostFallsBackToAllocAndWrite) {
  const auto device = open_fake("copying");
  std::vector<float> host = {1, 2, 3};
  const DeviceBuffer buffer = DeviceBuffer::wrap_host(device, host.data(), 12, "w");
  EXPECT_TRUE(buffer.copied_from_host());
  host[2] = 42;  // a copy: the device keeps the value written at wrap time
  float out[3] = {};
  buffer.read(0, out, sizeof out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[2], 3.0f);
}

TEST(DeviceBuffer, WriteRefusesARangePastTheEnd) {
  const auto device = open_fake();
  DeviceBuffer buffer = DeviceBuffer::alloc(device, 16, "x");
  const char bytes[8] = {};
  EXPECT_EQ(error_message([&] { buffer.write(12, bytes, 8); }),
            "fake:0: cannot write 8 bytes at offset 12 of 'x' (16 bytes)");
}

TEST(DeviceBuffer, ReadRefusesAnOffsetPastTheEnd) {
  const auto device = open_fake();
  const DeviceBuffer buffer = DeviceBuffer::alloc(device, 16, "x");
  char byte = 0;
  EXPECT_EQ(error_message([&] { buffer.read(~uint64_t{0}, &byte, 1); }),
            "fake:0: cannot read 1 bytes at offset 18446744073709551615 of 'x' (16 bytes)");
}

TEST(DeviceBuffer, IsFreedOnceAfterAMove) {
  const auto device = open_fake();
  {
    DeviceBuffer first = DeviceBuffer::alloc(device, 4, "a");
    DeviceBuffer second = std::move(first);
    DeviceBuffer third = DeviceBuffer::alloc(device, 4, "b");
    EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_live_buffers"), 2);
    third = std::move(second);  // frees "b"
    EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_live_buffers"), 1);
    EXPECT_EQ(third.what(), "a");
  }
  EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_live_buffers"), 0);
}

TEST(DeviceBuffer, KeepsItsDeviceOpenUntilFreed) {
  auto device = open_fake();
  auto buffer = std::make_unique<DeviceBuffer>(DeviceBuffer::alloc(device, 4, "a"));
  device.reset();
  EXPECT_EQ(fake_counter(fake_plugin("good"), "fake_open_devices"), 1);
  EXPECT_EQ(buffer->device().name(), "fake:0");
  buffer.reset();  // frees the buffer, closes the device, unloads the library
  EXPECT_FALSE(test::is_mapped(fake_plugin("good")));
}

TEST(Device, UnmapsTheLibraryOnlyAfterBuffersAndDevicesAreGone) {
  const std::string path = fake_plugin("good");
  auto plugin = PluginLibrary::load(path);
  auto device = Device::open(plugin, 0);
  auto buffer = std::make_unique<DeviceBuffer>(DeviceBuffer::alloc(device, 64, "x"));
  plugin.reset();
  device.reset();
  EXPECT_TRUE(test::is_mapped(path));
  EXPECT_EQ(fake_counter(path, "fake_live_buffers"), 1);
  buffer.reset();
  EXPECT_FALSE(test::is_mapped(path));
}

TEST(Device, KernelFailureCarriesThePluginsLastError) {
  const auto device = open_fake("failing");
  const tsr_op_call call{.op = TSR_OP_ADD, .params = nullptr, .n_inputs = 0, .inputs = nullptr,
                         .output = nullptr};
  EXPECT_EQ(error_message([&] { device->run(device->plugin().kernels()[0], call); }),
            "failing:0: kernel 'add_f32_broken' (add f32): this kernel always fails");
}

TEST(Device, RunRefusesAKernelOfAnotherPlugin) {
  const auto device = open_fake("failing");
  const auto good = PluginLibrary::load(fake_plugin("good"));
  const tsr_op_call call{.op = TSR_OP_ADD, .params = nullptr, .n_inputs = 0, .inputs = nullptr,
                         .output = nullptr};
  EXPECT_EQ(error_message([&] { device->run(good->kernels()[0], call); }),
            "failing:0: kernel 'add_f32_reference' (add f32) is not a kernel of plugin 'failing'");
}

TEST(Device, StepBracketsAreNoOpsForASynchronousPlugin) {
  const auto device = open_fake();
  EXPECT_NO_THROW(device->begin_step());
  EXPECT_NO_THROW(device->end_step());
}

}  // namespace
}  // namespace tessera
