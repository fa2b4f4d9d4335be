// A tokenizer for the serve tests: token i reads "<i>", after any previous token.
#pragma once

#include <stdexcept>
#include <string>

#include "core/tokenizer/tokenizer.h"

namespace tessera::serve {

class FakeTokenizer : public Tokenizer {
 public:
  std::vector<int32_t> encode(std::string_view text, bool) const override {
    return std::vector<int32_t>(text.size(), 1);  // one token per byte
  }
  std::string decode(const std::vector<int32_t>& ids) const override {
    std::string s;
    for (int32_t id : ids) s += token_to_piece(id, -1);
    return s;
  }
  std::string token_to_piece(int32_t id, int32_t) const override { return "<" + std::to_string(id) + ">"; }
  int32_t n_vocab() const override { return 100; }
  int32_t bos() const override { return 1; }
  int32_t eos() const override { return 2; }
  bool add_bos() const override { return true; }
  bool is_control(int32_t) const override { return false; }
  bool ends_text(int32_t id) const override { return id == 2; }
  const std::string& token_text(int32_t) const override { throw std::logic_error("not used"); }
  int32_t find_token(std::string_view) const override { return -1; }
};

}  // namespace tessera::serve
