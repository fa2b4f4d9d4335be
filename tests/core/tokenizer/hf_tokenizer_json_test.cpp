// A tokenizer.json written from the GPT-2 GGUF vocabulary (tokens, merges, added tokens)
// must encode llama.cpp's reference vectors exactly like the GGUF does; a SentencePiece-style
// one merges in merge-list order; every kind Tessera does not read is refused by name.
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

// The error bpe_vocab_from_tokenizer_json gives for `path`.
std::string bpe_vocab_error(const std::string& path) {
  try {
    bpe_vocab_from_tokenizer_json(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
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

// What tokenizer_from_tokenizer_json says about `doc` written as a tokenizer.json.
struct Refusal {
  std::string path;  // where the file was
  std::string what;  // the error message, or "(no error)"
};

Refusal refusal(const std::string& dir_name, const nlohmann::json& doc) {
  const fs::path dir = scratch_dir(dir_name);
  Refusal r{write_json(dir, "tokenizer.json", doc), "(no error)"};
  try {
    tokenizer_from_tokenizer_json(r.path);
  } catch (const Error& e) {
    r.what = e.what();
  }
  fs::remove_all(dir);
  return r;
}

// A SentencePiece-style document: ids 0 <unk>, 1 a, 2 b, 3 c, 4 ab, 5 bc, 6 ▁, 7 <0x0A>.
nlohmann::json sentencepiece_doc(const nlohmann::json& merges) {
  nlohmann::json doc;
  doc["model"] = {{"type", "BPE"},         {"unk_token", "<unk>"}, {"byte_fallback", true},
                  {"fuse_unk", true},      {"merges", merges},
                  {"vocab", {{"<unk>", 0}, {"a", 1}, {"b", 2}, {"c", 3}, {"ab", 4}, {"bc", 5},
                             {"\xE2\x96\x81", 6}, {"<0x0A>", 7}}}};
  doc["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}};
  doc["pre_tokenizer"] = nullptr;
  return doc;
}

TEST(HfTokenizerJson, SentencePieceStyleMergesInMergeListOrder) {
  const fs::path dir = scratch_dir("spm_rank");
  const std::string path = write_json(dir, "tokenizer.json", sentencepiece_doc({"b c", "a b"}));
  const auto tok = tokenizer_from_tokenizer_json(path);
  EXPECT_EQ(tok->encode("abc", false), (std::vector<int32_t>{1, 5}));
  EXPECT_EQ(tok->encode("a\nb", false), (std::vector<int32_t>{1, 7, 2}));  // byte fallback
  EXPECT_EQ(tok->encode("ab c", false), (std::vector<int32_t>{4, 6, 3}));  // no space prefix
  EXPECT_EQ(tok->decode({4, 6, 3, 7}), "ab c\n");
  fs::remove_all(dir);
}

TEST(HfTokenizerJson, RefusesNonBpeModel) {
  const fs::path dir = scratch_dir("wpm");
  const nlohmann::json doc = {{"model", {{"type", "WordPiece"}, {"vocab", {{"a", 0}}}}}};
  const std::string path = write_json(dir, "tokenizer.json", doc);
  const std::string expected = path + ": model.type is \"WordPiece\"; Tessera reads only BPE "
                                      "tokenizers (byte-level, or SentencePiece-style with byte fallback)";
  EXPECT_EQ(bpe_vocab_error(path), expected);
  try {
    tokenizer_from_tokenizer_json(path);
    ADD_FAILURE() << "expected tessera::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
  fs::remove_all(dir);
}

TEST(HfTokenizerJson, RefusesNormalizerItDoesNotApply) {
  nlohmann::json doc = sentencepiece_doc({"a b"});
  doc["normalizer"] = {{"type", "Lowercase"}};
  const Refusal r = refusal("lower", doc);
  EXPECT_EQ(r.what,
            r.path + ": normalizer {\"type\":\"Lowercase\"} is not supported (byte-level BPE needs a "
                   "ByteLevel pre-tokenizer; SentencePiece-style BPE a Replace(\" \", \"\xE2\x96\x81\") "
                   "normalizer, after Prepend(\"\xE2\x96\x81\") or alone)");
}

TEST(HfTokenizerJson, RefusesMetaspacePreTokenizer) {
  nlohmann::json doc = sentencepiece_doc({"a b"});
  doc["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "first"}};
  const Refusal r = refusal("metaspace", doc);
  EXPECT_EQ(r.what,
            r.path + ": pre_tokenizer " + doc["pre_tokenizer"].dump() +
                " is not supported (a ByteLevel one for byte-level BPE; none, or a Split on \" \", "
                "for SentencePiece-style BPE)");
}

TEST(HfTokenizerJson, RefusesSentencePieceStyleWithoutByteFallback) {
  nlohmann::json doc = sentencepiece_doc({"a b"});
  doc["model"]["byte_fallback"] = false;
  const Refusal r = refusal("no_fallback", doc);
  EXPECT_EQ(r.what,
            r.path + ": model.byte_fallback is not true; a SentencePiece-style BPE needs its byte fallback");
}

TEST(HfTokenizerJson, RefusesSplitRegexItDoesNotKnow) {
  nlohmann::json doc;
  doc["model"] = {{"type", "BPE"}, {"vocab", {{"a", 0}}}, {"merges", nlohmann::json::array()}};
  doc["pre_tokenizer"] = {{"type", "Sequence"},
                          {"pretokenizers",
                           {{{"type", "Split"}, {"pattern", {{"Regex", "\\p{L}+"}}}, {"behavior", "Isolated"}},
                            {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  const Refusal r = refusal("regex", doc);
  EXPECT_EQ(r.what,
            r.path + ": pre_tokenizer " + doc["pre_tokenizer"].dump().substr(0, 117) +
                "... is not supported (ByteLevel; Digits(individual) then ByteLevel; or a Split with "
                "Llama 3's or Qwen2's regex then ByteLevel)");
}

TEST(HfTokenizerJson, RefusesMergeThatFormsNoToken) {
  const Refusal r = refusal("bad_merge", sentencepiece_doc({"a c"}));
  EXPECT_EQ(r.what, r.path + ": merge 0 'a c' forms 'ac', which is not a token");
}

}  // namespace
}  // namespace tessera
