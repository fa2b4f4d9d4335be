#include "core/plugin/plugin_host.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "core/plugin/fake_plugins.h"

namespace tessera {
namespace {

using test::fake_plugin;
using test::fake_plugin_dir;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> names_of(const PluginHost& host) {
  std::vector<std::string> names;
  for (const auto& plugin : host.plugins()) names.push_back(plugin->name());
  return names;
}

std::vector<std::string> messages_of(const PluginHost& host) {
  std::vector<std::string> messages;
  for (const auto& failure : host.failures()) messages.push_back(failure.message);
  return messages;
}

TEST(PluginHost, LoadsTheValidPluginsOfADirectoryInFileNameOrder) {
  const PluginHost host({fake_plugin_dir()});
  EXPECT_THAT(names_of(host), ElementsAre("absent", "aliased", "copying", "failing", "fake", "twin"));
}

TEST(PluginHost, RecordsEachRefusedFileWithItsReason) {
  const PluginHost host({fake_plugin_dir()});
  EXPECT_THAT(
      messages_of(host),
      ElementsAre(
          fake_plugin("abi7") + ": plugin ABI version 7 is not supported by this host (expects 4)",
          fake_plugin("bad_kernel") + ": kernel 1 ('bogus'): op 99 is not a known op",
          fake_plugin("missing_slot") + ": required slot 'buffer_read' is null",
          fake_plugin("no_entry") +
              ": no entry point 'tessera_plugin_entry' (not a Tessera plugin?)",
          fake_plugin("short_table") + ": plugin table is " +
              std::to_string(offsetof(tsr_plugin, kernel_count)) + " bytes, smaller than the " +
              std::to_string(sizeof(tsr_plugin)) + " bytes of ABI version 4",
          fake_plugin("throwing") + ": entry point 'tessera_plugin_entry' threw an exception",
          fake_plugin("twin_b") + ": plugin 'twin' already loaded from " + fake_plugin("twin_a")));
  EXPECT_EQ(host.failures().front().path, fake_plugin("abi7"));
}

TEST(PluginHost, KeepsTheFirstOfTwoPluginsWithTheSameName) {
  const PluginHost host({fake_plugin_dir()});
  ASSERT_NE(host.find("twin"), nullptr);
  EXPECT_EQ(host.find("twin")->version(), "a");
  EXPECT_EQ(host.find("twin")->path().string(), fake_plugin("twin_a"));
}

TEST(PluginHost, EarlierDirectoryWinsANameClash) {
  const test::TempDir first;
  const std::string copy = first.copy_plugin("twin_b", "libtwin.so");
  const PluginHost host({first.path().string(), fake_plugin_dir()});
  EXPECT_EQ(host.find("twin")->version(), "b");
  EXPECT_THAT(messages_of(host),
              ::testing::Contains(fake_plugin("twin_a") + ": plugin 'twin' already loaded from " + copy));
}

TEST(PluginHost, AGarbageFileDoesNotStopTheOtherPlugins) {
  const test::TempDir dir;
  const std::string garbage = dir.write("libaaa_garbage.so", std::string(256, '\x7f'));
  dir.copy_plugin("good", "libzzz_good.so");
  const PluginHost host({dir.path().string()});
  EXPECT_THAT(names_of(host), ElementsAre("fake"));
  EXPECT_THAT(messages_of(host), ElementsAre(garbage + ": cannot load: invalid ELF header"));
}

TEST(PluginHost, IgnoresFilesNotNamedLibStarSo) {
  const test::TempDir dir;
  dir.write("notes.txt", "not a plugin");
  dir.write("plugin.so", "not a plugin");
  dir.write("libversioned.so.1", "not a plugin");
  dir.write("lib.so", "not a plugin");
  std::filesystem::create_directory(dir.path() / "libdir.so");
  const PluginHost host({dir.path().string()});
  EXPECT_THAT(host.plugins(), IsEmpty());
  EXPECT_THAT(host.failures(), IsEmpty());
}

TEST(PluginHost, SkipsAMissingDirectoryAndRemembersItWasSearched) {
  const test::TempDir dir;
  const std::string missing = dir.file("nowhere");
  const PluginHost host({missing, fake_plugin_dir()});
  ASSERT_EQ(host.searched_dirs().size(), 2u);
  EXPECT_EQ(host.searched_dirs()[0].path, missing);
  EXPECT_FALSE(host.searched_dirs()[0].exists);
  EXPECT_TRUE(host.searched_dirs()[1].exists);
  EXPECT_EQ(host.plugins().size(), 6u);
}

TEST(PluginHost, ScansADirectoryReachedTwiceOnlyOnce) {
  const PluginHost host({fake_plugin_dir(), fake_plugin_dir() + "/", fake_plugin_dir() + "/."});
  EXPECT_EQ(host.plugins().size(), 6u);
  EXPECT_EQ(host.failures().size(), 7u);
}

TEST(PluginHost, LoadFileRecordsARefusalInsteadOfThrowing) {
  PluginHost host;
  host.load_file(fake_plugin("abi7"));
  host.load_file(fake_plugin("good"));
  EXPECT_THAT(names_of(host), ElementsAre("fake"));
  ASSERT_EQ(host.failures().size(), 1u);
  EXPECT_EQ(host.failures()[0].path, fake_plugin("abi7"));
}

TEST(PluginHost, FindReturnsNullForAnUnknownName) {
  const PluginHost host({fake_plugin_dir()});
  EXPECT_EQ(host.find("vulkan"), nullptr);
}

TEST(PluginHost, KeepsAPluginThatHasNoDevices) {
  const PluginHost host({fake_plugin_dir()});
  const auto absent = host.find("absent");
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(absent->device_count(), 0);
}

TEST(PluginHost, UnloadsTheRefusedDuplicateAtOnce) {
  const PluginHost host({fake_plugin_dir()});
  EXPECT_TRUE(test::is_mapped(fake_plugin("twin_a")));
  EXPECT_FALSE(test::is_mapped(fake_plugin("twin_b")));
  EXPECT_FALSE(test::is_mapped(fake_plugin("abi7")));
}

}  // namespace
}  // namespace tessera
