// Verbatim token matching over fragments, one token text at a time as llama.cpp does.
#include "core/tokenizer/special_tokens.h"

namespace tessera {

std::vector<TextFragment> split_out_tokens(std::string_view text, const std::vector<int32_t>& ids,
                                           const std::vector<std::string>& texts) {
  std::vector<TextFragment> fragments{{text, -1}};
  for (int32_t id : ids) {
    const std::string_view needle = texts[id];
    if (needle.empty()) continue;
    std::vector<TextFragment> next;
    for (const TextFragment& f : fragments) {
      if (f.token >= 0) {
        next.push_back(f);
        continue;
      }
      std::string_view rest = f.text;
      for (size_t hit; (hit = rest.find(needle)) != std::string_view::npos;) {
        if (hit > 0) next.push_back({rest.substr(0, hit), -1});
        next.push_back({rest.substr(hit, needle.size()), id});
        rest.remove_prefix(hit + needle.size());
      }
      if (!rest.empty()) next.push_back({rest, -1});
    }
    fragments = std::move(next);
  }
  return fragments;
}

}  // namespace tessera
