// The corpus of broken model files, tests/dsl/broken: each NAME.tsr is a LLaMA-style
// definition with one realistic mistake, NAME.expected the exact diagnostic it gives.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "dsl/model_definition.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

namespace fs = std::filesystem;

// The corpus folder relative to the source tree, as diagnostics name its files.
const std::string kCorpus = "tests/dsl/broken";

// The names (without extension) of the corpus files ending in `extension`, sorted.
std::vector<std::string> corpus_names(const std::string& extension) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(source_path(kCorpus))) {
    if (entry.path().extension() == extension) names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What parsing and compiling NAME.tsr without a weights file reports, its path
// relative to the source tree (as `tessera check tests/dsl/broken/NAME.tsr` prints it
// from there), or "accepted".
std::string diagnose_file(const std::string& name) {
  const std::string relative = kCorpus + "/" + name + ".tsr";
  const std::string absolute = source_path(relative);
  try {
    dsl::compile_model(*dsl::parse_model_file(absolute), dsl::CompileOptions{});
  } catch (const dsl::DslError& e) {
    std::string text = e.what();
    if (text.rfind(absolute, 0) == 0) text = relative + text.substr(absolute.size());
    return text;
  }
  return "accepted";
}

// "layer_index_out_of_range" -> "LayerIndexOutOfRange", a test name.
std::string camel_case(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

class BrokenModel : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenModel, GivesItsExpectedDiagnostic) {
  const std::string expected_path = source_path(kCorpus + "/" + GetParam() + ".expected");
  ASSERT_TRUE(fs::exists(expected_path)) << GetParam() << ".tsr has no " << GetParam() << ".expected beside it";
  EXPECT_EQ(diagnose_file(GetParam()), read_text(expected_path));
}

INSTANTIATE_TEST_SUITE_P(Dsl, BrokenModel, ::testing::ValuesIn(corpus_names(".tsr")),
                         [](const auto& info) { return camel_case(info.param); });

// Listed when the tests run, so a file added since the last build is checked too.
TEST(BrokenCorpus, EveryModelHasAnExpectedDiagnostic) {
  for (const std::string& name : corpus_names(".tsr")) {
    EXPECT_TRUE(fs::exists(source_path(kCorpus + "/" + name + ".expected"))) << name << ".tsr has no .expected";
  }
}

TEST(BrokenCorpus, EveryExpectedDiagnosticHasAModel) {
  for (const std::string& name : corpus_names(".expected")) {
    EXPECT_TRUE(fs::exists(source_path(kCorpus + "/" + name + ".tsr"))) << name << ".expected has no .tsr";
  }
}

TEST(BrokenCorpus, HoldsAtLeastTwelveMistakes) { EXPECT_GE(corpus_names(".tsr").size(), 12u); }

}  // namespace
}  // namespace tessera::test
