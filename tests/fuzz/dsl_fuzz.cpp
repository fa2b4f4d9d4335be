// Fuzzes the model DSL's front end: the input is a .tsr definition, parsed, checked and
// compiled without a weights file (the defaults of its meta()/shape() calls stand in),
// as `tessera check FILE` does. A broken definition must be a DslError (a tessera::Error)
// pointing at the problem.
#include <cstdint>
#include <string_view>

#include "core/util/error.h"
#include "dsl/model_definition.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const auto model = tessera::dsl::parse_model(source, "fuzz.tsr");
    (void)tessera::dsl::compile_model(*model, tessera::dsl::CompileOptions{});
  } catch (const tessera::Error&) {
    // A definition refused with its diagnostic: the expected outcome.
  }
  return 0;
}
