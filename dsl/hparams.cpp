#include "dsl/hparams.h"

#include <charconv>
#include <limits>

#include "dsl/diagnostics.h"
#include "dsl/name_template.h"
#include "dsl/op_table.h"
#include "dsl/semantic_expr.h"

namespace tessera::dsl {

std::optional<Scalar> ValueScope::find(std::string_view name) const {
  for (auto it = loop_vars_.rbegin(); it != loop_vars_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  const auto it = hparams_.values.find(name);
  if (it == hparams_.values.end()) return std::nullopt;
  return it->second;
}

std::string ValueScope::expand(std::string_view text) const {
  return expand_placeholders(text, [this](std::string_view name) -> std::optional<std::string> {
    if (name == "arch") return hparams_.arch;
    if (std::optional<Scalar> v = find(name)) return v->to_string();
    return std::nullopt;
  });
}

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// "64" -> integer, "1e-5" / "10000.0" -> float; anything else is refused.
Scalar parse_override(const ModelDef& model, const std::string& name, const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  int64_t i = 0;
  if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) {
    return Scalar::of_integer(i);
  }
  double f = 0;
  if (auto r = std::from_chars(first, last, f); r.ec == std::errc() && r.ptr == last) {
    return Scalar::of_real(f);
  }
  throw tessera::Error("--set " + name + "=" + text + ": " + quoted(text) +
                       " is not a number (model " + model.source.file_name + ")");
}

std::map<std::string, Scalar> parse_overrides(const ModelDef& model, const CompileOptions& options) {
  std::vector<std::string> names;
  for (const HParamDecl& h : model.hparams) names.push_back(h.name);
  std::map<std::string, Scalar> out;
  for (const auto& [name, text] : options.overrides) {
    if (!model.find_hparam(name)) {
      throw tessera::Error("--set " + name + "=" + text + ": the model " + model.source.file_name +
                           " has no hyper-parameter " + quoted(name) + did_you_mean(name, names));
    }
    out.emplace(name, parse_override(model, name, text));
  }
  return out;
}

// A number from the file's metadata (booleans count as 0/1).
Scalar meta_number(const MetaValue& m, const std::string& key, const SourceText& source,
                   const Expr& at) {
  const auto& v = m.value;
  if (const bool* b = std::get_if<bool>(&v)) return Scalar::of_integer(*b ? 1 : 0);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return Scalar::of_integer(*i);
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail_at(source, at.loc, "metadata " + quoted(key) + " is too large: " + std::to_string(*u));
    }
    return Scalar::of_integer(static_cast<int64_t>(*u));
  }
  if (const double* d = std::get_if<double>(&v)) return Scalar::of_real(*d);
  const char* kind = std::holds_alternative<std::string>(v) ? "a string" : "an array";
  fail_at(source, at.loc, "metadata " + quoted(key) + " is " + kind + ", not a number");
}

// Evaluates the hyper-parameters one by one; it is the scope of their expressions
// and the one place meta() and shape() read the file.
class HParamEvaluator : public ScalarScope {
 public:
  HParamEvaluator(const ModelDef& model, const CompileOptions& options, HParamValues& out)
      : model_(model), options_(options), out_(out), names_(out) {}

  void run() {
    const std::map<std::string, Scalar> overrides = parse_overrides(model_, options_);
    for (const HParamDecl& h : model_.hparams) {
      current_ = &h;
      const auto o = overrides.find(h.name);
      const Scalar v = o != overrides.end() ? o->second : eval_scalar(*h.value, *this, model_.source);
      out_.values[h.name] = v;
      out_.list.push_back(HParam{h.name, v.as_double(), v.is_integer, meta_key(h, false), meta_key(h, true)});
    }
  }

  std::optional<Scalar> find(std::string_view name) const override {
    const auto it = out_.values.find(name);
    if (it == out_.values.end()) return std::nullopt;
    return it->second;
  }

  Scalar read_source(const Expr& call, ScalarFunction fn) const override {
    const Expr* hf_key = call.named.empty() ? nullptr : call.named.front().value.get();
    if (is_hf_folder(options_) && !hf_key) return no_hf_key(call, fn);
    const std::string written = names_.expand(hf_key && is_hf_folder(options_) ? hf_key->text : call.args[0]->text);
    const std::string key = first_present(written, fn);
    if (fn == ScalarFunction::Meta) {
      const MetaValue* m = find_meta(key);
      if (m) return meta_number(*m, key, model_.source, call);
      if (call.args.size() > 1) return eval_scalar(*call.args[1], *this, model_.source);
      missing(call, key, "metadata");
    }
    const Scalar axis_value = eval_scalar(*call.args[1], *this, model_.source);
    const int64_t axis = require_integer(axis_value, *call.args[1], model_.source, "the axis of shape()");
    if (const TensorView* t = find_tensor(key)) {
      if (axis < 0 || axis >= static_cast<int64_t>(t->shape.size())) {
        fail_at(model_.source, call.args[1]->loc,
                "axis " + std::to_string(axis) + " is out of range: tensor " + quoted(key) + " has " +
                    std::to_string(t->shape.size()) + " dimensions");
      }
      return Scalar::of_integer(t->shape[static_cast<size_t>(axis)]);
    }
    if (call.args.size() > 2) return eval_scalar(*call.args[2], *this, model_.source);
    missing(call, key, "tensor");
  }

 private:
  // "a|b": the first alternative the file has (config.json keys moved between
  // transformers versions), else the whole text for the message.
  std::string first_present(const std::string& written, ScalarFunction fn) const {
    if (written.find('|') == std::string::npos) return written;
    size_t begin = 0;
    while (begin <= written.size()) {
      const size_t end = std::min(written.find('|', begin), written.size());
      const std::string key = written.substr(begin, end - begin);
      if (fn == ScalarFunction::Meta ? find_meta(key) != nullptr : find_tensor(key) != nullptr) return key;
      begin = end + 1;
    }
    return written;
  }

  // An empty key: the format has no such key, so the default applies.
  const MetaValue* find_meta(const std::string& key) const {
    if (!options_.weights || key.empty()) return nullptr;
    const auto& meta = options_.weights->metadata();
    const auto it = meta.find(key);
    return it == meta.end() ? nullptr : &it->second;
  }

  const TensorView* find_tensor(const std::string& name) const {
    if (!options_.weights) return nullptr;
    for (const TensorView& t : options_.weights->tensors()) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  // A Hugging Face folder and a meta()/shape() without hf: the default, if any.
  Scalar no_hf_key(const Expr& call, ScalarFunction fn) const {
    const size_t default_arg = fn == ScalarFunction::Meta ? 1 : 2;
    if (call.args.size() > default_arg) return eval_scalar(*call.args[default_arg], *this, model_.source);
    fail_at(model_.source, call.loc,
            "hyper-parameter " + quoted(current_->name) + " has no value: " + options_.weights->path() +
                " is a Hugging Face folder and " + call.text +
                "() gives no hf: key and no default; add hf: \"key\" or pass --set " + current_->name + "=N");
  }

  [[noreturn]] void missing(const Expr& call, const std::string& key, const char* what) const {
    const std::string& name = current_->name;
    std::string reads = call.text + "(\"" + key + "\"";
    if (call.text == "shape") reads += ", " + std::string(model_.source.slice(call.args[1]->begin, call.args[1]->end));
    reads += ")";
    const std::string message =
        options_.weights
            ? "hyper-parameter " + quoted(name) + " has no value: the weights file has no " + what +
                  " " + quoted(key) + " and " + call.text + "() gives no default; pass --set " +
                  name + "=N"
            : "hyper-parameter " + quoted(name) + " has no value: it reads " + reads +
                  " and no weights file was given; pass -m FILE or --set " + name + "=N";
    fail_at(model_.source, call.loc, message);
  }

  // The resolved key of a definition that is exactly meta("..."), else "";
  // `hf` picks the hf: key.
  std::string meta_key(const HParamDecl& h, bool hf) const {
    const Expr& e = *h.value;
    if (e.kind != ExprKind::Call || e.text != "meta") return "";
    if (!hf) return names_.expand(e.args[0]->text);
    if (e.named.empty()) return "";
    const std::string keys = names_.expand(e.named.front().value->text);
    return keys.substr(0, keys.find('|'));  // the first alternative is the current name
  }

  const ModelDef& model_;
  const CompileOptions& options_;
  HParamValues& out_;
  ValueScope names_;  // for {placeholders}: arch and the values so far
  const HParamDecl* current_ = nullptr;
};

std::string architecture(const ModelDef& model, const CompileOptions& options) {
  if (options.weights) {
    const auto& meta = options.weights->metadata();
    const auto it = meta.find(architecture_key(*options.weights));
    if (it != meta.end()) {
      if (const auto* s = std::get_if<std::string>(&it->second.value)) return *s;
    }
  }
  return model.name;
}

}  // namespace

std::string architecture_key(const WeightFile& weights) {
  return weights.format() == "hf" ? "model_type" : "general.architecture";
}

bool is_hf_folder(const CompileOptions& options) {
  return options.weights && options.weights->format() == "hf";
}

bool has_hf_layout(const CompileOptions& options) {
  if (is_hf_folder(options)) return true;
  if (!options.weights) return false;
  const MetaValue* m = options.weights->find_meta(std::string(kHfLayoutKey));
  if (!m) return false;
  if (const bool* b = std::get_if<bool>(&m->value)) return *b;
  return m->is_number() && m->as_float() != 0;
}

HParamValues evaluate_hparams(const ModelDef& model, const CompileOptions& options) {
  HParamValues out;
  out.arch = architecture(model, options);
  out.values[std::string(kHfFormatName)] = Scalar::of_integer(has_hf_layout(options) ? 1 : 0);
  HParamEvaluator(model, options, out).run();
  return out;
}

}  // namespace tessera::dsl
