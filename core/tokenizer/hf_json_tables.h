// The parts of a Hugging Face tokenizer.json that both BPE readers (byte-level and
// SentencePiece-style) share: the file itself, the token table, the merges, the plain-BPE
// checks, and the special tokens named in tokenizer_config.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tokenizer/vocab.h"
#include "core/util/error.h"

namespace tessera::hf_json {

using nlohmann::json;

// The parsed file; throws tessera::Error naming it when it cannot be opened or parsed.
json read_json_file(const std::string& path);

// Whether `node` is an object whose "type" is `type`.
bool is_type(const json& node, const char* type);

// `node` shortened for an error message.
std::string brief(const json& node);

// doc["model"], which must be a BPE model without dropout, subword prefix or word suffix
// (the only kind Tessera reads). Throws tessera::Error naming the file and what it found.
const json& bpe_model(const json& doc, const std::string& path);

// The tokens by id: model.vocab and added_tokens (special ones Control, the others
// UserDefined, the rest Normal); ids nobody names are Unused with empty text.
struct TokenTable {
  std::vector<std::string> texts;
  std::vector<TokenType> types;
  int32_t size() const { return static_cast<int32_t>(texts.size()); }
  int32_t find(const std::string& text) const;  // the first id with this text, or -1
};
TokenTable read_token_table(const json& doc, const std::string& path);

// The id of model.unk_token, or -1 when it is null or not in the table.
int32_t unk_token_id(const json& model, const TokenTable& table);

// model.merges as "left right" strings (entries "a b" or ["a", "b"]).
std::vector<std::string> read_merges(const json& model, const std::string& path);

// BOS/EOS and whether BOS is added, from tokenizer_config.json beside the file (bos_token,
// eos_token, add_bos_token, add_eos_token) and, when add_bos_token is absent, from the
// post-processor: a TemplateProcessing whose single sequence starts with the BOS token
// (how Llama 3's tokenizer.json adds it). Ids are -1 when not named or not in the table.
struct SpecialTokens {
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  bool add_bos = false;
  bool add_eos = false;
};
SpecialTokens read_special_tokens(const json& doc, const std::string& path, const TokenTable& table);

// Runs `read` and returns its result; an error without the file's name gets it in front,
// and a JSON value of an unexpected type (nlohmann's exception) becomes a tessera::Error.
template <typename Read>
auto with_file_context(const std::string& path, Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind(path + ":", 0) == 0) throw;
    throw Error(path + ": " + what);
  } catch (const json::exception& e) {
    throw Error(path + ": a value has an unexpected type (" + std::string(e.what()) + ")");
  }
}

// The SentencePiece-style reader on a parsed document (hf_spm_json.cpp; see
// spm_vocab_from_tokenizer_json).
Vocab sentencepiece_vocab(const json& doc, const std::string& path);

}  // namespace tessera::hf_json
