// Byte-level BPE encode/decode over a BpeVocab: user-defined tokens first, then
// pre-tokenization, byte mapping and rank-ordered merges for each word.
#include "core/tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <utility>

#include "core/tokenizer/byte_encoding.h"
#include "core/tokenizer/special_tokens.h"
#include "core/tokenizer/utf8.h"
#include "core/util/error.h"
#include "core/weights/weight_file.h"

namespace tessera {

BpeTokenizer::BpeTokenizer(BpeVocab vocab)
    : vocab_(std::move(vocab)),
      index_(vocab_.texts),
      ranks_(vocab_.merges),
      pre_(pre_tokenizer_from_name(vocab_.pre)) {
  validate_bpe_vocab(vocab_, "tokenizer");
  for (int32_t id = 0; id < vocab_.size(); ++id)
    if (vocab_.types[id] == TokenType::UserDefined && !vocab_.texts[id].empty())
      user_defined_.push_back(id);
  std::stable_sort(user_defined_.begin(), user_defined_.end(), [&](int32_t a, int32_t b) {
    return vocab_.texts[a].size() > vocab_.texts[b].size();
  });
}

BpeTokenizer BpeTokenizer::from_weight_file(const WeightFile& file) {
  BpeVocab vocab = bpe_vocab_from_metadata(file);
  try {
    return BpeTokenizer(std::move(vocab));
  } catch (const Error& e) {
    throw Error(file.path() + ": " + e.what());
  }
}

std::vector<int32_t> BpeTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos) {
    if (vocab_.bos_id < 0)
      throw Error("cannot add BOS while encoding: the vocabulary has no BOS token");
    ids.push_back(vocab_.bos_id);
  }
  for (const TextFragment& f : split_out_tokens(text, user_defined_, vocab_.texts)) {
    if (f.token >= 0) ids.push_back(f.token);
    else encode_text(f.text, ids);
  }
  return ids;
}

void BpeTokenizer::encode_text(std::string_view text, std::vector<int32_t>& out) const {
  for (std::string_view word : pre_tokenize(pre_, text)) {
    const std::string mapped = bytes_to_bpe_chars(word);
    if (vocab_.ignore_merges) {
      if (const int32_t id = index_.find(mapped); id >= 0) {
        out.push_back(id);
        continue;
      }
    }
    for (std::string_view piece : bpe_merge(mapped, ranks_)) {
      const int32_t id = index_.find(piece);
      if (id >= 0) {
        out.push_back(id);
        continue;
      }
      // A piece the vocabulary lacks (a byte no token covers: SmolLM2 has none for
      // 0x16, say) becomes its bytes' own tokens where they exist and is otherwise
      // dropped, as llama.cpp and Hugging Face's tokenizers do. Never the unknown
      // token, which byte-level vocabularies make their end-of-text: a stray byte in a
      // prompt must not end it.
      for (size_t at = 0; at < piece.size();) {
        const size_t len = std::min(utf8_sequence_length(static_cast<unsigned char>(piece[at])), piece.size() - at);
        if (const int32_t byte_id = index_.find(piece.substr(at, std::max<size_t>(len, 1))); byte_id >= 0) {
          out.push_back(byte_id);
        }
        at += std::max<size_t>(len, 1);
      }
    }
  }
}

std::string BpeTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_.size())
      throw Error("cannot decode token id " + std::to_string(ids[i]) + " at position " +
                  std::to_string(i) + ": the vocabulary has " + std::to_string(vocab_.size()) +
                  " tokens");
    text += token_to_piece(ids[i], i == 0 ? -1 : ids[i - 1]);
  }
  return text;
}

std::string BpeTokenizer::token_to_piece(int32_t id, int32_t /*prev_id*/) const {
  check_id(id, "token_to_piece");
  switch (vocab_.types[id]) {
    case TokenType::Normal:
    case TokenType::Byte:
      return bpe_chars_to_bytes(vocab_.texts[id]);
    case TokenType::UserDefined:
      return vocab_.texts[id];
    case TokenType::Control:
    case TokenType::Unknown:
    case TokenType::Unused:
      return {};
  }
  return {};
}

bool BpeTokenizer::is_control(int32_t id) const {
  return id >= 0 && id < vocab_.size() && vocab_.types[id] == TokenType::Control;
}

bool BpeTokenizer::ends_text(int32_t id) const {
  return id >= 0 && (id == vocab_.eos_id || id == vocab_.eot_id);
}

const std::string& BpeTokenizer::token_text(int32_t id) const {
  check_id(id, "token_text");
  return vocab_.texts[id];
}

void BpeTokenizer::check_id(int32_t id, const char* what) const {
  if (id < 0 || id >= vocab_.size())
    throw Error(std::string(what) + ": token id " + std::to_string(id) +
                " is out of range for a vocabulary of " + std::to_string(vocab_.size()) +
                " tokens");
}

}  // namespace tessera
