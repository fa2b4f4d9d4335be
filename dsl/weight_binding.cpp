#include "dsl/weight_binding.h"

#include <algorithm>
#include <cctype>

#include "core/util/error.h"
#include "dsl/diagnostics.h"

namespace tessera::dsl {

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    switch (static_cast<SymDim>(shape[i])) {
      case SymDim::Tokens: s += "Tokens"; break;
      case SymDim::Outputs: s += "Outputs"; break;
      case SymDim::Seqs: s += "Seqs"; break;
      case SymDim::MaxBlocksPerSeq: s += "MaxBlocksPerSeq"; break;
      case SymDim::CacheBlocks: s += "CacheBlocks"; break;
      case SymDim::BlockSize: s += "BlockSize"; break;
      default: s += std::to_string(shape[i]);
    }
  }
  return s + "]";
}

const BoundWeight& WeightBindings::get(const WeightDecl& decl, int64_t layer, const Expr& at) const {
  if (decl.group < 0) return bound_.at({decl.name, -1});
  const auto [begin, end] = group_ranges_[static_cast<size_t>(decl.group)];
  if (layer < begin || layer >= end) {
    fail_at(model_->source, at.loc,
            "index " + std::to_string(layer) + " of '" + decl.name + "' is out of range: it is declared for " +
                model_->layer_groups[static_cast<size_t>(decl.group)].range.var + " in " +
                std::to_string(begin) + " .. " + std::to_string(end));
  }
  return bound_.at({decl.name, layer});
}

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// The name with each run of digits replaced by '#': "blk.#.attn_q.weight".
std::string without_numbers(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) {
      out += name[i];
    } else if (i == 0 || !std::isdigit(static_cast<unsigned char>(name[i - 1]))) {
      out += '#';
    }
  }
  return out;
}

// File tensors that may be what a missing name meant; the same tensor of another
// layer is not (the file lacks this layer's, the name is right).
std::vector<std::string> hint_candidates(const std::string& missing, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  const std::string pattern = without_numbers(missing);
  for (const std::string& n : names) {
    if (without_numbers(n) != pattern) out.push_back(n);
  }
  return out;
}

class Binder {
 public:
  Binder(const ModelDef& model, const HParamValues& hparams, const CompileOptions& options,
         std::map<std::pair<std::string, int64_t>, BoundWeight>& bound)
      : model_(model), options_(options), scope_(hparams), bound_(bound) {
    if (options.weights) {
      for (const TensorView& t : options.weights->tensors()) {
        file_tensors_.emplace(t.name, &t);
        file_names_.push_back(t.name);
      }
    }
  }

  std::vector<std::pair<int64_t, int64_t>> evaluate_group_ranges() {
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const LayerGroup& g : model_.layer_groups) {
      ranges.emplace_back(integer(*g.range.begin, "the first index of a layer group"),
                          integer(*g.range.end, "the end index of a layer group"));
    }
    return ranges;
  }

  void bind(const WeightDecl& w, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
    if (w.group < 0) {
      bind_one(w, -1);
      return;
    }
    const LayerGroup& g = model_.layer_groups[static_cast<size_t>(w.group)];
    const auto [begin, end] = ranges[static_cast<size_t>(w.group)];
    for (int64_t layer = begin; layer < end; ++layer) {
      scope_.push_loop_var(g.range.var, layer);
      bind_one(w, layer);
      scope_.pop_loop_var();
    }
  }

 private:
  int64_t integer(const Expr& e, std::string_view what) const {
    return require_integer(eval_scalar(e, scope_, model_.source), e, model_.source, what);
  }

  // `absent`: an optional weight the model goes without, whose dimensions may be 0
  // (the experts of a dense checkpoint of a family that also has MoE ones).
  Shape declared_shape(const WeightDecl& w, bool absent = false) const {
    Shape shape;
    for (const ExprPtr& d : w.dims) {
      const int64_t n = integer(*d, "a dimension of '" + w.name + "'");
      if (n < 0 || (n == 0 && !absent)) {
        fail_at(model_.source, d->loc,
                "a dimension of '" + w.name + "' must be positive, but '" +
                    std::string(model_.source.slice(d->begin, d->end)) + "' is " + std::to_string(n));
      }
      shape.push_back(n);
    }
    return shape;
  }

  // "(n_heads * head_dim, d_model)": the dims as written.
  std::string dims_text(const WeightDecl& w) const {
    std::string s = "(";
    for (size_t i = 0; i < w.dims.size(); ++i) {
      s += (i ? ", " : "") + std::string(model_.source.slice(w.dims[i]->begin, w.dims[i]->end));
    }
    return s + ")";
  }

  void bind_one(const WeightDecl& w, int64_t layer) {
    BoundWeight b;
    b.graph_name = layer < 0 ? w.name : "blk." + std::to_string(layer) + "." + w.name;
    const bool hf = is_hf_folder(options_);
    const bool optional = w.fallback == kAbsentFallback;
    // An optional weight is left out without a file (tessera init writes what a model
    // needs) and in a format that has no name for it.
    if (optional && (!options_.weights || (hf && w.hf_name.empty()))) {
      b.absent = true;
      b.gguf_name = scope_.expand(w.file_name);
      b.hf_name = w.hf_name.empty() ? "" : scope_.expand(w.hf_name);
      b.file_name = b.gguf_name;
      b.shape = declared_shape(w, true);
      // Without a file the forward section may still use it (tessera init writes it):
      // its rows must then hold whole blocks as any other's.
      if (!options_.weights && b.shape.size() >= 2) {
        b.dtype = options_.weight_dtype;
        check_blocks(w, b);
        b.dtype = DType::F32;
      }
      bound_[{w.name, layer}] = std::move(b);
      return;
    }
    if (hf && w.hf_name.empty()) {
      fail_at(model_.source, w.file_name_loc,
              "weight " + quoted(w.name) + " has no hf: name, so the model cannot read the Hugging Face folder " +
                  options_.weights->path() + "; add , hf: \"name\" after its GGUF name");
    }
    b.gguf_name = scope_.expand(w.file_name);
    b.hf_name = w.hf_name.empty() ? "" : scope_.expand(w.hf_name);
    b.file_name = hf ? b.hf_name : b.gguf_name;
    b.transposed = hf && w.hf_transposed;
    b.shape = declared_shape(w, optional);
    if (hf && options_.weights && b.file_name.find("{*}") != std::string::npos) stack_parts(w, b);
    if (!options_.weights) {
      b.dtype = b.file_dtype = b.shape.size() >= 2 ? options_.weight_dtype : DType::F32;
      check_blocks(w, b);
    } else if (const auto it = file_tensors_.find(b.file_name); it != file_tensors_.end()) {
      if (optional) b.shape = declared_shape(w);  // present: every dimension positive
      Shape stored = b.shape;
      if (b.transposed) std::reverse(stored.begin(), stored.end());
      if (it->second->shape != stored) {
        fail_at(model_.source, hf ? w.hf_name_loc : w.dims_loc,
                "weight " + quoted(b.file_name) + " has shape " + shape_to_string(it->second->shape) +
                    " in the file but the model declares " + shape_to_string(stored) + " " + dims_text(w) +
                    (b.transposed ? " transposed" : ""));
      }
      if (b.transposed && stored.size() != 2) {
        fail_at(model_.source, w.hf_name_loc, "only a matrix can be transposed, but " + quoted(b.file_name) +
                                                   " has " + std::to_string(stored.size()) + " dimensions");
      }
      b.dtype = b.file_dtype = it->second->dtype;
      // Vector operands (norm gains, biases) are f32 in every kernel contract; files
      // in f16/bf16 (Hugging Face checkpoints) store them narrow.
      if (b.shape.size() == 1 && (b.dtype == DType::F16 || b.dtype == DType::BF16)) b.dtype = DType::F32;
    } else if (w.fallback == kAbsentFallback) {
      b.absent = true;
    } else if (!w.fallback.empty()) {
      b = fall_back(w, layer, std::move(b));
    } else {
      fail_at(model_.source, hf ? w.hf_name_loc : w.file_name_loc,
              "weight " + quoted(b.file_name) + " is not in the weights file " +
                  options_.weights->path() +
                  did_you_mean(b.file_name, hint_candidates(b.file_name, file_names_)));
    }
    bound_[{w.name, layer}] = std::move(b);
  }

  // A weight whose hf: name has {*}: the folder's tensors for each index of its first
  // dimension, stacked into one tensor named as the weight (the experts of a MoE
  // layer). An optional weight whose first part is missing is absent.
  void stack_parts(const WeightDecl& w, const BoundWeight& b) {
    const std::string first = std::string(b.file_name).replace(b.file_name.find("{*}"), 3, "0");
    if (w.fallback == kAbsentFallback && !file_tensors_.count(first)) return;
    try {
      file_tensors_[b.file_name] = &options_.weights->stack_tensors(b.file_name, b.shape.empty() ? 0 : b.shape[0]);
    } catch (const Error& e) {
      fail_at(model_.source, w.hf_name_loc, e.what());
    }
  }

  // The file lacks the declared tensor: read the fallback's instead (tied weights).
  BoundWeight fall_back(const WeightDecl& w, int64_t layer, BoundWeight declared) const {
    const WeightDecl& target = *model_.find_weight(w.fallback);
    const auto it = bound_.find({target.name, target.group < 0 ? -1 : layer});
    if (it == bound_.end()) {
      fail_at(model_.source, w.fallback_loc,
              "the weights file has no " + quoted(declared.file_name) + ", and the fallback " +
                  quoted(w.fallback) + " has no layer " + std::to_string(layer));
    }
    if (it->second.shape != declared.shape) {
      fail_at(model_.source, w.fallback_loc,
              "the weights file has no " + quoted(declared.file_name) + ", and the fallback " +
                  quoted(w.fallback) + " has shape " + shape_to_string(it->second.shape) +
                  " but the model declares " + shape_to_string(declared.shape) + " " + dims_text(w));
    }
    BoundWeight b = it->second;
    b.graph_name = std::move(declared.graph_name);
    return b;
  }

  // Quantised rows must hold whole blocks.
  void check_blocks(const WeightDecl& w, const BoundWeight& b) const {
    const int64_t block = dtype_block_elems(b.dtype);
    if (b.shape.back() % block != 0) {
      fail_at(model_.source, w.dims_loc,
              "weight " + quoted(b.file_name) + " has rows of " + std::to_string(b.shape.back()) +
                  " elements, not a whole number of " + std::string(dtype_name(b.dtype)) + " blocks of " +
                  std::to_string(block));
    }
  }

  const ModelDef& model_;
  const CompileOptions& options_;
  ValueScope scope_;
  std::map<std::pair<std::string, int64_t>, BoundWeight>& bound_;
  std::map<std::string, const TensorView*> file_tensors_;
  std::vector<std::string> file_names_;
};

}  // namespace

WeightBindings bind_weights(const ModelDef& model, const HParamValues& hparams,
                            const CompileOptions& options) {
  WeightBindings out;
  out.model_ = &model;
  Binder binder(model, hparams, options, out.bound_);
  out.group_ranges_ = binder.evaluate_group_ranges();
  for (const WeightDecl& w : model.weights) binder.bind(w, out.group_ranges_);
  return out;
}

}  // namespace tessera::dsl

