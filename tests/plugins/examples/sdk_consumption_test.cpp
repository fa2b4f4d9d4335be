// The plugin SDK as an outsider consumes it: install the SDK component of this build
// into a fresh prefix, configure and build plugins/examples/fast_silu as a separate
// CMake project against it (find_package(TesseraPluginSDK)), then load the plugin it
// produced next to the CPU backend and check its kernels against the CPU reference.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "examples/cpu_with_plugin.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with its contents at scope end.
class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("tessera_sdk_" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs `command`; fails the test with its output unless it exits 0.
void must_run(const std::string& command) {
  const CommandResult r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
}

TEST(PluginSdk, ExamplePluginBuiltAgainstTheInstalledSdkMatchesTheCpuReference) {
  const ScratchDir scratch;
  const fs::path prefix = scratch.path() / "prefix";
  const fs::path build = scratch.path() / "build";
  const std::string cmake = shell_quote(TESSERA_CMAKE_COMMAND);

  must_run(cmake + " --install " + shell_quote(TESSERA_BINARY_DIR) + " --component sdk --prefix " +
           shell_quote(prefix.string()));
  for (const char* installed : {"include/tessera/plugin_abi.h", "include/tessera/kit/guard.h"}) {
    EXPECT_TRUE(fs::exists(prefix / installed)) << installed;
  }
  const fs::path libdir = prefix / TESSERA_INSTALL_LIBDIR;
  EXPECT_TRUE(fs::exists(libdir / "libtessera_plugin_kit.a"));
  EXPECT_TRUE(fs::exists(libdir / "cmake/TesseraPluginSDK/TesseraPluginSDKConfig.cmake"));

  must_run(cmake + " -S " + shell_quote(source_path("plugins/examples/fast_silu")) + " -B " +
           shell_quote(build.string()) + " -G " + shell_quote(TESSERA_CMAKE_GENERATOR) +
           " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + shell_quote(prefix.string()) +
           " -DCMAKE_CXX_COMPILER=" + shell_quote(TESSERA_CXX_COMPILER) +
           // A sanitizer build's kit needs the same runtime flags in the plugin.
           " -DCMAKE_CXX_FLAGS=" + shell_quote(TESSERA_SANITIZER_FLAGS) +
           " -DCMAKE_MODULE_LINKER_FLAGS=" + shell_quote(TESSERA_SANITIZER_FLAGS));
  must_run(cmake + " --build " + shell_quote(build.string()));
  if (HasFatalFailure()) return;

  const CpuWithPlugin cpu((build / "libfast_silu.so").string());
  EXPECT_EQ(cpu.chosen(OpKind::SwiGlu).name, "fast_silu.swiglu.f32");
  const std::vector<float> gate = silu_test_values(4 * 29, 11);
  const std::vector<float> up = silu_test_values(4 * 29, 12);
  EXPECT_LE(max_relative_error(cpu.run(OpKind::SwiGlu, 4, 29, {gate, up}),
                               cpu_reference(OpKind::SwiGlu, 4, 29, {gate, up})),
            1e-6);
  EXPECT_LE(max_relative_error(cpu.run(OpKind::Silu, 4, 29, {gate}), cpu_reference(OpKind::Silu, 4, 29, {gate})),
            1e-6);
}

}  // namespace
}  // namespace tessera::test
