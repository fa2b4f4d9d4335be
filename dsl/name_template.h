// Names with placeholders, as "blk.{i}.attn_q.weight" or "{arch}.block_count": finding
// the placeholders (for the semantic check) and filling them in (when compiling).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::dsl {

struct Placeholder {
  std::string name;  // between the braces
  size_t offset;     // of the '{' in the template
};

// The placeholders of `text` in order. Returns false and sets *error for an unclosed
// '{', a stray '}' or an empty "{}".
bool find_placeholders(std::string_view text, std::vector<Placeholder>* out, std::string* error);

// `text` with each {name} replaced by lookup(name); a name lookup() does not know
// (nullopt) is left unexpanded and reported in *unknown. The template must be valid.
std::string expand_placeholders(std::string_view text,
                                const std::function<std::optional<std::string>(std::string_view)>& lookup,
                                std::string* unknown = nullptr);

}  // namespace tessera::dsl
