#include "core/plugin/plugin_listing.h"

#include <gtest/gtest.h>

#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::fake_plugin;

TEST(PluginListing, DescribesPluginsDevicesKernelsAndRefusals) {
  const test::TempDir dir;
  const std::string missing = dir.file("nowhere");
  PluginHost host({missing});
  host.load_file(fake_plugin("good"));
  host.load_file(fake_plugin("absent"));
  host.load_file(fake_plugin("abi7"));
  EXPECT_EQ(describe_plugins(host),
            "plugin search path:\n"
            "  " + missing + " (not found)\n"
            "\n"
            "plugin fake 1.2.3 (ABI 4)\n"
            "  file: " + fake_plugin("good") + "\n"
            "  device fake:0: Fake Device (host memory for tests), memory 1.0 MiB\n"
            "  kernels:\n"
            "    add: f32 i32\n"
            "    scale: f32\n"
            "\n"
            "plugin absent 1.2.3 (ABI 4)\n"
            "  file: " + fake_plugin("absent") + "\n"
            "  devices: none (no fake hardware present)\n"
            "  kernels: none\n"
            "\n"
            "refused:\n"
            "  " + fake_plugin("abi7") +
                ": plugin ABI version 7 is not supported by this host (expects 4)\n");
}

TEST(PluginListing, SaysSoWhenNothingWasSearchedOrLoaded) {
  const PluginHost host;
  EXPECT_EQ(describe_plugins(host),
            "plugin search path:\n"
            "  (none)\n"
            "\n"
            "no plugins loaded\n");
}

}  // namespace
}  // namespace tessera
