// The examples as an outsider builds them: install the sdk and engine components of
// this build into a fresh prefix, configure and build examples/acme_ops (against
// find_package(TesseraPluginSDK)) and examples/embed (find_package(Tessera)) as
// separate CMake projects, then run a model calling the plugin's op through the
// tessera CLI and through the embedding program: both give stories260K's golden text.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/golden.h"
#include "support/run_command.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

class ScratchDir {
 public:
  ScratchDir() : path_(fs::temp_directory_path() / ("tessera_examples_" + std::to_string(getpid()))) {
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

void must_run(const std::string& command) {
  const CommandResult r = run_command(command);
  ASSERT_EQ(r.exit_code, 0) << command << "\n" << r.out << r.err;
}

// Configures and builds the example project `name` against `prefix`.
void build_example(const std::string& name, const fs::path& prefix, const fs::path& build) {
  const std::string cmake = shell_quote(TESSERA_CMAKE_COMMAND);
  const std::string flags = shell_quote(TESSERA_SANITIZER_FLAGS);  // a sanitizer build's libraries need them
  must_run(cmake + " -S " + shell_quote(source_path("examples/" + name)) + " -B " + shell_quote(build.string()) +
           " -G " + shell_quote(TESSERA_CMAKE_GENERATOR) + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" +
           shell_quote(prefix.string()) + " -DCMAKE_CXX_COMPILER=" + shell_quote(TESSERA_CXX_COMPILER) +
           " -DCMAKE_CXX_FLAGS=" + flags + " -DCMAKE_MODULE_LINKER_FLAGS=" + flags +
           " -DCMAKE_EXE_LINKER_FLAGS=" + flags);
  must_run(cmake + " --build " + shell_quote(build.string()));
}

TEST(ExamplesConsumption, PluginAndEmbeddingProgramBuiltAgainstTheInstalledTesseraGiveTheGoldenText) {
  const ScratchDir scratch;
  const fs::path prefix = scratch.path() / "prefix";
  const std::string cmake = shell_quote(TESSERA_CMAKE_COMMAND);
  for (const char* component : {"sdk", "engine"}) {
    must_run(cmake + " --install " + shell_quote(TESSERA_BINARY_DIR) + " --component " + component + " --prefix " +
             shell_quote(prefix.string()));
  }
  EXPECT_TRUE(fs::exists(prefix / "include/tessera-engine/core/engine/engine.h"));
  EXPECT_TRUE(fs::exists(prefix / "include/tessera-engine/dsl/model_loader.h"));
  build_example("acme_ops", prefix, scratch.path() / "acme");
  build_example("embed", prefix, scratch.path() / "embed");
  if (HasFatalFailure()) return;

  const Golden g = load_golden();
  const std::string common = " -m " + shell_quote(testdata_path("stories260K/stories260K.gguf")) + " -p " +
                             shell_quote(g.prompt) + " -n 64 --arch " +
                             shell_quote(source_path("examples/acme_ops/llama_acme.tsr")) + " --plugin-dir " +
                             shell_quote((scratch.path() / "acme").string());
  const CommandResult cli = run_command("TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " +
                                        shell_quote(tessera_exe()) + " generate --temp 0" + common);
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(cli.out, g.text + "\n");
  const CommandResult embedded = run_command("TESSERA_PLUGIN_PATH=" + shell_quote(plugin_dir()) + " " +
                                             shell_quote((scratch.path() / "embed/generate_text").string()) + common);
  ASSERT_EQ(embedded.exit_code, 0) << embedded.err;
  EXPECT_EQ(embedded.out, g.text + "\n");
}

}  // namespace
}  // namespace tessera::test
