// Reading a byte-level BPE vocabulary out of GGUF metadata, with the same key-naming
// errors as the SentencePiece one.
#include "core/tokenizer/bpe_vocab.h"

#include "core/tokenizer/meta_reader.h"
#include "core/tokenizer/pre_tokenizer.h"

namespace tessera {
namespace {

constexpr std::string_view kMergesKey = "tokenizer.ggml.merges";

std::vector<std::string> read_merges(const MetaReader& meta) {
  const MetaArray* arr = meta.array(kMergesKey, -1);
  if (!arr) meta.fail(kMergesKey, "is missing: a 'gpt2' tokenizer needs its BPE merges");
  std::vector<std::string> merges;
  merges.reserve(arr->size());
  for (size_t i = 0; i < arr->size(); ++i) {
    const auto* s = std::get_if<std::string>(&(*arr)[i].value);
    if (!s) meta.fail(kMergesKey, "entry " + std::to_string(i) + " is not a string");
    merges.push_back(*s);
  }
  return merges;
}

}  // namespace

BpeVocab bpe_vocab_from_metadata(const WeightFile& file) {
  MetaReader meta(file);
  const std::string model = meta.string_or("tokenizer.ggml.model", "");
  if (model != "gpt2")
    throw Error(file.path() + ": tokenizer model '" + model +
                "' is not a byte-level BPE vocabulary (expected 'gpt2')");
  BpeVocab v;
  v.texts = read_token_texts(meta);
  const int32_t n = v.size();
  v.merges = read_merges(meta);
  v.pre = meta.string_or("tokenizer.ggml.pre", "");
  PreTokenizerSpec pre;
  try {
    pre = pre_tokenizer_spec(v.pre);
  } catch (const Error& e) {
    throw Error(file.path() + ": " + e.what());
  }
  v.ignore_merges = pre.ignore_merges;
  v.bos_id = meta.token_id_or_none("tokenizer.ggml.bos_token_id", n);
  v.eos_id = meta.token_id_or_none("tokenizer.ggml.eos_token_id", n);
  v.eot_id = meta.token_id_or_none("tokenizer.ggml.eot_token_id", n);
  v.unk_id = meta.token_id_or_none("tokenizer.ggml.unknown_token_id", n);
  v.add_bos = meta.bool_or("tokenizer.ggml.add_bos_token", pre.add_bos);
  v.types = read_token_types(meta, v.texts.size());
  if (v.types.empty()) {
    v.types.assign(v.texts.size(), TokenType::Normal);
    for (int32_t id : {v.bos_id, v.eos_id, v.eot_id})
      if (id >= 0) v.types[id] = TokenType::Control;
  }
  validate_bpe_vocab(v, file.path());
  return v;
}

void validate_bpe_vocab(const BpeVocab& v, const std::string& origin) {
  const size_t n = v.texts.size();
  if (n == 0) throw Error(origin + ": the vocabulary is empty");
  if (v.types.size() != n)
    throw Error(origin + ": vocabulary has " + std::to_string(v.types.size()) +
                " token types for " + std::to_string(n) + " tokens");
  for (size_t i = 0; i < v.merges.size(); ++i)
    if (v.merges[i].find(' ', 1) == std::string::npos)
      throw Error(origin + ": merge " + std::to_string(i) + " '" + v.merges[i] +
                  "' is not two tokens separated by a space");
  check_special_id(v.bos_id, "BOS", n, origin);
  check_special_id(v.eos_id, "EOS", n, origin);
  check_special_id(v.eot_id, "EOT", n, origin);
  check_special_id(v.unk_id, "UNK", n, origin);
}

}  // namespace tessera
