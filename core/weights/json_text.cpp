// Strict JSON parsing for weight folders; see json_text.h. Duplicate keys are found
// with the parser's callback, since the parsed object silently keeps the last one.
#include "core/weights/json_text.h"

#include <set>
#include <vector>

#include "core/util/error.h"
#include "core/weights/byte_reader.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

// " in the header" (or nothing when the document is the whole file).
std::string in_document(const std::string& document) {
  return document.empty() ? "" : " in " + document;
}

// The keys seen so far in each object being parsed, innermost last.
struct OpenObject {
  std::string path;  // keys leading to this object, joined with '/' ("" at the top)
  std::set<std::string> keys;
  std::string last_key;
};

// The objects open where the parser is, outermost first; it outlives the parser's copy
// of the callback, so a failure can say where in the document it happened.
using OpenObjects = std::vector<OpenObject>;

// " at key 'K' in DOC (inside 'P')" for the innermost open object, or " in DOC".
std::string where_in(const OpenObjects& objects, const std::string& document) {
  if (objects.empty() || objects.back().last_key.empty()) return in_document(document);
  const OpenObject& object = objects.back();
  const std::string inside = object.path.empty() ? "" : " (inside '" + object.path + "')";
  return " at key '" + object.last_key + "'" + in_document(document) + inside;
}

class DuplicateKeyCheck {
 public:
  DuplicateKeyCheck(const std::string& label, const std::string& document, OpenObjects& objects)
      : label_(label), document_(document), objects_(objects) {}

  bool operator()(int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) {
          throw Error(label_ + ": JSON" + in_document(document_) + " nests deeper than " +
                      std::to_string(kMaxJsonDepth) + " levels");
        }
        if (event == Json::parse_event_t::object_start) open_object();
        break;
      case Json::parse_event_t::object_end:
        objects_.pop_back();
        break;
      case Json::parse_event_t::key:
        add_key(parsed.get<std::string>());
        break;
      default:
        break;
    }
    return true;
  }

 private:
  void open_object() {
    std::string path;
    if (!objects_.empty()) {
      const OpenObject& parent = objects_.back();
      path = parent.path.empty() ? parent.last_key : parent.path + "/" + parent.last_key;
    }
    objects_.push_back({.path = std::move(path), .keys = {}, .last_key = {}});
  }

  void add_key(const std::string& key) {
    OpenObject& object = objects_.back();
    if (!object.keys.insert(key).second) {
      const std::string where = object.path.empty() ? "" : " (inside '" + object.path + "')";
      throw Error(label_ + ": duplicate key '" + key + "'" + in_document(document_) + where);
    }
    object.last_key = key;
  }

  const std::string& label_;
  const std::string& document_;
  OpenObjects& objects_;
};

// nlohmann's message without its "[json.exception.parse_error.101] " prefix, and with
// bytes of a broken file made printable.
std::string parse_error_reason(const Json::exception& e) {
  std::string_view what = e.what();
  if (const size_t end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
  return printable_bytes({reinterpret_cast<const uint8_t*>(what.data()), what.size()});
}

// The number nlohmann quotes in "number overflow parsing '1e400'", or "" when the
// message has another form.
std::string overflowing_number(const Json::exception& e) {
  const std::string_view what = e.what();
  const size_t open = what.find('\'');
  const size_t close = what.rfind('\'');
  if (open == std::string_view::npos || close <= open) return "";
  return std::string(what.substr(open + 1, close - open - 1));
}

}  // namespace

Json parse_json_text(std::string_view text, const std::string& label, const std::string& document,
                     uint64_t base_offset) {
  OpenObjects objects;
  try {
    return Json::parse(text.begin(), text.end(), DuplicateKeyCheck(label, document, objects));
  } catch (const Json::parse_error& e) {
    // e.byte counts from 1 and points at the character that could not be read.
    const uint64_t at = base_offset + (e.byte > 0 ? e.byte - 1 : 0);
    throw Error(label + ": invalid JSON" + in_document(document) + ": " + parse_error_reason(e) +
                " (offset " + std::to_string(at) + ")");
  } catch (const Json::out_of_range& e) {
    // A number beyond a double's range (1e400): nlohmann reports no position for it,
    // so the key being read names the place.
    const std::string number = overflowing_number(e);
    if (number.empty()) throw Error(label + ": invalid JSON" + in_document(document) + ": " + parse_error_reason(e));
    throw Error(label + ": number " + printable_bytes({reinterpret_cast<const uint8_t*>(number.data()), number.size()}) +
                " is out of range" + where_in(objects, document));
  }
}

std::string json_kind(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a float";
    case Json::value_t::null:
      return "null";
    default:
      return "a binary value";
  }
}

}  // namespace tessera
