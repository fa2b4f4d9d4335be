// GgufFile on llama.cpp's vocabulary-only GGUFs: zero tensors, large string arrays
// (tokens, merges), bools and the per-model keys, all read with the expected counts.
#include <gtest/gtest.h>

#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_types.h"
#include "support/testdata.h"

namespace tessera {
namespace {

struct Vocab {
  std::string name;
  std::string model;  // tokenizer.ggml.model
  size_t n_vocab;
  size_t n_merges;  // 0: no merges key
};

void PrintTo(const Vocab& v, std::ostream* os) { *os << v.name; }

class VocabGguf : public ::testing::TestWithParam<Vocab> {};

TEST_P(VocabGguf, OpensWithExpectedCounts) {
  const Vocab& v = GetParam();
  const auto file = GgufFile::open(test::testdata_path("tokenizer/ggml-vocab-" + v.name + ".gguf"));
  EXPECT_TRUE(file->tensors().empty());
  EXPECT_EQ(file->find_meta("tokenizer.ggml.model")->as_string(), v.model);
  const MetaValue* tokens = file->find_meta("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->gguf_elem_type, gguf::kString);
  EXPECT_EQ(tokens->as_array().size(), v.n_vocab);
  const MetaValue* merges = file->find_meta("tokenizer.ggml.merges");
  if (v.n_merges == 0) {
    EXPECT_EQ(merges, nullptr);
  } else {
    ASSERT_NE(merges, nullptr);
    EXPECT_EQ(merges->as_array().size(), v.n_merges);
  }
}

// Counts from the test data README.
INSTANTIATE_TEST_SUITE_P(
    LlamaCppVocabs, VocabGguf,
    ::testing::Values(Vocab{"llama-spm", "llama", 32000, 0}, Vocab{"phi-3", "llama", 32064, 0},
                      Vocab{"baichuan", "llama", 64000, 0}, Vocab{"gpt-2", "gpt2", 50257, 50000},
                      Vocab{"deepseek-coder", "gpt2", 32256, 31757},
                      Vocab{"deepseek-llm", "gpt2", 102400, 99757},
                      Vocab{"falcon", "gpt2", 65024, 64784}, Vocab{"mpt", "gpt2", 50432, 50009},
                      Vocab{"gpt-neox", "gpt2", 50432, 50009},
                      Vocab{"refact", "gpt2", 49216, 48891},
                      Vocab{"starcoder", "gpt2", 49152, 48872},
                      Vocab{"bert-bge", "bert", 30522, 0}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

TEST(VocabGgufBools, AddBosTokenIsABool) {
  const auto file = GgufFile::open(test::testdata_path("tokenizer/ggml-vocab-llama-spm.gguf"));
  const MetaValue* add_bos = file->find_meta("tokenizer.ggml.add_bos_token");
  ASSERT_NE(add_bos, nullptr);
  EXPECT_EQ(add_bos->gguf_type, gguf::kBool);
  EXPECT_EQ(std::get<bool>(add_bos->value), true);
}

}  // namespace
}  // namespace tessera
