// Splitting user-defined tokens out of a text before it is merged: the one form of
// special-token matching done when encoding with parse_special = false.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// A stretch of the input: raw text to tokenize, or a token matched verbatim.
struct TextFragment {
  std::string_view text;
  int32_t token = -1;  // >= 0 for a matched token
};

// Cuts `text` at every occurrence of each token in `ids` (texts[id]), one token after
// another in the order given (longest first), never inside an earlier match.
std::vector<TextFragment> split_out_tokens(std::string_view text, const std::vector<int32_t>& ids,
                                           const std::vector<std::string>& texts);

}  // namespace tessera
