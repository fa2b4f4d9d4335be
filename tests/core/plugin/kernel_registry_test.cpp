#include "core/plugin/kernel_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/plugin/device.h"
#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::fake_plugin;
using ::testing::ElementsAre;

TEST(KernelRegistry, FindPicksTheHighestPriorityKernel) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const KernelRegistry registry({fake});
  const RegisteredKernel* kernel = registry.find(OpKind::Add, DType::F32, *fake);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->name, "add_f32_fast");
  EXPECT_EQ(kernel->priority, 10);
  EXPECT_EQ(kernel->plugin, fake.get());
  EXPECT_EQ(kernel->desc, &fake->kernels()[1]);
}

TEST(KernelRegistry, FindReturnsNullForAMissingOpDtypePair) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const KernelRegistry registry({fake});
  EXPECT_EQ(registry.find(OpKind::MatMul, DType::F32, *fake), nullptr);
  EXPECT_EQ(registry.find(OpKind::Scale, DType::F16, *fake), nullptr);
}

TEST(KernelRegistry, FindReturnsNullForAPluginNotRegistered) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const auto failing = PluginLibrary::load(fake_plugin("failing"));
  const KernelRegistry registry({fake});
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *failing), nullptr);
}

TEST(KernelRegistry, FindIsPerPlugin) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const auto failing = PluginLibrary::load(fake_plugin("failing"));
  const KernelRegistry registry({fake, failing});
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *failing)->name, "add_f32_broken");
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *fake)->name, "add_f32_fast");
}

TEST(KernelRegistry, FindAnyPrefersTheHigherPriorityAcrossPlugins) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const auto failing = PluginLibrary::load(fake_plugin("failing"));
  const KernelRegistry registry({failing, fake});
  EXPECT_EQ(registry.find_any(OpKind::Add, DType::F32)->name, "add_f32_fast");
}

TEST(KernelRegistry, FindAnyBreaksATieByRegistryOrder) {
  const test::TempDir dir;
  const auto copy = PluginLibrary::load(dir.copy_plugin("good", "libgood_copy.so"));
  const auto original = PluginLibrary::load(fake_plugin("good"));
  const KernelRegistry registry({copy, original});
  EXPECT_EQ(registry.find_any(OpKind::Scale, DType::F32)->plugin, copy.get());
  const KernelRegistry reversed({original, copy});
  EXPECT_EQ(reversed.find_any(OpKind::Scale, DType::F32)->plugin, original.get());
}

TEST(KernelRegistry, FindAnyReturnsNullWhenNoPluginHasTheKernel) {
  const KernelRegistry registry({PluginLibrary::load(fake_plugin("good"))});
  EXPECT_EQ(registry.find_any(OpKind::Attention, DType::F16), nullptr);
}

TEST(KernelRegistry, BackendsWithListsPluginsInRegistryOrder) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const auto failing = PluginLibrary::load(fake_plugin("failing"));
  const KernelRegistry registry({fake, failing});
  EXPECT_THAT(registry.backends_with(OpKind::Add, DType::F32), ElementsAre(fake.get(), failing.get()));
  EXPECT_THAT(registry.backends_with(OpKind::Add, DType::I32), ElementsAre(fake.get()));
  EXPECT_THAT(registry.backends_with(OpKind::MatMul, DType::Q8_0), ElementsAre());
}

TEST(KernelRegistry, ListsEveryKernelInTableOrder) {
  const KernelRegistry registry({PluginLibrary::load(fake_plugin("good"))});
  std::vector<std::string> names;
  for (const auto& k : registry.kernels()) names.push_back(k.name);
  EXPECT_THAT(names, ElementsAre("add_f32_reference", "add_f32_fast", "add_i32", "scale_f32"));
}

TEST(KernelRegistry, KeepsItsPluginsLoaded) {
  auto registry = std::make_unique<KernelRegistry>(
      std::vector<std::shared_ptr<const PluginLibrary>>{PluginLibrary::load(fake_plugin("good"))});
  EXPECT_TRUE(test::is_mapped(fake_plugin("good")));
  registry.reset();
  EXPECT_FALSE(test::is_mapped(fake_plugin("good")));
}

tsr_tensor f32_tensor(const DeviceBuffer& buffer, int64_t n) {
  return tsr_tensor{.buffer = buffer.handle(), .offset = 0, .dtype = TSR_DTYPE_F32, .ndim = 1,
                    .shape = {n, 1, 1, 1}, .host_data = buffer.host_ptr()};
}

TEST(KernelRegistry, ChosenKernelComputesOnTheDevice) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const KernelRegistry registry({fake});
  const auto device = Device::open(fake, 0);
  const std::vector<float> a = {1, 2, 3, 4, 5};
  const std::vector<float> b = {0.5f, -2, 10, 0, -5};
  DeviceBuffer a_buf = DeviceBuffer::alloc(device, 20, "a");
  DeviceBuffer b_buf = DeviceBuffer::alloc(device, 20, "b");
  DeviceBuffer out_buf = DeviceBuffer::alloc(device, 20, "out");
  a_buf.write(0, a.data(), 20);
  b_buf.write(0, b.data(), 20);

  const tsr_tensor inputs[2] = {f32_tensor(a_buf, 5), f32_tensor(b_buf, 5)};
  const tsr_tensor output = f32_tensor(out_buf, 5);
  const tsr_op_call call{.op = TSR_OP_ADD, .params = nullptr, .n_inputs = 2, .inputs = inputs,
                         .output = &output};
  device->run(*registry.find(OpKind::Add, DType::F32, *fake)->desc, call);

  std::vector<float> out(5);
  out_buf.read(0, out.data(), 20);
  EXPECT_THAT(out, ElementsAre(1.5f, 0.0f, 13.0f, 4.0f, 0.0f));
}

TEST(KernelRegistry, ChosenKernelReceivesItsParams) {
  const auto fake = PluginLibrary::load(fake_plugin("good"));
  const KernelRegistry registry({fake});
  const auto device = Device::open(fake, 0);
  const std::vector<float> x = {1, -2, 0.25f};
  DeviceBuffer x_buf = DeviceBuffer::alloc(device, 12, "x");
  DeviceBuffer out_buf = DeviceBuffer::alloc(device, 12, "out");
  x_buf.write(0, x.data(), 12);

  const ScaleParams params{.scale = 4.0f};
  const tsr_tensor input = f32_tensor(x_buf, 3);
  const tsr_tensor output = f32_tensor(out_buf, 3);
  const tsr_op_call call{.op = TSR_OP_SCALE, .params = &params, .n_inputs = 1, .inputs = &input,
                         .output = &output};
  device->run(*registry.find(OpKind::Scale, DType::F32, *fake)->desc, call);

  std::vector<float> out(3);
  out_buf.read(0, out.data(), 12);
  EXPECT_THAT(out, ElementsAre(4.0f, -8.0f, 1.0f));
}

}  // namespace
}  // namespace tessera
