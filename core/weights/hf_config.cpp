// config.json flattening; see hf_config.h.
#include "core/weights/hf_config.h"

#include "core/util/error.h"
#include "core/weights/json_text.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

MetaValue array_element(const Json& item);

MetaValue scalar_or_array(const Json& value) {
  switch (value.type()) {
    case Json::value_t::boolean:
      return {.value = value.get<bool>()};
    case Json::value_t::number_integer:
      return {.value = value.get<int64_t>()};
    case Json::value_t::number_unsigned: {
      const auto u = value.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return {.value = static_cast<int64_t>(u)};
      return {.value = u};
    }
    case Json::value_t::number_float:
      return {.value = value.get<double>()};
    case Json::value_t::string:
      return {.value = value.get<std::string>()};
    default:
      break;
  }
  MetaArray items;  // only arrays reach here: the caller handles objects and null
  items.reserve(value.size());
  for (const Json& item : value) items.push_back(array_element(item));
  return {.value = std::move(items)};
}

MetaValue array_element(const Json& item) {
  if (item.is_object() || item.is_null()) return {.value = item.dump()};
  return scalar_or_array(item);
}

void flatten_into(const Json& object, const std::string& prefix, const std::string& label,
                  std::map<std::string, MetaValue>* out, std::set<std::string>* null_keys) {
  for (const auto& [key, value] : object.items()) {
    const std::string flat_key = prefix.empty() ? key : prefix + "." + key;
    if (value.is_null()) {
      if (null_keys) null_keys->insert(flat_key);
      continue;
    }
    if (value.is_object()) {
      flatten_into(value, flat_key, label, out, null_keys);
    } else if (!out->emplace(flat_key, scalar_or_array(value)).second) {
      throw Error(label + ": two entries flatten to the key '" + flat_key + "'");
    }
  }
}

}  // namespace

std::map<std::string, MetaValue> flatten_config_json(std::string_view text,
                                                     const std::string& label,
                                                     std::set<std::string>* null_keys) {
  const Json config = parse_json_text(text, label, "");
  if (!config.is_object()) {
    throw Error(label + ": holds " + json_kind(config) + ", not a JSON object");
  }
  std::map<std::string, MetaValue> metadata;
  flatten_into(config, "", label, &metadata, null_keys);
  return metadata;
}

}  // namespace tessera
