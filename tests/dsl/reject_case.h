// Table-driven reject tests: a model text, optional --set overrides, and the exact
// diagnostic that parsing and compiling it (without a weights file, or with one) must produce.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "dsl/model_definition.h"

namespace tessera::test {

struct RejectCase {
  const char* name;  // the test's name
  const char* source;
  const char* diagnostic;  // DslError::what(), in full
  std::map<std::string, std::string> overrides = {};
};

// gtest prints a failing case by its name (not as raw bytes).
inline void PrintTo(const RejectCase& c, std::ostream* out) { *out << c.name; }

// The full diagnostic of parsing and compiling `c` as "bad.tsr" (against `weights`
// when given), or "accepted".
inline std::string diagnose(const RejectCase& c, const WeightFile* weights = nullptr) {
  try {
    const auto model = dsl::parse_model(c.source, "bad.tsr");
    dsl::CompileOptions options;
    options.weights = weights;
    options.overrides = c.overrides;
    dsl::compile_model(*model, options);
    return "accepted";
  } catch (const dsl::DslError& e) {
    return e.what();
  }
}

inline std::string case_name(const ::testing::TestParamInfo<RejectCase>& info) { return info.param.name; }

}  // namespace tessera::test
