// Small trained tokenizers of four current model families (Llama 3 and Qwen2 byte-level
// BPE, Llama 2 and Gemma SentencePiece-style BPE), each as a vocab-only GGUF and as a
// Hugging Face tokenizer.json, against the ids Hugging Face's `tokenizers` gives for 76
// strings (tests/fixtures/tokenizer/README.md), and the round trip back to the text.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>

#include "core/tokenizer/hf_tokenizer_json.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"
#include "vocab_vectors.h"

namespace tessera {
namespace {

// One fixture and what both of its files must say about it.
struct TrainedVocab {
  const char* name;  // ggml-vocab-NAME-tiny.gguf and hf-NAME-tiny/tokenizer.json
  int32_t n_vocab;
  int32_t bos;
  int32_t eos;
  bool add_bos;
};

constexpr TrainedVocab kVocabs[] = {
    {"llama-bpe", 1808, 1803, 1804, true},
    {"qwen2", 1806, 1803, 1803, false},
    {"llama-spm", 1359, 1, 2, true},
    {"gemma", 1364, 2, 1, true},
};

enum class Source { Gguf, TokenizerJson };

struct Case {
  TrainedVocab vocab;
  Source source;
};

std::string fixture(const std::string& relative) {
  return test::source_path("tests/fixtures/tokenizer/" + relative);
}

// The .inp/.out vectors sit next to the GGUF; the tokenizer.json holds the same tokenizer.
std::string vectors_path(const TrainedVocab& v) {
  return fixture("ggml-vocab-" + std::string(v.name) + "-tiny.gguf");
}

std::unique_ptr<Tokenizer> load(const Case& c) {
  if (c.source == Source::Gguf) return make_tokenizer(*GgufFile::open(vectors_path(c.vocab)));
  return tokenizer_from_tokenizer_json(fixture("hf-" + std::string(c.vocab.name) + "-tiny/tokenizer.json"));
}

// For readable test parameters in failure messages.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.vocab.name << (c.source == Source::Gguf ? " (GGUF)" : " (tokenizer.json)");
}

class TrainedVocabVectors : public testing::TestWithParam<Case> {};

TEST_P(TrainedVocabVectors, EncodesAllVectorsLikeHfTokenizers) {
  const auto tok = load(GetParam());
  const auto vectors = test::read_vocab_vectors(vectors_path(GetParam().vocab));
  ASSERT_EQ(vectors.size(), 76u);
  for (size_t i = 0; i < vectors.size(); ++i)
    EXPECT_EQ(test::ids_to_string(tok->encode(vectors[i].text, false)), test::ids_to_string(vectors[i].ids))
        << "vector " << i << ": \"" << vectors[i].text << "\"";
}

TEST_P(TrainedVocabVectors, DecodesTheExpectedIdsBackToTheText) {
  const auto tok = load(GetParam());
  for (const auto& v : test::read_vocab_vectors(vectors_path(GetParam().vocab)))
    EXPECT_EQ(tok->decode(v.ids), v.text) << "\"" << v.text << "\"";
}

TEST_P(TrainedVocabVectors, HasTheSpecialTokensOfItsFamily) {
  const auto tok = load(GetParam());
  const TrainedVocab& v = GetParam().vocab;
  EXPECT_EQ(tok->n_vocab(), v.n_vocab);
  EXPECT_EQ(tok->bos(), v.bos);
  EXPECT_EQ(tok->eos(), v.eos);
  EXPECT_EQ(tok->add_bos(), v.add_bos);
  EXPECT_TRUE(tok->is_control(v.bos));
  const std::vector<int32_t> with_bos = tok->encode("Hello world", true);
  ASSERT_FALSE(with_bos.empty());
  EXPECT_EQ(with_bos.front(), v.bos);
  EXPECT_EQ(tok->decode(with_bos), "Hello world");
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const TrainedVocab& v : kVocabs)
    for (Source s : {Source::Gguf, Source::TokenizerJson}) cases.push_back({v, s});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TrainedVocabVectors, testing::ValuesIn(all_cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           std::string name;
                           for (const char* c = info.param.vocab.name; *c; ++c) name += *c == '-' ? '_' : *c;
                           return name + (info.param.source == Source::Gguf ? "_gguf" : "_tokenizer_json");
                         });

}  // namespace
}  // namespace tessera
