// tessera check: parses and compiles a model definition (against a weights file when
// one is given) and prints its summary; a mistake prints file:line:col and a caret.
#include <cstdio>

#include "core/graph/graph_dot.h"
#include "core/util/format_bytes.h"
#include "core/weights/atomic_output_file.h"
#include "core/weights/weight_check.h"
#include "core/weights/weight_file.h"
#include "dsl/compiler.h"
#include "dsl/model_definition.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/coverage_report.h"
#include "tools/tessera/runtime_options.h"

namespace tessera::cli {

namespace {

std::string op_list(const std::vector<PlacementSummary::OpCount>& ops) {
  std::string out;
  for (const PlacementSummary::OpCount& m : ops) {
    out += "\n    " + m.op + " " + std::string(dtype_name(m.dtype)) + ": " +
           std::to_string(m.nodes) + " node(s)" + (m.follows_cache ? " (beside their KV cache)" : "");
  }
  return out;
}

void write_dot(const CompiledModel& model, const std::string& path) {
  AtomicOutputFile out(path);
  const std::string dot = graph_to_dot(model.graph, model.name, model.node_layers);
  out.write(dot.data(), dot.size());
  out.commit();
  std::fprintf(stderr, "tessera: wrote the graph to %s (%zu nodes)\n", path.c_str(), model.graph.nodes().size());
}

// Where each op of the model runs on the chosen backend (and its fallback).
void print_placement(const Runtime& rt) {
  const auto executor = place_graph(rt.model->compiled().graph, rt.model->weights(), rt.backend, KvCacheShape{16, 1});
  const PlacementSummary p = executor->placement();
  std::printf("placement on %s:\n", p.devices[0].c_str());
  for (size_t d = 0; d < p.devices.size(); ++d) {
    std::printf("  %s%s: %lld node(s)%s\n", p.devices[d].c_str(), d == 0 ? "" : " (fallback)",
                static_cast<long long>(p.nodes[d]), op_list(p.ops[d]).c_str());
  }
  std::printf("  %lld segment(s) a step; %s copied between the devices per token\n",
              static_cast<long long>(p.segments), format_bytes(static_cast<double>(p.bytes_moved_per_token)).c_str());
}

}  // namespace

int run_check(const Args& args) {
  RuntimeOptions rto;
  std::string dot_path;
  int64_t ctx = 0, batch = 1;
  bool no_check_weights = false;
  OptionTable t("check", "[FILE.tsr] [-m WEIGHTS] [--set NAME=VALUE ...] [--backend NAME]",
                "Validates a model definition and prints its summary: parameters, FLOPs per token,\n"
                "KV-cache bytes per token. Hyper-parameters read from metadata need -m or --set.\n"
                "With --backend (and -m), also prints which ops run on that backend and which on\n"
                "its fallback, and the bytes copied between them per token; without FILE.tsr the\n"
                "definition is chosen by the weights' general.architecture. With -m, also says how\n"
                "many of the file's tensors the definition reads, and warns about the tensors and\n"
                "the metadata that change the computation it leaves unread (--strict: an error),\n"
                "and reads every weight once: a NaN or an infinity is an error naming the tensor.");
  t.text("-m, --model", "FILE", "weights file to resolve metadata and check tensor shapes against", &rto.model)
      .text("--tokenizer", "FILE", "llama2.c tokenizer file, with a llama2.c checkpoint", &rto.tokenizer)
      .texts("--set", "NAME=VALUE", "override a hyper-parameter", &rto.sets)
      .text("--kv-dtype", "TYPE", "KV cache element type for the summary: f32, f16 or int8", &rto.kv_dtype)
      .integer("--ctx", "N", "context length the FLOPs and KV bytes are stated at (default: n_ctx)", &ctx, 1,
               int64_t{1} << 40)
      .integer("--batch", "N", "sequences the KV bytes are stated for", &batch, 1, int64_t{1} << 20)
      .text("--dot", "FILE", "also write the graph for Graphviz (dot -Tsvg FILE)", &dot_path)
      .text("-b, --backend", "NAME[:N]", "print where each op runs on this backend (needs -m)", &rto.backend)
      .text("--plugin-dir", "DIR", "extra directory searched first for plugins (backends, and those "
            "declaring the ops a definition calls)", &rto.plugin_dir)
      .text("--fallback", "NAME[:N]", "backend for the ops the chosen one has no kernel for", &rto.fallback)
      .flag("--no-fallback", "refuse ops the backend has no kernel for", &rto.no_fallback)
      .flag("--strict", "refuse a definition that leaves tensors of the weights file unused, or metadata that "
            "changes the computation unread, instead of warning", &rto.strict)
      .flag("--no-check-weights", "do not read the weights for NaN and infinities", &no_check_weights);
  rto.backend.clear();
  const auto positional = t.parse(args);
  if (t.help_requested()) {
    std::printf("%s", t.help_text().c_str());
    return 0;
  }
  const bool placement = !rto.backend.empty();
  if (positional.size() > 1 || (positional.empty() && rto.model.empty())) {
    throw UsageError{"expects a model definition file, -m WEIGHTS, or both (see --help)"};
  }
  if (placement && rto.model.empty()) throw UsageError{"--backend needs the weights: pass -m FILE"};
  const DType kv = parse_kv_dtype(rto.kv_dtype);

  rto.check_weights = !no_check_weights;
  if (placement || positional.empty()) {
    // The definition the weights' architecture names (or FILE.tsr), loaded as a run would.
    if (!positional.empty()) rto.arch = positional[0];
    if (!placement) rto.backend = "cpu";
    const Runtime rt = load_runtime(rto);
    std::printf("%s", dsl::format_summary(rt.model->compiled(), dsl::summarize(rt.model->compiled(), ctx, batch)).c_str());
    if (placement) print_placement(rt);
    if (!dot_path.empty()) write_dot(rt.model->compiled(), dot_path);
    return 0;
  }
  std::unique_ptr<WeightFile> file;
  if (!rto.model.empty()) file = open_weight_file(rto.model, rto.tokenizer);
  const auto def = dsl::parse_model_file(positional[0]);
  dsl::CompileOptions options;
  // Calls to plugins' ops are checked against the declarations of the plugins found.
  CustomOpCatalog plugin_ops;
  if (def->calls_plugin_ops()) {
    const PluginLoadPolicy declaring_ops{.probe_first = true, .wanted = [](const PluginProbe& p) { return !p.ops.empty(); }};
    plugin_ops = PluginHost(PluginHost::default_search_dirs(rto.plugin_dir), declaring_ops).op_catalog();
  }
  options.plugin_ops = &plugin_ops;
  options.weights = file.get();
  options.overrides = parse_overrides(rto.sets);
  options.kv_dtype = kv;
  const CompiledModel model = dsl::compile_model(*def, options);
  if (file) report_coverage(model, rto.model, rto.strict);
  if (file && rto.check_weights) check_weights_finite(*file);
  std::printf("%s", dsl::format_summary(model, dsl::summarize(model, ctx, batch)).c_str());
  if (!dot_path.empty()) write_dot(model, dot_path);
  return 0;
}

}  // namespace tessera::cli
