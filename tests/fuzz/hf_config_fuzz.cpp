// Fuzzes the reading of a Hugging Face config.json: the input is the file's text. Text
// that is not a JSON object, or flattens to clashing keys, must be a tessera::Error.
#include <cstdint>
#include <string_view>

#include "core/util/error.h"
#include "core/weights/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& [key, value] : tessera::flatten_config_json(text, "config.json")) {
      (void)value.to_display();
      if (value.is_number()) (void)value.as_float();
    }
  } catch (const tessera::Error&) {
    // Invalid JSON, or JSON that is no config, with the reason: the expected outcome.
  }
  return 0;
}
