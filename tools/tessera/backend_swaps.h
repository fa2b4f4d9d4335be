// --swap-at N:BACKEND[,N:BACKEND...]: a generation moves to another backend once N
// tokens have been generated (over all prompts), for demos and tests of Engine::migrate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/plugin/plugin_host.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

struct SwapPoint {
  int64_t after_tokens = 0;
  std::string backend;  // "vulkan", "cpu:0", ...
};

// Parses the --swap-at list; throws UsageError for a malformed entry or counts that
// do not increase.
std::vector<SwapPoint> parse_swap_points(const std::string& text);

// Opens every backend the plan names up front (a name that does not open is an
// error before anything runs), then, called before each engine step, moves the
// engine when the next point is due (logging the move on stderr when verbose). A
// move the target refuses is a warning: the run goes on where it was.
class BackendSwaps {
 public:
  // `current` is the backend the engine starts on, opened as `current_spec`; it must
  // outlive this object. `options`: how the KV cache is sized and typed on each target.
  // Targets lacking a kernel of `graph` get the fallback `runtime` names.
  BackendSwaps(PluginHost& host, std::vector<SwapPoint> points, const std::string& current_spec,
               const Backend& current, const Graph& graph, const RuntimeOptions& runtime,
               MigrationOptions options, bool verbose);

  void before_step(Engine& engine);

 private:
  std::vector<SwapPoint> points_;
  size_t next_ = 0;
  std::string current_spec_;
  std::map<std::string, Backend> opened_;  // by spec, the starting one excluded
  const Backend& first_;
  std::string first_spec_;
  MigrationOptions options_;
  bool verbose_;
};

}  // namespace tessera::cli
