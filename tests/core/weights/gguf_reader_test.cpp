// GgufFile on the real stories260K.gguf: header, every documented metadata value,
// tensor names, shapes (outermost first), dtypes and data placement.
#include "core/weights/gguf_reader.h"

#include <gtest/gtest.h>

#include "core/weights/gguf_types.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

class StoriesGguf : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    file_ = GgufFile::open(test::testdata_path("stories260K/stories260K.gguf")).release();
  }
  static void TearDownTestSuite() {
    delete file_;
    file_ = nullptr;
  }
  static const GgufFile& file() { return *file_; }
  static int64_t meta_int(const std::string& key) {
    const MetaValue* v = file().find_meta(key);
    EXPECT_NE(v, nullptr) << key;
    return v ? v->as_int() : -1;
  }

  static GgufFile* file_;
};
GgufFile* StoriesGguf::file_ = nullptr;

TEST_F(StoriesGguf, HeaderIsVersion3WithDefaultAlignment) {
  EXPECT_EQ(file().format(), "gguf");
  EXPECT_EQ(file().version(), 3u);
  EXPECT_EQ(file().alignment(), 32u);
  EXPECT_EQ(file().data_offset() % 32, 0u);
  EXPECT_EQ(file().data_offset(), 14176u);  // header ends at 14152, padded to 32
}

TEST_F(StoriesGguf, Has19MetadataEntriesAnd48Tensors) {
  EXPECT_EQ(file().metadata().size(), 19u);
  EXPECT_EQ(file().tensors().size(), 48u);
}

TEST_F(StoriesGguf, ModelHyperParametersAreReadAsUint32) {
  EXPECT_EQ(file().find_meta("general.architecture")->as_string(), "llama");
  EXPECT_EQ(meta_int("llama.embedding_length"), 64);
  EXPECT_EQ(meta_int("llama.feed_forward_length"), 172);
  EXPECT_EQ(meta_int("llama.attention.head_count"), 8);
  EXPECT_EQ(meta_int("llama.attention.head_count_kv"), 4);
  EXPECT_EQ(meta_int("llama.block_count"), 5);
  EXPECT_EQ(meta_int("llama.rope.dimension_count"), 8);
  EXPECT_EQ(meta_int("llama.context_length"), 128);  // the converter's default, see README
  EXPECT_EQ(file().find_meta("llama.block_count")->gguf_type, gguf::kUint32);
}

TEST_F(StoriesGguf, RmsEpsilonIsFloat32) {
  const MetaValue* eps = file().find_meta("llama.attention.layer_norm_rms_epsilon");
  ASSERT_NE(eps, nullptr);
  EXPECT_EQ(eps->gguf_type, gguf::kFloat32);
  EXPECT_EQ(eps->as_float(), static_cast<double>(1e-5f));
  EXPECT_EQ(eps->to_display(), "1e-05");
}

TEST_F(StoriesGguf, TokenizerIdsIncludeUnsetSeparator) {
  EXPECT_EQ(meta_int("tokenizer.ggml.bos_token_id"), 1);
  EXPECT_EQ(meta_int("tokenizer.ggml.eos_token_id"), 2);
  EXPECT_EQ(meta_int("tokenizer.ggml.unknown_token_id"), 0);
  EXPECT_EQ(meta_int("tokenizer.ggml.seperator_token_id"), 4294967295);
  EXPECT_EQ(file().find_meta("tokenizer.ggml.model")->as_string(), "llama");
}

TEST_F(StoriesGguf, TokenizerArraysHave512TypedEntries) {
  const MetaValue* tokens = file().find_meta("tokenizer.ggml.tokens");
  const MetaValue* scores = file().find_meta("tokenizer.ggml.scores");
  const MetaValue* types = file().find_meta("tokenizer.ggml.token_type");
  ASSERT_TRUE(tokens && scores && types);
  EXPECT_EQ(tokens->gguf_elem_type, gguf::kString);
  EXPECT_EQ(scores->gguf_elem_type, gguf::kFloat32);
  EXPECT_EQ(types->gguf_elem_type, gguf::kInt32);
  ASSERT_EQ(tokens->as_array().size(), 512u);
  ASSERT_EQ(scores->as_array().size(), 512u);
  ASSERT_EQ(types->as_array().size(), 512u);
  EXPECT_EQ(tokens->as_array()[1].as_string(), "<s>");
  EXPECT_EQ(tokens->as_array()[3].as_string(), "<0x00>");
  EXPECT_EQ(tokens->as_array()[259].as_string(), "\xe2\x96\x81t");  // "▁t"
  EXPECT_EQ(scores->as_array()[260].as_float(), -1.0);
  EXPECT_EQ(scores->as_array()[511].as_float(), -252.0);
  EXPECT_EQ(types->as_array()[0].as_int(), 2);
  EXPECT_EQ(types->as_array()[1].as_int(), 3);
  EXPECT_EQ(types->as_array()[3].as_int(), 6);
  EXPECT_EQ(types->as_array()[259].as_int(), 1);
}

TEST_F(StoriesGguf, ShapesAreOutermostFirst) {
  const TensorView* k = file().find_tensor("blk.0.attn_k.weight");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shape, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(file().find_tensor("blk.4.ffn_down.weight")->shape, (std::vector<int64_t>{64, 172}));
  EXPECT_EQ(file().find_tensor("blk.2.ffn_gate.weight")->shape, (std::vector<int64_t>{172, 64}));
  EXPECT_EQ(file().find_tensor("token_embd.weight")->shape, (std::vector<int64_t>{512, 64}));
  EXPECT_EQ(file().find_tensor("output_norm.weight")->shape, (std::vector<int64_t>{64}));
}

TEST_F(StoriesGguf, EveryTensorIsF32WithMatchingByteCount) {
  for (const TensorView& t : file().tensors()) {
    EXPECT_EQ(t.dtype, DType::F32) << t.name;
    EXPECT_EQ(t.n_bytes, static_cast<uint64_t>(t.n_elements()) * 4) << t.name;
  }
  EXPECT_EQ(file().find_tensor("blk.0.attn_q.weight")->n_elements(), 64 * 64);
}

TEST_F(StoriesGguf, TensorDataPointsAtItsOffsetInTheFile) {
  const auto bytes = test::read_bytes(file().path());
  const TensorView* q = file().find_tensor("blk.0.attn_q.weight");
  ASSERT_NE(q, nullptr);
  // The converter placed blk.0.attn_q.weight at data offset 262400.
  const uint64_t start = file().data_offset() + 262400;
  EXPECT_EQ(std::memcmp(q->data, bytes.data() + start, q->n_bytes), 0);
  const TensorView& last = file().tensors().back();
  EXPECT_EQ(static_cast<const uint8_t*>(last.data) + last.n_bytes,
            static_cast<const uint8_t*>(file().tensors().front().data) - file().data_offset() +
                bytes.size());
}

TEST_F(StoriesGguf, TensorsKeepFileOrderAndGgufNames) {
  EXPECT_EQ(file().tensors()[0].name, "token_embd.weight");
  EXPECT_EQ(file().tensors()[2].name, "output.weight");
  EXPECT_EQ(file().tensors()[3].name, "blk.0.attn_q.weight");
  EXPECT_EQ(file().tensors().back().name, "blk.4.ffn_norm.weight");
  EXPECT_EQ(file().find_tensor("blk.5.attn_q.weight"), nullptr);
  EXPECT_EQ(file().find_meta("no.such.key"), nullptr);
}

TEST(GgufOpen, MissingFileNamesThePathAndReason) {
  test::expect_error([] { GgufFile::open("/nonexistent/model.gguf"); },
                     {"/nonexistent/model.gguf", "No such file or directory"});
}

}  // namespace
}  // namespace tessera
