// `model NAME, ALIAS, ...`: the other architecture names one definition serves, as
// parsed and as Model::find_architecture uses them to choose a file.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/engine/model.h"
#include "dsl/model_loader.h"
#include "dsl/model_definition.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

// A valid model after the `model` line.
const char* kBody = "\nhparams { d = 4  v = 8 }\nweights { emb [v, d] = \"emb\" }\n"
                    "forward { logits = linear(outputs(embed(emb)), emb) }\n";

TEST(ModelAliases, FollowTheNameAfterCommas) {
  const auto model = dsl::parse_syntax(std::string("model phi2, phi, phi_msft") + kBody, "m.tsr");
  EXPECT_EQ(model->name, "phi2");
  EXPECT_EQ(model->aliases, (std::vector<std::string>{"phi", "phi_msft"}));
}

TEST(ModelAliases, MayBeSpreadOverLines) {
  const auto model = dsl::parse_syntax(std::string("model llama ,\n  mistral # Mistral 7B\n") + kBody, "m.tsr");
  EXPECT_EQ(model->aliases, (std::vector<std::string>{"mistral"}));
}

TEST(ModelAliases, MayBeQuotedToHoldDashes) {  // llama.cpp's "command-r"
  const auto model = dsl::parse_syntax(std::string("model command_r, \"command-r\", cohere, \"gpt-j.6b\"") + kBody,
                                       "m.tsr");
  EXPECT_EQ(model->name, "command_r");
  EXPECT_EQ(model->aliases, (std::vector<std::string>{"command-r", "cohere", "gpt-j.6b"}));
}

TEST(ModelAliases, AreEmptyWithoutACommaAfterTheName) {
  EXPECT_TRUE(dsl::parse_syntax(std::string("model gpt2") + kBody, "m.tsr")->aliases.empty());
}

// A folder of model files, removed at the end of the test.
class AliasFolder : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& file, const std::string& model_line) {
    std::ofstream(dir_ / file) << model_line << kBody;
  }
  std::string path(const std::string& file) const { return (dir_ / file).string(); }

  fs::path dir_ = temp_path("alias-models");
};

TEST_F(AliasFolder, FindArchitectureChoosesTheFileThatListsTheAlias) {
  write("alpha.tsr", "model alpha, first");
  write("beta.tsr", "model beta, second, third");
  EXPECT_EQ(dsl::find_architecture("third", {dir_.string()}), path("beta.tsr"));
}

TEST_F(AliasFolder, FindArchitecturePrefersAFileNamedAfterTheArchitecture) {
  write("alpha.tsr", "model alpha, beta");
  write("beta.tsr", "model beta");
  EXPECT_EQ(dsl::find_architecture("beta", {dir_.string()}), path("beta.tsr"));
}

TEST_F(AliasFolder, FindArchitectureMatchesAQuotedAlias) {
  write("command_r.tsr", "model command_r, \"command-r\"");
  EXPECT_EQ(dsl::find_architecture("command-r", {dir_.string()}), path("command_r.tsr"));
}

TEST_F(AliasFolder, FindArchitectureListsEachFolderTriedWithItsOrigin) {
  try {
    dsl::find_architecture("nothing", {{dir_.string(), "TESSERA_MODEL_PATH"}, {"/elsewhere"}});
    ADD_FAILURE() << "found a definition";
  } catch (const tessera::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "no model definition for architecture 'nothing' (by file name or by a model's alias); tried:\n  " +
                  path("nothing.tsr") + " (TESSERA_MODEL_PATH)\n  /elsewhere/nothing.tsr\n"
                  "pass --arch FILE to choose one, or add the folder holding it to TESSERA_MODEL_PATH (folders "
                  "separated by ':', searched first)");
  }
}

TEST(BuiltinModelDirs, SayWhereEachComesFromAndListEachFolderOnce) {
  const std::vector<dsl::ModelDir> dirs = dsl::builtin_model_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.back().path, source_path("models"));
  EXPECT_EQ(dirs.back().origin, "source tree");
  for (size_t i = 0; i < dirs.size(); ++i) {
    EXPECT_FALSE(dirs[i].origin.empty()) << dirs[i].path;
    for (size_t k = 0; k < i; ++k) EXPECT_NE(dirs[i].path, dirs[k].path);
  }
}

TEST_F(AliasFolder, FindArchitectureSkipsFilesThatDoNotParse) {
  write("aaa.tsr", "model broken, 7");  // read first, and refused
  write("zzz.tsr", "model zeta, wanted");
  EXPECT_EQ(dsl::find_architecture("wanted", {dir_.string()}), path("zzz.tsr"));
}

TEST(ModelAliases, ServeHuggingFaceModelTypesWithTheModelLibrary) {
  const std::string models = source_path("models");
  EXPECT_EQ(dsl::find_architecture("phi", {models}), source_path("models/phi2.tsr"));
  EXPECT_EQ(dsl::find_architecture("mistral", {models}), source_path("models/llama.tsr"));
}

}  // namespace
}  // namespace tessera::test
