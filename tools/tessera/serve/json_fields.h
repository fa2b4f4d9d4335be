// Typed reads of the fields of a request body, each failing with a 400 ApiError that
// names the field and what it should have been. Absent and null fields read as nullopt.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tessera::serve {

// "a string", "an integer", "a number", "a boolean", "an array", "an object", "null".
std::string json_type_name(const nlohmann::json& value);

// The 400 for a field of the wrong type: "invalid type for 'name': expected X, got Y".
[[noreturn]] void throw_wrong_type(const std::string& name, const std::string& expected, const nlohmann::json& got);

std::optional<std::string> string_field(const nlohmann::json& body, const std::string& name);
std::optional<int64_t> integer_field(const nlohmann::json& body, const std::string& name);
std::optional<double> number_field(const nlohmann::json& body, const std::string& name);
std::optional<bool> bool_field(const nlohmann::json& body, const std::string& name);

// An integer field within [min, max]; throws a 400 naming the range otherwise.
std::optional<int64_t> integer_in(const nlohmann::json& body, const std::string& name, int64_t min, int64_t max);
// A number field within [min, max] (NaN refused).
std::optional<double> number_in(const nlohmann::json& body, const std::string& name, double min, double max);

}  // namespace tessera::serve
