// Kernel plugins (tsr_plugin.extends): loading one without device slots, the refusals,
// how the registry merges their kernels into their backend's choice, and running them
// on the backend's device through host_data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/plugin/device.h"
#include "core/plugin/kernel_registry.h"
#include "core/plugin/plugin_listing.h"
#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::error_message;
using test::fake_plugin;
using ::testing::ElementsAre;

// The fake kernel plugins live apart from the other fakes: "extension" -> libfake_extension.so.
std::string kernel_plugin(const std::string& variant) {
  return std::string(FAKE_KERNEL_PLUGIN_DIR) + "/libfake_" + variant + ".so";
}

// A fake backend ("good", "failing") or kernel plugin ("extension") by variant.
std::shared_ptr<const PluginLibrary> load(const std::string& variant) {
  const bool kernel_only =
      variant == "extension" || variant == "copying_extension" || variant == "self_extension";
  return PluginLibrary::load(kernel_only ? kernel_plugin(variant) : fake_plugin(variant));
}

// A 1-d f32 tensor over the whole of `buffer`, with its host address.
tsr_tensor f32_tensor(const DeviceBuffer& buffer) {
  return tsr_tensor{.buffer = buffer.handle(), .offset = 0, .dtype = TSR_DTYPE_F32, .ndim = 1,
                    .shape = {static_cast<int64_t>(buffer.size() / 4), 1, 1, 1},
                    .host_data = buffer.host_ptr()};
}

DeviceBuffer f32_buffer(const std::shared_ptr<Device>& device, const std::vector<float>& values,
                        const char* what) {
  DeviceBuffer buffer = DeviceBuffer::alloc(device, values.size() * 4, what);
  buffer.write(0, values.data(), values.size() * 4);
  return buffer;
}

// A backend, a second plugin registered after it, and the backend's device.
struct DeviceWithPlugin {
  DeviceWithPlugin(const std::string& backend_variant, const std::string& plugin_variant)
      : backend(load(backend_variant)),
        plugin(load(plugin_variant)),
        registry({backend, plugin}),
        device(Device::open(backend, 0)) {}
  // The f32 kernel of `op` the registry gives for `of`'s devices (or, for a kernel
  // plugin, among its own).
  const RegisteredKernel& kernel(OpKind op, const PluginLibrary& of) const {
    return *registry.find(op, DType::F32, of);
  }

  std::shared_ptr<const PluginLibrary> backend, plugin;
  KernelRegistry registry;
  std::shared_ptr<Device> device;
};

// An ADD call without tensors, for refusals that come before any tensor is read.
constexpr tsr_op_call kAddWithoutTensors{.op = TSR_OP_ADD, .params = nullptr, .n_inputs = 0,
                                         .inputs = nullptr, .output = nullptr};

TEST(KernelPlugin, LoadsWithoutDeviceOrBufferSlots) {
  const auto ext = load("extension");
  EXPECT_EQ(ext->name(), "fake_ext");
  EXPECT_TRUE(ext->is_extension());
  EXPECT_EQ(ext->extends(), "fake");
  EXPECT_EQ(ext->device_count(), 0);
  EXPECT_EQ(ext->kernels().size(), 2u);
}

TEST(KernelPlugin, BackendIsNotAnExtension) {
  const auto fake = load("good");
  EXPECT_FALSE(fake->is_extension());
  EXPECT_EQ(fake->extends(), "");
}

TEST(KernelPlugin, ThatExtendsItselfIsRefused) {
  const std::string file = kernel_plugin("self_extension");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(file); }),
            file + ": plugin 'loop' extends itself");
}

TEST(KernelPlugin, CannotBeOpenedAsADevice) {
  const auto ext = load("extension");
  EXPECT_EQ(error_message([&] { Device::open(ext, 0); }),
            "fake_ext: no devices (a kernel plugin: its kernels run on 'fake' devices)");
}

TEST(KernelPlugin, HigherPriorityKernelOutranksTheBackendsOwn) {
  const auto fake = load("good");
  const auto ext = load("extension");
  const KernelRegistry registry({fake, ext});
  const RegisteredKernel* add = registry.find(OpKind::Add, DType::F32, *fake);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->name, "ext_add_f32");
  EXPECT_EQ(add->plugin, ext.get());
  EXPECT_EQ(add->priority, 20);
}

TEST(KernelPlugin, LeavesTheBackendsOtherKernelsInPlace) {
  const auto fake = load("good");
  const auto ext = load("extension");
  const KernelRegistry registry({ext, fake});  // load order does not matter
  EXPECT_EQ(registry.find(OpKind::Add, DType::I32, *fake)->name, "add_i32");
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *fake)->name, "ext_add_f32");
}

TEST(KernelPlugin, DoesNotReachABackendOfAnotherName) {
  const auto failing = load("failing");
  const auto ext = load("extension");
  const KernelRegistry registry({failing, ext});
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *failing)->name, "add_f32_broken");
}

TEST(KernelPlugin, IsIgnoredForABackendWithoutHostVisibleBuffers) {
  const auto copying = load("copying");
  const auto ext = load("copying_extension");
  EXPECT_FALSE(copying->takes_kernel_plugins());
  const KernelRegistry registry({copying, ext});
  EXPECT_EQ(registry.find(OpKind::Add, DType::F32, *copying), nullptr);
  EXPECT_THAT(registry.backends_with(OpKind::Add, DType::F32), ElementsAre());
}

TEST(KernelPlugin, DeviceRefusesItsKernelWithoutHostVisibleBuffers) {
  const DeviceWithPlugin setup("copying", "copying_extension");
  const RegisteredKernel& add = setup.kernel(OpKind::Add, *setup.plugin);
  EXPECT_EQ(error_message([&] { setup.device->run(add, kAddWithoutTensors); }),
            "copying:0: kernel 'ext_add_f32' (add f32) of plugin 'copying_ext' cannot run here: "
            "'copying' devices need host-visible buffers and synchronous kernels for kernel plugins");
}

TEST(KernelPlugin, CountsUnderItsBackendInFindAnyAndBackendsWith) {
  const auto fake = load("good");
  const auto ext = load("extension");
  const KernelRegistry registry({fake, ext});
  EXPECT_EQ(registry.find_any(OpKind::Add, DType::F32)->name, "ext_add_f32");
  EXPECT_THAT(registry.backends_with(OpKind::Add, DType::F32), ElementsAre(fake.get()));
  EXPECT_THAT(registry.backends_with(OpKind::Scale, DType::F32), ElementsAre(fake.get()));
}

TEST(KernelPlugin, KernelRunsOnTheBackendsDeviceThroughHostData) {
  const DeviceWithPlugin setup("good", "extension");
  const DeviceBuffer a = f32_buffer(setup.device, {1, 2, 3}, "a");
  const DeviceBuffer b = f32_buffer(setup.device, {0.5f, -4, 10}, "b");
  DeviceBuffer out = DeviceBuffer::alloc(setup.device, 12, "out");
  const tsr_tensor inputs[2] = {f32_tensor(a), f32_tensor(b)};
  const tsr_tensor output = f32_tensor(out);
  const tsr_op_call call{.op = TSR_OP_ADD, .params = nullptr, .n_inputs = 2, .inputs = inputs,
                         .output = &output};
  const int calls_before = test::fake_counter(kernel_plugin("extension"), "fake_ext_calls");

  setup.device->run(setup.kernel(OpKind::Add, *setup.backend), call);

  std::vector<float> result(3);
  out.read(0, result.data(), 12);
  EXPECT_THAT(result, ElementsAre(1.5f, -2.0f, 13.0f));
  EXPECT_EQ(test::fake_counter(kernel_plugin("extension"), "fake_ext_calls"), calls_before + 1);
}

TEST(KernelPlugin, FailureIsExplainedByTheKernelPluginsLastError) {
  const DeviceWithPlugin setup("good", "extension");
  const DeviceBuffer x = f32_buffer(setup.device, {1}, "x");
  const tsr_tensor input = f32_tensor(x);
  const ScaleParams params{.scale = 2.0f};
  const tsr_op_call call{.op = TSR_OP_SCALE, .params = &params, .n_inputs = 1, .inputs = &input,
                         .output = &input};
  const RegisteredKernel& scale = setup.kernel(OpKind::Scale, *setup.backend);
  EXPECT_EQ(error_message([&] { setup.device->run(scale, call); }),
            "fake:0: kernel 'ext_scale_f32_broken' (scale f32) of plugin 'fake_ext': "
            "fake_ext: scale refuses");
}

TEST(KernelPlugin, KernelOfAnUnrelatedPluginIsRefused) {
  const DeviceWithPlugin setup("good", "failing");
  const RegisteredKernel& add = setup.kernel(OpKind::Add, *setup.plugin);
  EXPECT_EQ(error_message([&] { setup.device->run(add, kAddWithoutTensors); }),
            "fake:0: kernel 'add_f32_broken' (add f32) of plugin 'failing' does not run on 'fake' "
            "devices");
}

TEST(KernelPlugin, ListingSaysWhichBackendItExtends) {
  PluginHost host;
  host.load_file(fake_plugin("good"));
  host.load_file(kernel_plugin("extension"));
  const std::string text = describe_plugins(host);
  EXPECT_NE(text.find("plugin fake_ext 0.0.1 (ABI 4)\n"
                      "  file: " + kernel_plugin("extension") + "\n"
                      "  extends fake: its kernels run on fake devices\n"
                      "  kernels:\n"
                      "    add: f32\n"
                      "    scale: f32\n"),
            std::string::npos)
      << text;
}

TEST(KernelPlugin, ListingSaysWhenItsBackendIsMissing) {
  PluginHost host;
  host.load_file(kernel_plugin("extension"));
  EXPECT_NE(describe_plugins(host).find("  extends fake: its kernels run on fake devices (no such "
                                        "backend loaded: unused)\n"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
