// JSON documents of Hugging Face model folders (safetensors headers, config.json,
// shard indexes) parsed strictly: duplicate keys and absurd nesting are refused, and
// every failure is a tessera::Error naming the file and the position.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tessera {

// Objects nested deeper than this are refused: no real header or config comes close,
// and the readers walk documents recursively.
inline constexpr int kMaxJsonDepth = 64;

// Parses `text`, which starts at byte `base_offset` of the file `label`. Throws
// tessera::Error:
//   "LABEL: invalid JSON in DOC: parse error at line L, column C: ... (offset N)"
//   "LABEL: number 1e400 is out of range at key 'K' in DOC (inside 'P')"  (beyond a double)
//   "LABEL: duplicate key 'K' in DOC"              (a key repeated in the top object)
//   "LABEL: duplicate key 'K' in DOC (inside 'P')" (repeated deeper, P = "outer/inner")
//   "LABEL: JSON in DOC nests deeper than 64 levels"
// `document` names the part of the file holding the JSON ("the header"); when empty
// (the whole file is JSON) the " in DOC" parts are left out.
nlohmann::json parse_json_text(std::string_view text, const std::string& label,
                               const std::string& document, uint64_t base_offset = 0);

// "an object", "an array", "a string", "an integer", "a float", "a bool", "null":
// for messages saying what was found instead of what was expected.
std::string json_kind(const nlohmann::json& value);

}  // namespace tessera
