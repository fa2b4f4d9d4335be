#include "dsl/summary.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "core/tensor/dtype.h"
#include "core/util/format_bytes.h"
#include "dsl/file_coverage.h"

namespace tessera::dsl {

ModelSummary summarize(const CompiledModel& model, int64_t context_length, int64_t batch) {
  ModelSummary s;
  s.context_length = context_length > 0 ? context_length : model.n_ctx;
  const Graph& g = model.graph;
  for (const GraphTensor& t : g.tensors()) {
    if (t.role == TensorRole::Weight) {
      int64_t elements = 1;
      for (int64_t d : t.shape) elements *= d;
      s.n_params += elements;
      s.n_weight_tensors += 1;
      s.weight_bytes += elements / t.shape.back() * dtype_row_bytes(t.dtype, t.shape.back());
    }
  }
  s.kv_bytes_per_token = static_cast<int64_t>(g.kv_bytes_per_token());
  s.batch = batch;
  s.kv_bytes_total = s.kv_bytes_per_token * s.context_length * batch;
  std::map<int, std::map<OpCountKey, int>> per_layer;  // layer -> nodes per op
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const GraphNode& n = g.nodes()[i];
    const OpCountKey key{n.op, std::string(n.op_ref().custom)};
    s.op_counts[key] += 1;
    if (model.node_layers[i] >= 0) per_layer[model.node_layers[i]][key] += 1;
    if (n.op == OpKind::MatMul) {
      const Shape& w = g.tensor(n.inputs[1]).shape;  // [M, K]
      s.matmul_flops_per_token += 2 * w[0] * w[1];
    } else if (n.op == OpKind::MoeMatMul) {
      const Shape& w = g.tensor(n.inputs[1]).shape;  // [E, M, K]: k of the E per token
      const int64_t k = g.tensor(n.inputs[2]).shape[1] / 2;
      s.matmul_flops_per_token += 2 * k * w[1] * w[2];
    } else if (n.op == OpKind::Attention) {
      const auto& p = std::get<AttentionParams>(n.params);
      // q.k and the weighted sum of v, each a multiply-add per key and head dim.
      s.attention_flops_per_token += 4 * int64_t{p.n_heads} * p.head_dim * s.context_length;
    }
  }
  if (!per_layer.empty()) {  // ordered by layer: the first is the lowest
    s.first_layer = per_layer.begin()->first;
    s.ops_per_layer = per_layer.begin()->second;
  }
  for (const auto& layer : per_layer) {  // not a structured binding: clang 14 cannot capture one
    const std::map<OpCountKey, int>& ops = layer.second;
    auto same = std::find_if(s.layer_groups.begin(), s.layer_groups.end(),
                             [&](const ModelSummary::LayerGroup& group) { return group.ops == ops; });
    if (same == s.layer_groups.end()) same = s.layer_groups.insert(s.layer_groups.end(), {{}, ops});
    same->layers.push_back(layer.first);
  }
  s.n_nodes = static_cast<int64_t>(g.nodes().size());
  s.flops_per_token = s.matmul_flops_per_token + s.attention_flops_per_token;
  return s;
}

namespace {

// 1234567 -> "1,234,567".
std::string grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string bytes(int64_t n) { return format_bytes(static_cast<double>(n), 2); }

// {0, 2, 3, 4, 7} -> "layers 0, 2-4, 7"; {5} -> "layer 5".
std::string layer_ranges(const std::vector<int>& layers) {
  std::string out = layers.size() == 1 ? "layer " : "layers ";
  for (size_t i = 0; i < layers.size();) {
    size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    out += (i > 0 ? ", " : "") + std::to_string(layers[i]) + (j > i ? "-" + std::to_string(layers[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string op_list(const std::map<OpCountKey, int>& counts) {
  std::string s;
  for (const auto& [op, n] : counts) {
    s += (s.empty() ? "" : ", ") + op_ref_name({op.first, op.second}) + " " + std::to_string(n);
  }
  return s;
}

int count(const std::map<OpCountKey, int>& counts) {
  int n = 0;
  for (const auto& [op, c] : counts) n += c;
  return n;
}

// Floats print with float precision: files store them as f32 (1e-5, not 9.99999974e-06).
std::string hparam_value(const HParam& h) {
  if (h.is_integer) return std::to_string(static_cast<int64_t>(h.value));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(h.value));
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string hparam_line(const HParam& h, size_t width) {
  std::string line = "  " + h.name + std::string(width - h.name.size() + 2, ' ') + hparam_value(h);
  if (!h.meta_key.empty()) line += std::string(line.size() < 30 ? 30 - line.size() : 1, ' ') + h.meta_key;
  return line + "\n";
}

// What of the weights file the definition reads: "tensors: 47 of 48 in the file used;
// not used: ..." and the architectural metadata it leaves unread, if any.
std::string coverage_lines(const FileCoverage& c) {
  constexpr size_t kCap = 32;
  std::string out = "tensors: " + grouped(c.used_tensors) + " of " + grouped(c.file_tensors) + " in the file used";
  if (!c.ignored_buffers.empty()) {
    out += " (" + grouped(static_cast<int64_t>(c.ignored_buffers.size())) + " non-parameter buffer(s) skipped)";
  }
  if (!c.unused_tensors.empty()) out += "; not used: " + capped_list(c.unused_tensors, kCap);
  out += "\n";
  if (!c.unread_keys.empty()) {
    std::vector<std::string> keys;
    for (const FileCoverage::Key& k : c.unread_keys) keys.push_back(k.name + " = " + k.value);
    out += "metadata not read: " + capped_list(keys, kCap) + "\n";
  }
  return out;
}

}  // namespace

std::string format_summary(const CompiledModel& model, const ModelSummary& s) {
  std::string out = "model " + model.name + " (" + model.source_file + "), arch " + model.arch + "\n";
  size_t width = 0;
  for (const HParam& h : model.hparams) width = std::max(width, h.name.size());
  out += "hyper-parameters:\n";
  for (const HParam& h : model.hparams) out += hparam_line(h, width);
  out += "weights: " + grouped(s.n_weight_tensors) + " tensors, " + grouped(s.n_params) +
         " parameters, " + bytes(s.weight_bytes) + "\n";
  if (model.coverage.checked) out += coverage_lines(model.coverage);
  out += "graph: " + grouped(s.n_nodes) + " nodes, " + std::to_string(model.n_layers) +
         " attention layers (" + op_list(s.op_counts) + ")\n";
  if (s.layer_groups.size() == 1) {
    out += "per layer: " + std::to_string(count(s.ops_per_layer)) + " nodes (" + op_list(s.ops_per_layer) + ")\n";
  } else if (s.layer_groups.size() > 1) {
    out += "per layer, " + std::to_string(s.layer_groups.size()) + " kinds:\n";
    for (const ModelSummary::LayerGroup& group : s.layer_groups) {
      out += "  " + layer_ranges(group.layers) + ": " + std::to_string(count(group.ops)) + " nodes (" +
             op_list(group.ops) + ")\n";
    }
  }
  const int64_t attention_per_position =
      s.context_length > 0 ? s.attention_flops_per_token / s.context_length : 0;
  out += "FLOPs per token: " + grouped(s.matmul_flops_per_token) + " in matmuls + " +
         grouped(attention_per_position) + " x context in attention = " + grouped(s.flops_per_token) +
         " at context " + grouped(s.context_length) + "\n";
  out += "KV cache: " + grouped(s.kv_bytes_per_token) + " bytes per token (" +
         std::string(dtype_name(model.kv_dtype)) + "), " +
         bytes(s.kv_bytes_per_token * s.context_length) + " at context " + grouped(s.context_length);
  if (s.batch > 1) out += ", " + bytes(s.kv_bytes_total) + " for " + grouped(s.batch) + " sequences";
  out += "\n";
  return out;
}

}  // namespace tessera::dsl
