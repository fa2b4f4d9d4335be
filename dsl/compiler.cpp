#include "dsl/compiler.h"

#include "dsl/diagnostics.h"
#include "dsl/file_coverage.h"
#include "dsl/forward.h"
#include "dsl/hparams.h"
#include "dsl/lowering.h"
#include "dsl/rope_head_check.h"
#include "dsl/weight_binding.h"

namespace tessera::dsl {

namespace {

// The output must be one row of logits per wanted output: [Outputs, n_vocab].
void check_logits(const ModelDef& model, const ForwardCompiler& forward, const Graph& graph) {
  const GraphTensor& logits = graph.tensor(forward.variable("logits"));
  if (logits.shape.size() != 2 || logits.shape[0] != sym(SymDim::Outputs)) {
    const Statement& s = forward.last_assignment("logits");
    fail_at(model.source, s.value->loc,
            "'logits' must be [Outputs, n_vocab], but is " + shape_to_string(logits.shape) +
                "; select the rows with outputs(x) before the output projection");
  }
}

}  // namespace

CompiledModel compile_model(const ModelDef& model, const CompileOptions& options) {
  CompiledModel out;
  out.name = model.name;
  out.source_file = model.source.file_name;
  out.kv_dtype = options.kv_dtype;

  const HParamValues hparams = evaluate_hparams(model, options);
  const WeightBindings weights = bind_weights(model, hparams, options);
  GraphBuilder builder(out.graph, model.source, options.kv_dtype);
  ForwardCompiler forward(model, hparams, weights, builder, options);
  forward.run();
  check_logits(model, forward, out.graph);
  check_rope_heads(out.graph, model.source);

  const int logits = forward.variable("logits");
  out.graph.set_logits(logits);
  out.arch = hparams.arch;
  out.hparams = hparams.list;
  out.n_vocab = out.graph.tensor(logits).shape[1];
  out.n_layers = builder.attention_layers();
  const auto n_ctx = hparams.values.find("n_ctx");
  if (n_ctx != hparams.values.end() && n_ctx->second.is_integer) out.n_ctx = n_ctx->second.integer;
  out.node_layers = builder.node_layers();
  if (options.weights) out.coverage = file_coverage(*options.weights, out.graph, hparams);
  return out;
}

}  // namespace tessera::dsl
