// A tokenizer.json written from the GPT-2 GGUF vocabulary (tokens, merges, added tokens)
// must encode llama.cpp's reference vectors exactly like the GGUF does.
#include "core/tokenizer/hf_tokenizer_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/tokenizer/bpe_tokenizer.h"
#include "core/util/error.h"
#include "core/weights/gguf_reader.h"
#include "support/testdata.h"
#include "vocab_vectors.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tessera_hf_tok_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write_json(const fs::path& dir, const std::string& file, const nlohmann::json& doc) {
  const fs::path path = dir / file;
  std::ofstream(path) << doc.dump();
  return path.string();
}

// tokenizer.json for the GGUF vocabulary `vocab`, control tokens as special added tokens.
nlohmann::json tokenizer_json_from(const BpeVocab& vocab) {
  nlohmann::json doc;
  doc["model"] = {{"type", "BPE"}, {"vocab", nlohmann::json::object()}, {"merges", vocab.merges}};
  doc["added_tokens"] = nlohmann::json::array();
  for (int32_t id = 0; id < vocab.size(); ++id) {
    if (vocab.types[id] == TokenType::Control)
      doc["added_tokens"].push_back({{"id", id}, {"content", vocab.texts[id]}, {"special", true}});
    else
      doc["model"]["vocab"][vocab.texts[id]] = id;
  }
  doc["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  return doc;
}

TEST(HfTokenizerJson, EncodesGpt2VectorsLikeTheGguf) {
  const std::string gguf = test::testdata_path("tokenizer/ggml-vocab-gpt-2.gguf");
  const BpeVocab from_gguf = bpe_vocab_from_metadata(*GgufFile::open(gguf));
  const fs::path dir = scratch_dir("gpt2");
  write_json(dir, "tokenizer_config.json", {{"eos_token", "<|endoftext|>"}});
  const BpeTokenizer tok(bpe_vocab_from_tokenizer_json(write_json(dir, "tokenizer.json",
                                                                  tokenizer_json_from(from_gguf))));
  EXPECT_EQ(tok.n_vocab(), from_gguf.size());
  EXPECT_EQ(tok.eos(), 50256);
  for (const auto& v : test::read_vocab_vectors(gguf))
    EXPECT_EQ(tok.encode(v.text, false), v.ids) << "\"" << v.text << "\"";
  fs::remove_all(dir);
}

TEST(HfTokenizerJson, RefusesNonBpeModel) {
  const fs::path dir = scratch_dir("wpm");
  const std::string path = write_json(dir, "tokenizer.json", {{"model", {{"type", "WordPiece"}}}});
  try {
    bpe_vocab_from_tokenizer_json(path);
    FAIL() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": model.type must be \"BPE\" (byte-level BPE); other tokenizers are not supported");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tessera
