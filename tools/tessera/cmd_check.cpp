// tessera check: parses and compiles a model definition (against a weights file when
// one is given) and prints its summary; a mistake prints file:line:col and a caret.
#include <cstdio>

#include "core/graph/graph_dot.h"
#include "core/weights/atomic_output_file.h"
#include "core/weights/weight_file.h"
#include "dsl/compiler.h"
#include "dsl/model_definition.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

int run_check(const Args& args) {
  std::string weights, tokenizer, kv_dtype = "f32", dot_path;
  std::vector<std::string> sets;
  int64_t ctx = 0, batch = 1;
  OptionTable t("check", "FILE.tsr [-m WEIGHTS] [--set NAME=VALUE ...]",
                "Validates a model definition and prints its summary: parameters, FLOPs per token,\n"
                "KV-cache bytes per token. Hyper-parameters read from metadata need -m or --set.");
  t.text("-m, --model", "FILE", "weights file to resolve metadata and check tensor shapes against", &weights)
      .text("--tokenizer", "FILE", "llama2.c tokenizer file, with a llama2.c checkpoint", &tokenizer)
      .texts("--set", "NAME=VALUE", "override a hyper-parameter", &sets)
      .text("--kv-dtype", "TYPE", "KV cache element type for the summary: f32, f16 or int8", &kv_dtype)
      .integer("--ctx", "N", "context length the FLOPs and KV bytes are stated at (default: n_ctx)", &ctx, 1,
               int64_t{1} << 40)
      .integer("--batch", "N", "sequences the KV bytes are stated for", &batch, 1, int64_t{1} << 20)
      .text("--dot", "FILE", "also write the graph for Graphviz (dot -Tsvg FILE)", &dot_path);
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  if (positional.size() != 1) throw UsageError{"expects exactly one model definition file (see --help)"};
  const DType kv = parse_kv_dtype(kv_dtype);

  std::unique_ptr<WeightFile> file;
  if (!weights.empty()) file = open_weight_file(weights, tokenizer);
  const auto def = dsl::parse_model_file(positional[0]);
  dsl::CompileOptions options;
  options.weights = file.get();
  options.overrides = parse_overrides(sets);
  options.kv_dtype = kv;
  const dsl::CompiledModel model = dsl::compile_model(*def, options);
  std::printf("%s", dsl::format_summary(model, dsl::summarize(model, ctx, batch)).c_str());
  if (!dot_path.empty()) {
    AtomicOutputFile out(dot_path);
    const std::string dot = graph_to_dot(model.graph, model.name, model.node_layers);
    out.write(dot.data(), dot.size());
    out.commit();
    std::fprintf(stderr, "tessera: wrote the graph to %s (%zu nodes)\n", dot_path.c_str(), model.graph.nodes().size());
  }
  return 0;
}

}  // namespace tessera::cli
