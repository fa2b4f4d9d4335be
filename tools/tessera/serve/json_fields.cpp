#include "tools/tessera/serve/json_fields.h"

#include <cstdint>
#include <sstream>

#include "tools/tessera/serve/api_error.h"

namespace tessera::serve {
namespace {

const nlohmann::json* present(const nlohmann::json& body, const std::string& name) {
  auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

template <typename T>
std::string number_text(T value) {
  std::ostringstream s;
  s << value;
  return s.str();
}

template <typename T>
[[noreturn]] void throw_out_of_range(const std::string& name, T value, T min, T max) {
  throw invalid_request("invalid value for '" + name + "': " + number_text(value) + " is not in [" + number_text(min) +
                            ", " + number_text(max) + "]",
                        name);
}

}  // namespace

std::string json_type_name(const nlohmann::json& value) {
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "null";
}

void throw_wrong_type(const std::string& name, const std::string& expected, const nlohmann::json& got) {
  throw invalid_request("invalid type for '" + name + "': expected " + expected + ", got " + json_type_name(got), name);
}

std::optional<std::string> string_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = present(body, name);
  if (!v) return std::nullopt;
  if (!v->is_string()) throw_wrong_type(name, "a string", *v);
  return v->get<std::string>();
}

std::optional<int64_t> integer_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = present(body, name);
  if (!v) return std::nullopt;
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    throw invalid_request("invalid value for '" + name + "': " + v->dump() + " is too large", name);
  }
  if (!v->is_number_integer()) throw_wrong_type(name, "an integer", *v);
  return v->get<int64_t>();
}

std::optional<double> number_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = present(body, name);
  if (!v) return std::nullopt;
  if (!v->is_number()) throw_wrong_type(name, "a number", *v);
  return v->get<double>();
}

std::optional<bool> bool_field(const nlohmann::json& body, const std::string& name) {
  const nlohmann::json* v = present(body, name);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) throw_wrong_type(name, "a boolean", *v);
  return v->get<bool>();
}

std::optional<int64_t> integer_in(const nlohmann::json& body, const std::string& name, int64_t min, int64_t max) {
  const std::optional<int64_t> v = integer_field(body, name);
  if (v && (*v < min || *v > max)) throw_out_of_range(name, *v, min, max);
  return v;
}

std::optional<double> number_in(const nlohmann::json& body, const std::string& name, double min, double max) {
  const std::optional<double> v = number_field(body, name);
  if (v && !(*v >= min && *v <= max)) throw_out_of_range(name, *v, min, max);
  return v;
}

}  // namespace tessera::serve
