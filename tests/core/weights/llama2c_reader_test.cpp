// Llama2cFile: the stories260K checkpoint + tok512.bin pair must look exactly like
// the GGUF conversion of it (tensors byte for byte, tokenizer metadata value for
// value); malformed checkpoints and tokenizer files are refused with their cause.
#include "core/weights/llama2c_reader.h"

#include <gtest/gtest.h>

#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_types.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

std::string bin_path() { return test::testdata_path("stories260K/stories260K.bin"); }
std::string tok_path() { return test::testdata_path("stories260K/tok512.bin"); }
std::string gguf_path() { return test::testdata_path("stories260K/stories260K.gguf"); }

// Deep equality of two metadata values, types included.
void expect_same_meta(const MetaValue& a, const MetaValue& b, const std::string& where) {
  ASSERT_EQ(a.gguf_type, b.gguf_type) << where;
  ASSERT_EQ(a.gguf_elem_type, b.gguf_elem_type) << where;
  ASSERT_EQ(a.value.index(), b.value.index()) << where;
  if (const auto* items = std::get_if<MetaArray>(&a.value)) {
    const MetaArray& other = b.as_array();
    ASSERT_EQ(items->size(), other.size()) << where;
    for (size_t i = 0; i < items->size(); ++i) {
      expect_same_meta((*items)[i], other[i], where + "[" + std::to_string(i) + "]");
    }
  } else {
    EXPECT_TRUE(a.value == b.value) << where << ": " << a.to_display() << " vs " << b.to_display();
  }
}

class StoriesLlama2c : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bin_ = Llama2cFile::open(bin_path(), tok_path()).release();
    gguf_ = GgufFile::open(gguf_path()).release();
  }
  static void TearDownTestSuite() {
    delete bin_;
    delete gguf_;
  }
  static Llama2cFile* bin_;
  static GgufFile* gguf_;
};
Llama2cFile* StoriesLlama2c::bin_ = nullptr;
GgufFile* StoriesLlama2c::gguf_ = nullptr;

TEST_F(StoriesLlama2c, HeaderIsDecoded) {
  const Llama2cConfig& c = bin_->config();
  EXPECT_EQ(c.dim, 64);
  EXPECT_EQ(c.hidden_dim, 172);
  EXPECT_EQ(c.n_layers, 5);
  EXPECT_EQ(c.n_heads, 8);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.vocab_size, 512);
  EXPECT_EQ(c.seq_len, 512);
  EXPECT_TRUE(c.shared_classifier);
  EXPECT_EQ(bin_->format(), "llama2c");
}

TEST_F(StoriesLlama2c, ModelMetadataUsesGgufKeysAndTypes) {
  auto u32 = [](const std::string& key) {
    const MetaValue* v = bin_->find_meta(key);
    EXPECT_NE(v, nullptr) << key;
    EXPECT_EQ(v ? v->gguf_type : -1, gguf::kUint32) << key;
    return v ? v->as_int() : -1;
  };
  EXPECT_EQ(bin_->find_meta("general.architecture")->as_string(), "llama");
  EXPECT_EQ(u32("llama.embedding_length"), 64);
  EXPECT_EQ(u32("llama.feed_forward_length"), 172);
  EXPECT_EQ(u32("llama.block_count"), 5);
  EXPECT_EQ(u32("llama.attention.head_count"), 8);
  EXPECT_EQ(u32("llama.attention.head_count_kv"), 4);
  EXPECT_EQ(u32("llama.context_length"), 512);  // the real seq_len, unlike the GGUF's 128
  EXPECT_EQ(u32("llama.rope.dimension_count"), 8);
  EXPECT_EQ(bin_->find_meta("llama.rope.freq_base")->as_float(), 10000.0);
  EXPECT_EQ(bin_->find_meta("llama.attention.layer_norm_rms_epsilon")->as_float(),
            static_cast<double>(1e-5f));
}

TEST_F(StoriesLlama2c, MetadataSharedWithTheGgufIsIdentical) {
  int compared = 0;
  for (const auto& [key, value] : gguf_->metadata()) {
    if (key == "llama.context_length" || key == "general.name") continue;  // converter quirks
    const MetaValue* mine = bin_->find_meta(key);
    if (mine == nullptr) {
      EXPECT_TRUE(key == "tokenizer.ggml.seperator_token_id" ||
                  key == "tokenizer.ggml.padding_token_id")
          << key;
      continue;
    }
    expect_same_meta(*mine, value, key);
    ++compared;
  }
  EXPECT_EQ(compared, 15);  // 19 keys less 2 quirks, less 2 unset token ids
}

TEST_F(StoriesLlama2c, TokenizerArraysEqualTheGguf) {
  for (const char* key :
       {"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
    ASSERT_NE(bin_->find_meta(key), nullptr) << key;
    expect_same_meta(*bin_->find_meta(key), *gguf_->find_meta(key), key);
  }
  EXPECT_EQ(bin_->find_meta("tokenizer.ggml.tokens")->as_array()[259].as_string(), "\xe2\x96\x81t");
}

TEST_F(StoriesLlama2c, EveryTensorEqualsTheGgufTensorByteForByte) {
  ASSERT_EQ(bin_->tensors().size(), gguf_->tensors().size());
  for (const TensorView& expected : gguf_->tensors()) {
    const TensorView* t = bin_->find_tensor(expected.name);
    ASSERT_NE(t, nullptr) << expected.name;
    EXPECT_EQ(t->dtype, DType::F32) << expected.name;
    EXPECT_EQ(t->shape, expected.shape) << expected.name;
    ASSERT_EQ(t->n_bytes, expected.n_bytes) << expected.name;
    EXPECT_EQ(std::memcmp(t->data, expected.data, t->n_bytes), 0) << expected.name;
  }
}

TEST_F(StoriesLlama2c, TensorOrderMatchesTheGguf) {
  for (size_t i = 0; i < gguf_->tensors().size(); ++i) {
    EXPECT_EQ(bin_->tensors()[i].name, gguf_->tensors()[i].name) << i;
  }
}

TEST_F(StoriesLlama2c, SharedClassifierIsTheEmbeddingItself) {
  EXPECT_EQ(bin_->find_tensor("output.weight")->data, bin_->find_tensor("token_embd.weight")->data);
}

TEST(Llama2cFile, WithoutTokenizerHasNoTokenizerKeys) {
  const auto file = Llama2cFile::open(bin_path());
  EXPECT_EQ(file->find_meta("tokenizer.ggml.tokens"), nullptr);
  EXPECT_EQ(file->tensors().size(), 48u);
}

// A tiny checkpoint: dim 8, hidden 16, 1 layer, 2 heads, 1 kv head, seq_len 4; every
// float holds its own index after the header. `vocab` < 0 adds a classifier.
std::vector<uint8_t> tiny_checkpoint(int32_t vocab, int64_t extra_floats = 0) {
  const int32_t header[7] = {8, 16, 1, 2, 1, vocab, 4};
  const int64_t v = vocab < 0 ? -vocab : vocab;
  // emb + rms_att + wq + wk + wv + wo + rms_ffn + w1 w2 w3 + rms_final + freq_cis (+ wcls)
  const int64_t n =
      v * 8 + 8 + 64 + 32 + 32 + 64 + 8 + 3 * 128 + 8 + 16 + (vocab < 0 ? v * 8 : 0) + extra_floats;
  std::vector<uint8_t> bytes(sizeof header + static_cast<size_t>(n) * 4);
  std::memcpy(bytes.data(), header, sizeof header);
  for (int64_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(i);
    std::memcpy(bytes.data() + sizeof header + i * 4, &f, 4);
  }
  return bytes;
}

float first_float(const WeightFile& file, const std::string& name) {
  const TensorView* t = file.find_tensor(name);
  EXPECT_NE(t, nullptr) << name;
  return t ? *static_cast<const float*>(t->data) : -1.0f;
}

TEST(Llama2cFile, NegativeVocabReadsTheSeparateClassifierAtTheEnd) {
  const auto file = Llama2cFile::open(test::write_temp("wcls.bin", tiny_checkpoint(-4)));
  EXPECT_FALSE(file->config().shared_classifier);
  EXPECT_EQ(file->config().vocab_size, 4);
  EXPECT_EQ(first_float(*file, "token_embd.weight"), 0.0f);
  EXPECT_EQ(first_float(*file, "blk.0.attn_norm.weight"), 32.0f);
  EXPECT_EQ(first_float(*file, "blk.0.attn_q.weight"), 40.0f);
  EXPECT_EQ(first_float(*file, "blk.0.ffn_up.weight"), 32.0f + 8 + 64 + 32 + 32 + 64 + 8 + 2 * 128);
  EXPECT_EQ(first_float(*file, "output_norm.weight"), 624.0f);
  EXPECT_EQ(first_float(*file, "output.weight"), 648.0f);  // after the 16 freq_cis floats
  EXPECT_EQ(file->find_tensor("output.weight")->shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(file->find_tensor("blk.0.attn_k.weight")->shape, (std::vector<int64_t>{4, 8}));
}

TEST(Llama2cFile, WrongSizeIsRefusedWithExpectedAndFound) {
  std::vector<uint8_t> bytes = test::read_bytes(bin_path());
  bytes.resize(bytes.size() - 4);
  const std::string path = test::write_temp("short.bin", bytes);
  test::expect_error(
      [&] { Llama2cFile::open(path); },
      {path + ": not a llama2.c checkpoint: size mismatch: the header (dim 64, hidden_dim 172, "
              "n_layers 5, n_heads 8, n_kv_heads 4, vocab_size 512, seq_len 512) implies "
              "1056540 bytes, but the file has 1056536"});
}

TEST(Llama2cFile, HeadsNotDividingDimAreRefused) {
  std::vector<uint8_t> bytes = tiny_checkpoint(4);
  test::patch(bytes, 12, int32_t{3});  // n_heads
  const std::string path = test::write_temp("heads.bin", bytes);
  test::expect_error([&] { Llama2cFile::open(path); }, {path, "dim is not a multiple of n_heads"});
}

TEST(Llama2cFile, NonPositiveSizeIsRefused) {
  std::vector<uint8_t> bytes = tiny_checkpoint(4);
  test::patch(bytes, 8, int32_t{0});  // n_layers
  const std::string path = test::write_temp("layers.bin", bytes);
  test::expect_error([&] { Llama2cFile::open(path); },
                     {"n_layers 0", "every size must be positive"});
}

TEST(Llama2cFile, VersionedExportIsRefused) {
  std::vector<uint8_t> bytes = tiny_checkpoint(4);
  test::patch(bytes, 0, uint32_t{0x616b3432});
  const std::string path = test::write_temp("ak42.bin", bytes);
  test::expect_error([&] { Llama2cFile::open(path); },
                     {"magic 'ak42'", "only the legacy (version 0) export"});
}

TEST(Llama2cTokenizer, TruncatedTokenIsRefused) {
  std::vector<uint8_t> bytes = test::read_bytes(tok_path());
  bytes.resize(bytes.size() - 2);  // the last token "\xe2\x80\x8a" loses 2 of its 3 bytes
  const std::string path = test::write_temp("tok.bin", bytes);
  test::expect_error(
      [&] { Llama2cFile::open(bin_path(), path); },
      {path + ": token 511 of 512: length 3 runs past the end of the file (1 bytes remain)",
       "(offset 6220)"});
}

TEST(Llama2cTokenizer, LyingLengthIsRefused) {
  std::vector<uint8_t> bytes = test::read_bytes(tok_path());
  test::patch(bytes, 8, int32_t{-1});  // length of token 0
  const std::string path = test::write_temp("tok.bin", bytes);
  test::expect_error(
      [&] { Llama2cFile::open(bin_path(), path); },
      {path + ": token 0 of 512: length -1 runs past the end of the file", "(offset 8)"});
}

TEST(Llama2cTokenizer, TrailingBytesAreRefused) {
  std::vector<uint8_t> bytes = test::read_bytes(tok_path());
  bytes.resize(bytes.size() + 5, 0);
  const std::string path = test::write_temp("tok.bin", bytes);
  test::expect_error([&] { Llama2cFile::open(bin_path(), path); },
                     {path + ": 5 bytes follow the last of the 512 tokens the checkpoint expects",
                      "(offset 6227)"});
}

TEST(Llama2cTokenizer, MissingFileIsNamed) {
  test::expect_error([] { Llama2cFile::open(bin_path(), "/nonexistent/tok.bin"); },
                     {"/nonexistent/tok.bin: cannot open: No such file or directory"});
}

}  // namespace
}  // namespace tessera
