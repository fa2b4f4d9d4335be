// Loading plugins in a child process first (PluginLoadPolicy::probe_first): a library
// that aborts or hangs while loading is refused with the reason and the others load;
// the policy's filter keeps unwanted plugins out of the process until asked for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_probe.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string crash_plugin(const std::string& name) {
  return std::string(name == "fake_hanging" ? FAKE_HANG_PLUGIN_DIR : FAKE_CRASH_PLUGIN_DIR) + "/lib" + name + ".so";
}
std::string fake_plugin(const std::string& name) { return std::string(FAKE_PLUGIN_DIR) + "/libfake_" + name + ".so"; }

TEST(PluginProbe, ReportsTheNameOfAGoodPlugin) {
  const PluginProbe p = probe_plugin(fake_plugin("good"));
  ASSERT_TRUE(p.ok) << p.failure;
  EXPECT_EQ(p.name, "fake");
  EXPECT_EQ(p.extends, "");
}

TEST(PluginProbe, AbortWhileLoadingIsAFailureNotACrash) {
  const PluginProbe p = probe_plugin(crash_plugin("fake_aborting"));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.failure, crash_plugin("fake_aborting") + ": crashed while loading: signal 6 (Aborted)");
}

TEST(PluginProbe, HangingPluginIsKilledAfterTheTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  const PluginProbe p = probe_plugin(crash_plugin("fake_hanging"), std::chrono::milliseconds(1000));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.failure, crash_plugin("fake_hanging") + ": did not finish loading within 1 s (killed)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(PluginProbe, RefusalsKeepTheirMessage) {
  const PluginProbe p = probe_plugin(fake_plugin("abi7"));
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.failure, fake_plugin("abi7") + ": plugin ABI version 7 is not supported by this host (expects 4)");
}

TEST(PluginHostPolicy, CrashingPluginsAreRefusedAndTheOthersLoad) {
  PluginLoadPolicy policy;
  policy.probe_first = true;
  policy.probe_timeout = std::chrono::milliseconds(1000);
  const PluginHost host({FAKE_CRASH_PLUGIN_DIR, FAKE_HANG_PLUGIN_DIR, FAKE_PLUGIN_DIR}, policy);
  EXPECT_NE(host.find("fake"), nullptr);
  ASSERT_GE(host.failures().size(), 2u);
  EXPECT_THAT(host.failures()[0].message, HasSubstr("libfake_aborting.so: crashed while loading: signal 6"));
  EXPECT_THAT(host.failures()[1].message, HasSubstr("libfake_hanging.so: did not finish loading within 1 s"));
}

TEST(PluginHostPolicy, UnwantedPluginsStayAvailableUntilAskedFor) {
  PluginLoadPolicy policy;
  policy.probe_first = true;
  policy.wanted = [](const PluginProbe& p) { return p.name == "fake"; };
  PluginHost host({FAKE_PLUGIN_DIR}, policy);
  EXPECT_NE(host.find("fake"), nullptr);
  EXPECT_EQ(host.find("absent"), nullptr);  // a good plugin, not wanted
  ASSERT_NE(host.load_available("absent"), nullptr);
  EXPECT_NE(host.find("absent"), nullptr);
  EXPECT_EQ(host.load_available("nosuch"), nullptr);
}

}  // namespace
}  // namespace tessera
