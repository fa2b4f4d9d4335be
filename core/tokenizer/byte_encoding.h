// GPT-2's byte-to-character mapping: every byte becomes a printable code point (space is
// "Ġ", newline "Ċ"), which is how byte-level BPE vocabularies spell their tokens.
#pragma once

#include <string>
#include <string_view>

namespace tessera {

// Each byte of `bytes` replaced by the UTF-8 of its mapped character.
std::string bytes_to_bpe_chars(std::string_view bytes);

// The inverse: each mapped character back to its byte. A character outside the mapping
// is copied unchanged (vocabularies hold a few such tokens; their text is the best guess).
std::string bpe_chars_to_bytes(std::string_view chars);

}  // namespace tessera
