#include "core/plugin/plugin_library.h"

#include <gtest/gtest.h>

#include <cstddef>

#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::error_message;
using test::fake_plugin;

TEST(PluginLibrary, LoadsAValidPluginAndReadsItsTable) {
  const auto plugin = PluginLibrary::load(fake_plugin("good"));
  EXPECT_EQ(plugin->name(), "fake");
  EXPECT_EQ(plugin->version(), "1.2.3");
  EXPECT_EQ(plugin->abi_version(), TSR_ABI_VERSION);
  EXPECT_EQ(plugin->path().string(), fake_plugin("good"));
  EXPECT_EQ(plugin->device_count(), 1);
  ASSERT_EQ(plugin->kernels().size(), 4u);
  EXPECT_STREQ(plugin->kernels()[1].name, "add_f32_fast");
}

TEST(PluginLibrary, LoadsAnEntryPointExportedWithBoostDllAlias) {
  const auto plugin = PluginLibrary::load(fake_plugin("aliased"));
  EXPECT_EQ(plugin->name(), "aliased");
  EXPECT_EQ(plugin->device_count(), 1);
}

TEST(PluginLibrary, RefusesAnotherAbiVersion) {
  const std::string path = fake_plugin("abi7");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": plugin ABI version 7 is not supported by this host (expects 4)");
}

TEST(PluginLibrary, RefusesATableSmallerThanTheHostKnows) {
  const std::string path = fake_plugin("short_table");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": plugin table is " + std::to_string(offsetof(tsr_plugin, kernel_count)) +
                " bytes, smaller than the " + std::to_string(sizeof(tsr_plugin)) +
                " bytes of ABI version 4");
}

TEST(PluginLibrary, RefusesALibraryWithoutEntryPoint) {
  const std::string path = fake_plugin("no_entry");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": no entry point 'tessera_plugin_entry' (not a Tessera plugin?)");
}

TEST(PluginLibrary, RefusesANullRequiredSlot) {
  const std::string path = fake_plugin("missing_slot");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": required slot 'buffer_read' is null");
}

TEST(PluginLibrary, RefusesAKernelForAnUnknownOp) {
  const std::string path = fake_plugin("bad_kernel");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": kernel 1 ('bogus'): op 99 is not a known op");
}

TEST(PluginLibrary, RefusesAnEntryPointThatThrows) {
  const std::string path = fake_plugin("throwing");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": entry point 'tessera_plugin_entry' threw an exception");
}

TEST(PluginLibrary, RefusesAFileThatIsNotASharedLibrary) {
  const test::TempDir dir;
  const std::string path = dir.write("libgarbage.so", std::string(256, 'x'));
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": cannot load: invalid ELF header");
}

TEST(PluginLibrary, RefusesAMissingFile) {
  const test::TempDir dir;
  const std::string path = dir.file("libnothing.so");
  EXPECT_EQ(error_message([&] { PluginLibrary::load(path); }),
            path + ": cannot load: cannot open shared object file: No such file or directory");
}

TEST(PluginLibrary, DescribesADeviceWithoutOpeningIt) {
  const auto plugin = PluginLibrary::load(fake_plugin("good"));
  const tsr_device_info info = plugin->device_info(0);
  EXPECT_STREQ(info.name, "Fake Device");
  EXPECT_STREQ(info.description, "host memory for tests");
  EXPECT_EQ(info.memory_bytes, 1u << 20);
  EXPECT_EQ(test::fake_counter(fake_plugin("good"), "fake_open_devices"), 0);
}

TEST(PluginLibrary, DeviceInfoRefusesAnIndexOutOfRange) {
  const auto plugin = PluginLibrary::load(fake_plugin("good"));
  EXPECT_EQ(error_message([&] { plugin->device_info(1); }), "fake: no device 1 (the plugin has 1)");
}

TEST(PluginLibrary, ReportsWhyItHasNoDevices) {
  const auto plugin = PluginLibrary::load(fake_plugin("absent"));
  EXPECT_EQ(plugin->device_count(), 0);
  EXPECT_EQ(plugin->unavailable_reason(), "no fake hardware present");
}

TEST(PluginLibrary, OwnsOnlyTheKernelsOfItsOwnList) {
  const auto good = PluginLibrary::load(fake_plugin("good"));
  const auto failing = PluginLibrary::load(fake_plugin("failing"));
  EXPECT_TRUE(good->owns(good->kernels()[3]));
  EXPECT_FALSE(good->owns(failing->kernels()[0]));
  const tsr_kernel_desc copy = good->kernels()[0];
  EXPECT_FALSE(good->owns(copy));
}

TEST(PluginLibrary, UnloadsWhenTheLastReferenceGoes) {
  auto plugin = PluginLibrary::load(fake_plugin("good"));
  auto second_owner = plugin;
  ASSERT_TRUE(test::is_mapped(fake_plugin("good")));
  plugin.reset();
  EXPECT_TRUE(test::is_mapped(fake_plugin("good")));
  second_owner.reset();
  EXPECT_FALSE(test::is_mapped(fake_plugin("good")));
}

}  // namespace
}  // namespace tessera
