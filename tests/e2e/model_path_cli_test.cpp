// TESSERA_MODEL_PATH: the folders searched first for the definition a weights file's
// architecture names; documented in `generate --help` and in the message that lists
// the folders tried when none has it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/weights/gguf_values.h"
#include "core/weights/gguf_writer.h"
#include "core/weights/weight_file.h"
#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

std::string tessera(const std::string& args) { return shell_quote(tessera_exe()) + " " + args; }

// stories260K.gguf with general.architecture = `arch`.
std::string stories_as(const std::string& arch) {
  const auto source = open_weight_file(testdata_path("stories260K/stories260K.gguf"));
  GgufWriter writer;
  writer.copy_meta(*source);
  writer.set_meta("general.architecture", gguf::make_string(arch));
  for (const auto& [key, value] : source->metadata()) {
    if (key.rfind("llama.", 0) == 0) writer.set_meta(arch + key.substr(5), value);
  }
  for (const TensorView& t : source->tensors()) writer.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
  const std::string path = temp_path(arch + ".gguf");
  writer.write(path);
  return path;
}

TEST(ModelPath, GenerateHelpDocumentsIt) {
  const auto r = run_command(tessera("generate --help"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("$TESSERA_MODEL_PATH (':'-separated)"), std::string::npos) << r.out;
}

TEST(ModelPath, FindsADefinitionInItsFolders) {
  const std::string dir = temp_path("model_path_dir");
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(source_path("models/llama.tsr"), dir + "/storyteller.tsr",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string weights = stories_as("storyteller");
  const auto r = run_command("TESSERA_MODEL_PATH=/nonexistent:" + shell_quote(dir) + " " +
                             tessera("generate -m " + shell_quote(weights) + " -p hi -n 2 --temp 0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("definition " + dir + "/storyteller.tsr (general.architecture = storyteller)"),
            std::string::npos)
      << r.err;
}

TEST(ModelPath, NoDefinitionListsEachFolderTriedWithItsOrigin) {
  const std::string weights = stories_as("nosuchmodel");
  const auto r = run_command("TESSERA_MODEL_PATH=/first:/second " +
                             tessera("generate -m " + shell_quote(weights) + " -p hi -n 2"));
  EXPECT_EQ(r.exit_code, 1);
  const std::string head =
      "tessera generate: error: no model definition for architecture 'nosuchmodel' (by file name or by a model's "
      "alias); tried:\n  /first/nosuchmodel.tsr (TESSERA_MODEL_PATH)\n  /second/nosuchmodel.tsr (TESSERA_MODEL_PATH)\n";
  EXPECT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(source_path("models") + "/nosuchmodel.tsr (source tree)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\npass --arch FILE to choose one, or add the folder holding it to TESSERA_MODEL_PATH "
                       "(folders separated by ':', searched first)\n"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tessera::test
