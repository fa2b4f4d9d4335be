#include "tools/tessera/coverage_report.h"

#include <cstdio>

#include "core/util/error.h"
#include "dsl/file_coverage.h"

namespace tessera::cli {

void report_coverage(const CompiledModel& model, const std::string& weights, bool strict) {
  const std::vector<std::string> problems = dsl::coverage_problems(model, weights);
  if (problems.empty()) return;
  if (strict) {
    std::string message;
    for (const std::string& p : problems) message += (message.empty() ? "" : "; ") + p;
    throw Error(message + " (--strict)");
  }
  for (const std::string& p : problems) std::fprintf(stderr, "tessera: warning: %s\n", p.c_str());
}

}  // namespace tessera::cli
