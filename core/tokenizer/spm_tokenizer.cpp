// SentencePiece BPE encode/decode over a Vocab: splitting out user-defined tokens,
// the dummy prefix and space escaping around the merge loop, and piece rendering.
#include "core/tokenizer/spm_tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/tokenizer/spm_merge.h"
#include "core/util/error.h"

namespace tessera {
namespace {

constexpr std::string_view kEscapedSpace = "\xE2\x96\x81";    // U+2581 LOWER ONE EIGHTH BLOCK
constexpr std::string_view kUnknownPiece = "\xE2\x96\x85";    // U+2585, as llama.cpp shows <unk>

// A part of the input: raw text to merge, or a user-defined token matched verbatim.
struct Fragment {
  std::string_view text;
  int32_t token = -1;
};

std::string escape_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (char c : text) {
    if (c == ' ') out.append(kEscapedSpace);
    else out.push_back(c);
  }
  return out;
}

std::string unescape_spaces(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, kEscapedSpace.size(), kEscapedSpace) == 0) {
      out.push_back(' ');
      i += kEscapedSpace.size();
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte value of a byte token's text "<0xXX>", or -1 if the text has another form.
int byte_token_value(const std::string& text) {
  if (text.size() != 6 || text.compare(0, 3, "<0x") != 0 || text[5] != '>') return -1;
  const int hi = hex_digit(text[3]);
  const int lo = hex_digit(text[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

// Splits every raw fragment at each occurrence of `token_text` (llama.cpp does the same,
// one user-defined token at a time, longest first).
std::vector<Fragment> split_at_token(const std::vector<Fragment>& in, std::string_view token_text,
                                     int32_t id) {
  std::vector<Fragment> out;
  for (const Fragment& f : in) {
    if (f.token >= 0) {
      out.push_back(f);
      continue;
    }
    std::string_view rest = f.text;
    for (size_t hit; (hit = rest.find(token_text)) != std::string_view::npos;) {
      if (hit > 0) out.push_back({rest.substr(0, hit), -1});
      out.push_back({token_text, id});
      rest.remove_prefix(hit + token_text.size());
    }
    if (!rest.empty()) out.push_back({rest, -1});
  }
  return out;
}

}  // namespace

SpmTokenizer::SpmTokenizer(Vocab vocab) : vocab_(std::move(vocab)), index_(vocab_.texts) {
  validate_vocab(vocab_, "tokenizer");
  if (!vocab_.merges.empty()) ranks_.emplace(vocab_.merges);
  // Byte fallback as llama.cpp: the <0xXX> token, else a token that is the byte itself,
  // else the unknown token.
  byte_tokens_.fill(-1);
  for (int32_t id = 0; id < vocab_.size(); ++id) {
    const int value = byte_token_value(vocab_.texts[id]);
    if (value >= 0) byte_tokens_[value] = id;
  }
  for (int b = 0; b < 256; ++b) {
    if (byte_tokens_[b] >= 0) continue;
    const int32_t id = index_.find(std::string(1, static_cast<char>(b)));
    byte_tokens_[b] = id >= 0 ? id : vocab_.unk_id;
  }
  for (int32_t id = 0; id < vocab_.size(); ++id)
    if (vocab_.types[id] == TokenType::UserDefined && !vocab_.texts[id].empty())
      user_defined_.push_back(id);
  std::stable_sort(user_defined_.begin(), user_defined_.end(), [&](int32_t a, int32_t b) {
    return vocab_.texts[a].size() > vocab_.texts[b].size();
  });
}

SpmTokenizer SpmTokenizer::from_weight_file(const WeightFile& file) {
  return SpmTokenizer(vocab_from_metadata(file));
}

std::vector<int32_t> SpmTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int32_t> ids;
  if (add_bos) {
    if (vocab_.bos_id < 0)
      throw Error("cannot add BOS while encoding: the vocabulary has no BOS token");
    ids.push_back(vocab_.bos_id);
  }
  if (text.empty()) return ids;

  std::vector<Fragment> fragments{{text, -1}};
  for (int32_t id : user_defined_) fragments = split_at_token(fragments, vocab_.texts[id], id);

  bool after_token = true;  // the start of the text counts as following a token
  for (const Fragment& f : fragments) {
    if (f.token >= 0) {
      ids.push_back(f.token);
      after_token = true;
    } else {
      encode_fragment(f.text, vocab_.add_space_prefix && after_token, ids);
      after_token = false;
    }
  }
  return ids;
}

void SpmTokenizer::encode_fragment(std::string_view text, bool add_prefix,
                                   std::vector<int32_t>& out) const {
  const std::string escaped = escape_spaces(add_prefix ? " " + std::string(text) : std::string(text));
  const SpmMergeTables tables{index_, vocab_.scores, byte_tokens_, ranks_ ? &*ranks_ : nullptr};
  spm_merge_append(escaped, tables, out);
}

std::string SpmTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  int32_t prev = -1;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_.size())
      throw Error("cannot decode token id " + std::to_string(ids[i]) + " at position " +
                  std::to_string(i) + ": the vocabulary has " + std::to_string(vocab_.size()) +
                  " tokens");
    text += token_to_piece(ids[i], prev);
    prev = ids[i];
  }
  return text;
}

std::string SpmTokenizer::token_to_piece(int32_t id, int32_t prev_id) const {
  check_id(id, "token_to_piece");
  const std::string& text = vocab_.texts[id];
  switch (vocab_.types[id]) {
    case TokenType::Normal: {
      std::string piece = unescape_spaces(text);
      const bool at_start = prev_id < 0 || prev_id == vocab_.bos_id;
      if (vocab_.add_space_prefix && at_start && !piece.empty() && piece[0] == ' ')
        piece.erase(0, 1);
      return piece;
    }
    case TokenType::Byte: {
      const int value = byte_token_value(text);
      return value >= 0 ? std::string(1, static_cast<char>(value)) : text;
    }
    case TokenType::UserDefined:
      return text;
    case TokenType::Unknown:
      return std::string(kUnknownPiece);
    case TokenType::Control:
    case TokenType::Unused:
      return {};
  }
  return {};
}

bool SpmTokenizer::is_control(int32_t id) const {
  return id >= 0 && id < vocab_.size() && vocab_.types[id] == TokenType::Control;
}

const std::string& SpmTokenizer::token_text(int32_t id) const {
  check_id(id, "token_text");
  return vocab_.texts[id];
}

void SpmTokenizer::check_id(int32_t id, const char* what) const {
  if (id < 0 || id >= vocab_.size())
    throw Error(std::string(what) + ": token id " + std::to_string(id) +
                " is out of range for a vocabulary of " + std::to_string(vocab_.size()) +
                " tokens");
}

}  // namespace tessera
