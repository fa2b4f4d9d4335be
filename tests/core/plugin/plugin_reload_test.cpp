// Unloading and reloading plugins while the process runs: refused while anything of
// the plugin is alive, then really gone from the process (/proc/self/maps and
// dlopen(RTLD_NOLOAD)), the real CPU backend included after a generation; and a tiny
// plugin rebuilt between unload and load runs its new kernel.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/engine/backend.h"
#include "core/engine/generator.h"
#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "core/engine/session.h"
#include "core/plugin/device.h"
#include "core/plugin/plugin_host.h"
#include "core/util/error.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

using ::testing::HasSubstr;

bool in_process_maps(const std::filesystem::path& file) {
  const std::string canonical = std::filesystem::canonical(file).string();
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find(canonical) != std::string::npos) return true;
  }
  return false;
}

bool loaded_per_dlopen(const std::filesystem::path& file) {
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle) dlclose(handle);  // drop the reference RTLD_NOLOAD added
  return handle != nullptr;
}

TEST(PluginUnload, IsRefusedWhileADeviceIsOpenThenTheLibraryIsGone) {
  const std::filesystem::path file = std::filesystem::path(FAKE_PLUGIN_DIR) / "libfake_good.so";
  PluginHost host;
  host.load_file(file);
  ASSERT_NE(host.find("fake"), nullptr);
  std::shared_ptr<Device> device = Device::open(host.find("fake"), 0);
  EXPECT_THAT([&] { host.unload("fake"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("cannot unload plugin 'fake' (" + file.string() +
                                                        "): still in use, 1 reference(s) besides the host's")));
  EXPECT_TRUE(in_process_maps(file));
  device.reset();
  EXPECT_EQ(host.unload("fake"), file);
  EXPECT_EQ(host.find("fake"), nullptr);
  EXPECT_FALSE(in_process_maps(file));
  EXPECT_FALSE(loaded_per_dlopen(file));
  host.load_file(file);  // and back
  ASSERT_NE(host.find("fake"), nullptr);
  EXPECT_TRUE(loaded_per_dlopen(file));
}

TEST(PluginUnload, AnUnknownNameIsRefused) {
  PluginHost host;
  EXPECT_THAT([&] { host.unload("nosuch"); },
              ::testing::ThrowsMessage<Error>("cannot unload plugin 'nosuch': no plugin has that name"));
}

// The CPU backend after a real generation (thread pool started and joined): once the
// session, backend and model's users are gone, its library leaves the process.
TEST(PluginUnload, TheCpuBackendLeavesTheProcessAfterAGeneration) {
  const std::filesystem::path file = std::filesystem::path(plugin_dir()) / "libtessera_cpu.so";
  PluginHost host{std::vector<std::string>{plugin_dir()}};
  ASSERT_NE(host.find("cpu"), nullptr);
  {
    dsl::ModelSpec spec;
    spec.weights_path = testdata_path("stories260K/stories260K.gguf");
    spec.arch_path = source_path("models/llama.tsr");
    const auto model = dsl::load_model(spec);
    const Backend backend = open_backend(host, "cpu", 2);
    Session session(*model, backend, SessionOptions{});
    GenerateOptions options;
    options.n_predict = 8;
    options.sampling.temperature = 0;
    EXPECT_EQ(generate(session, model->tokenizer(), "Once upon a time", options).generated_ids.size(), 8u);
    EXPECT_THROW(host.unload("cpu"), Error);  // the session's device holds it
  }
  ASSERT_TRUE(in_process_maps(file));
  host.unload("cpu");
  EXPECT_FALSE(in_process_maps(file));
  EXPECT_FALSE(loaded_per_dlopen(file));
  host.load_file(file);  // loaded afresh, it opens and runs again
  EXPECT_EQ(open_backend(host, "cpu", 2).device->name(), "cpu:0");
}

// A kernel plugin extending "fake" whose SCALE f32 kernel writes `value` everywhere.
void build_tiny_plugin(const std::filesystem::path& out, int value) {
  const std::string source = out.string() + ".cpp";
  std::ofstream(source) << R"(#include <tessera/plugin_abi.h>
namespace {
const char* last_error(void*) { return ""; }
tsr_status fill(void*, const tsr_op_call* call) {
  float* out = static_cast<float*>(call->output->host_data);
  for (int64_t i = 0; i < call->output->shape[0]; ++i) out[i] = VALUE;
  return TSR_OK;
}
const tsr_kernel_desc kKernels[] = {{TSR_OP_SCALE, TSR_DTYPE_F32, 5, "tiny_fill", fill}};
tsr_plugin make() {
  tsr_plugin t{};
  t.abi_version = TSR_ABI_VERSION;
  t.struct_size = sizeof(tsr_plugin);
  t.name = "tiny";
  t.last_error = last_error;
  t.kernel_count = 1;
  t.kernels = kKernels;
  t.extends = "fake";
  return t;
}
const tsr_plugin kTable = make();
}  // namespace
extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
)";
  const CommandResult r = run_command(shell_quote(TESSERA_CXX_COMPILER) + " -std=c++17 -shared -fPIC -fvisibility=hidden " +
                                      "-fno-gnu-unique -DVALUE=" + std::to_string(value) + " -I" +
                                      shell_quote(TESSERA_PLUGIN_INCLUDE_DIR) + " " + shell_quote(source) + " -o " +
                                      shell_quote(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

float run_tiny_kernel(const PluginHost& host) {
  const auto tiny = host.find("tiny");
  if (!tiny || tiny->kernels().empty()) return -1;
  float data[4] = {0, 0, 0, 0};
  tsr_tensor t{};
  t.dtype = TSR_DTYPE_F32;
  t.ndim = 1;
  t.shape[0] = 4;
  t.host_data = data;
  const tsr_scale_params params{1.0f};
  const tsr_op_call call{TSR_OP_SCALE, &params, 1, &t, &t};
  if (tiny->kernels()[0].run(nullptr, &call) != TSR_OK) return -1;
  return data[3];
}

TEST(PluginReload, ARebuiltPluginRunsItsNewKernel) {
  const std::filesystem::path dir = temp_path("reload");
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "libtiny.so";
  build_tiny_plugin(file, 1);
  PluginHost host;
  host.load_file(file);
  ASSERT_NE(host.find("tiny"), nullptr) << (host.failures().empty() ? "" : host.failures()[0].message);
  EXPECT_EQ(run_tiny_kernel(host), 1.0f);

  host.unload("tiny");
  EXPECT_FALSE(loaded_per_dlopen(file));
  build_tiny_plugin(file, 2);
  host.load_file(file);
  EXPECT_EQ(run_tiny_kernel(host), 2.0f);

  build_tiny_plugin(file, 3);  // over the loaded file: reload picks it up
  EXPECT_EQ(host.reload("tiny")->name(), "tiny");
  EXPECT_EQ(run_tiny_kernel(host), 3.0f);
  std::filesystem::remove_all(dir);
}

TEST(PluginReload, AFileThatNoLongerLoadsLeavesThePluginUnloadedWithTheReason) {
  const std::filesystem::path dir = temp_path("reload-broken");
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "libtiny.so";
  build_tiny_plugin(file, 1);
  PluginHost host;
  host.load_file(file);
  ASSERT_NE(host.find("tiny"), nullptr);
  host.unload("tiny");
  std::ofstream(file, std::ios::trunc) << "not a shared library";
  host.load_file(file);
  EXPECT_EQ(host.find("tiny"), nullptr);
  ASSERT_FALSE(host.failures().empty());
  EXPECT_THAT(host.failures().back().message, HasSubstr(file.string() + ": cannot load"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tessera::test
