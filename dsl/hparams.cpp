#include "dsl/hparams.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>

#include "dsl/diagnostics.h"
#include "dsl/hparam_kinds.h"
#include "dsl/name_template.h"
#include "dsl/op_table.h"
#include "dsl/requirements.h"
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

// An override's text as the metadata value it stands for: "true"/"false" a bool, "64"
// an integer, "1e-5" / "10000.0" a float; nullopt for anything else.
std::optional<MetaValue> override_value(const std::string& text) {
  if (text == "true" || text == "false") return MetaValue{.value = text == "true"};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  int64_t i = 0;
  if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) return MetaValue{.value = i};
  double f = 0;
  if (auto r = std::from_chars(first, last, f); r.ec == std::errc() && r.ptr == last) return MetaValue{.value = f};
  return std::nullopt;
}

// Whether `e` is a number as written (8, -1, 1e-5, true): its origin needs no text.
bool is_literal(const Expr& e) {
  if (e.kind == ExprKind::Unary && e.op == "-") return is_literal(*e.args[0]);
  return e.kind == ExprKind::Number;
}

// "a, b" for the alternatives "a|b".
std::string alternatives(const std::string& keys) {
  std::string out = keys;
  for (size_t at = out.find('|'); at != std::string::npos; at = out.find('|', at)) out.replace(at, 1, ", ");
  return out;
}

// Evaluates the hyper-parameters one by one; it is the scope of their expressions
// and the one place meta() and shape() read the file.
class HParamEvaluator : public ScalarScope {
 public:
  HParamEvaluator(const ModelDef& model, const CompileOptions& options, HParamValues& out)
      : model_(model), options_(options), out_(out), names_(out) {
    for (const HParamDecl& h : model_.hparams) kinds_[h.name] = kind_of(*h.value, kind_lookup());
  }

  void run() {
    const std::map<std::string, Scalar> overrides = parse_overrides();
    const std::vector<std::vector<const Requirement*>> due = requirements_due();
    check_requirements(due.front());
    for (size_t i = 0; i < model_.hparams.size(); ++i) {
      const HParamDecl& h = model_.hparams[i];
      current_ = &h;
      origin_.clear();
      const auto o = overrides.find(h.name);
      Scalar v;
      if (o != overrides.end()) {
        v = o->second;
        origin_ = "from --set " + h.name + "=" + options_.overrides.at(h.name);
      } else {
        v = eval_scalar(*h.value, *this, model_.source);
        if (origin_.empty()) origin_ = is_literal(*h.value) ? "from the definition" : "from " + text_of(*h.value);
      }
      out_.values[h.name] = v;
      origins_[h.name] = origin_;
      out_.list.push_back(HParam{h.name, v.as_double(), v.is_integer, meta_key(h, false), meta_key(h, true)});
      check_requirements(due[i + 1]);
    }
    for (const HParamDecl& h : model_.hparams) collect_meta_keys(*h.value);
  }

  std::optional<Scalar> find(std::string_view name) const override {
    const auto it = out_.values.find(name);
    if (it == out_.values.end()) return std::nullopt;
    return it->second;
  }

  // meta() and shape(): the key (or tensor) of the file's format, checked to be of the
  // kind the definition reads. A call that is the whole definition of the
  // hyper-parameter being evaluated records where its value came from.
  Scalar read_source(const Expr& call, ScalarFunction fn) const override {
    const bool whole_definition = current_ && &call == current_->value.get();
    const Expr* hf_key = named_value(call, "hf");
    if (is_hf_folder(options_) && !hf_key) return no_hf_key(call, fn, whole_definition);
    const std::string written = names_.expand(hf_key && is_hf_folder(options_) ? hf_key->text : call.args[0]->text);
    const std::string key = first_present(written, fn);
    if (fn == ScalarFunction::Meta) return read_meta(call, key, whole_definition);
    return read_shape(call, key, whole_definition);
  }

 private:
  std::function<NumberKind(std::string_view)> kind_lookup() const {
    return [this](std::string_view name) {
      if (name == kHfFormatName) return NumberKind::Flag;
      const auto it = kinds_.find(name);
      return it == kinds_.end() ? NumberKind::Any : it->second;
    };
  }

  std::string text_of(const Expr& e) const { return collapse_blanks(model_.source.slice(e.begin, e.end)); }

  // --set name=value, each of the kind its definition gives.
  std::map<std::string, Scalar> parse_overrides() const {
    std::vector<std::string> names;
    for (const HParamDecl& h : model_.hparams) names.push_back(h.name);
    std::map<std::string, Scalar> out;
    for (const auto& [name, text] : options_.overrides) {
      const std::string set = "--set " + name + "=" + text + ": ";
      const std::string model = " (model " + model_.source.file_name + ")";
      if (!model_.find_hparam(name)) {
        throw tessera::Error(set + "the model " + model_.source.file_name + " has no hyper-parameter " +
                             quoted(name) + did_you_mean(name, names));
      }
      const std::optional<MetaValue> given = override_value(text);
      if (!given) throw tessera::Error(set + quoted(text) + " is not a number" + model);
      const NumberKind kind = kinds_.at(name);
      std::string found;
      const std::optional<Scalar> v = meta_as(*given, kind, &found);
      if (!v) throw tessera::Error(set + quoted(name) + " needs " + std::string(describe(kind)) + model);
      out.emplace(name, *v);
    }
    return out;
  }

  // The requirements to check once hyper-parameter i - 1 has its value ([0]: before
  // any): each as soon as every hyper-parameter it names has one.
  std::vector<std::vector<const Requirement*>> requirements_due() const {
    std::vector<std::vector<const Requirement*>> due(model_.hparams.size() + 1);
    for (const Requirement& r : model_.requirements) {
      size_t after = 0;
      for (const std::string& name : names_in(*r.condition)) {
        const HParamDecl* h = model_.find_hparam(name);
        if (h) after = std::max(after, static_cast<size_t>(h - model_.hparams.data()) + 1);
      }
      due[after].push_back(&r);
    }
    return due;
  }

  void check_requirements(const std::vector<const Requirement*>& requirements) const {
    for (const Requirement* r : requirements) {
      check_requirement(*r, *this, model_.source, [this](const std::string& name) {
        const Scalar v = out_.values.at(name);
        if (name == kHfFormatName) {
          return NamedValue{name, v.to_string(), v.integer ? "predefined: Hugging Face layout" : "predefined: GGUF layout"};
        }
        return NamedValue{name, v.to_string(), origins_.at(name)};
      });
    }
  }

  // meta(key, default, hf: key, null: value): the value under `key`, of the kind of the
  // default (a whole number without one); a config.json null takes `null:`.
  Scalar read_meta(const Expr& call, const std::string& key, bool whole_definition) const {
    const NumberKind kind = kind_of(call, kind_lookup());
    const std::string at = options_.weights ? options_.weights->metadata_path() + ": " + key : key;
    const std::string needs = ", but " + quoted(current_->name) + " needs " + std::string(describe(kind));
    if (const MetaValue* m = find_meta(key)) {
      std::string found;
      const std::optional<Scalar> v = meta_as(*m, kind, &found);
      if (!v) fail_at(model_.source, call.loc, at + " is " + found + needs);
      if (whole_definition) origin_ = "from " + at;
      return *v;
    }
    if (is_null(key)) {
      const Expr* null_value = named_value(call, "null");
      if (!null_value) fail_at(model_.source, call.loc, at + " is null" + needs + ", and meta() gives no null: value");
      const Scalar v = eval_scalar(*null_value, *this, model_.source);
      if (whole_definition) origin_ = "from " + at + ", null";
      return v;
    }
    if (call.args.size() < 2) missing(call, key, "metadata");
    const Scalar v = eval_scalar(*call.args[1], *this, model_.source);
    if (whole_definition) {
      const std::string label = options_.weights ? options_.weights->metadata_path() : "";
      origin_ = default_origin(*call.args[1], key.empty()                         ? label + " has no key for it"
                                              : key.find('|') != std::string::npos ? label + " has none of " + alternatives(key)
                                                                                   : label + " has no " + key);
    }
    return v;
  }

  // shape(tensor, axis, default, hf: tensor).
  Scalar read_shape(const Expr& call, const std::string& name, bool whole_definition) const {
    const Scalar axis_value = eval_scalar(*call.args[1], *this, model_.source);
    const int64_t axis = require_integer(axis_value, *call.args[1], model_.source, "the axis of shape()");
    if (const TensorView* t = find_tensor(name)) {
      if (axis < 0 || axis >= static_cast<int64_t>(t->shape.size())) {
        fail_at(model_.source, call.args[1]->loc,
                "axis " + std::to_string(axis) + " is out of range: tensor " + quoted(name) + " has " +
                    std::to_string(t->shape.size()) + " dimensions");
      }
      if (whole_definition) origin_ = "from " + options_.weights->path() + ": " + name + ", axis " + std::to_string(axis);
      return Scalar::of_integer(t->shape[static_cast<size_t>(axis)]);
    }
    if (call.args.size() < 3) missing(call, name, "tensor");
    const Scalar v = eval_scalar(*call.args[2], *this, model_.source);
    if (whole_definition) {
      origin_ = default_origin(*call.args[2], options_.weights ? options_.weights->path() + " has no tensor " + name : "");
    }
    return v;
  }

  // "from the default; fake.gguf has no llama.attention.sliding_window", naming a
  // default that is not a plain number ("from the default n_heads; ...").
  std::string default_origin(const Expr& fallback, const std::string& why) const {
    const std::string reason = options_.weights ? why : "no weights file";
    return "from the default" + (is_literal(fallback) ? "" : " " + text_of(fallback)) + "; " + reason;
  }

  // "a|b": the first alternative the file has (config.json keys moved between
  // transformers versions), else the whole text for the message.
  std::string first_present(const std::string& written, ScalarFunction fn) const {
    if (written.find('|') == std::string::npos) return written;
    size_t begin = 0;
    while (begin <= written.size()) {
      const size_t end = std::min(written.find('|', begin), written.size());
      const std::string key = written.substr(begin, end - begin);
      if (fn == ScalarFunction::Meta ? find_meta(key) || is_null(key) : find_tensor(key) != nullptr) return key;
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

  // A key config.json gives as null: present, with no value.
  bool is_null(const std::string& key) const {
    return options_.weights && !key.empty() && options_.weights->meta_is_null(key);
  }

  const TensorView* find_tensor(const std::string& name) const {
    if (!options_.weights) return nullptr;
    for (const TensorView& t : options_.weights->tensors()) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

  // A Hugging Face folder and a meta()/shape() without hf: the default, if any.
  Scalar no_hf_key(const Expr& call, ScalarFunction fn, bool whole_definition) const {
    const size_t default_arg = fn == ScalarFunction::Meta ? 1 : 2;
    if (call.args.size() > default_arg) {
      const Scalar v = eval_scalar(*call.args[default_arg], *this, model_.source);
      if (whole_definition) origin_ = default_origin(*call.args[default_arg], call.text + "() gives no hf: key");
      return v;
    }
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

  // Adds the keys the meta() calls in `e` name for this file's format to
  // out_.named_meta_keys (after run(): every placeholder has its value).
  void collect_meta_keys(const Expr& e) {
    if (e.kind == ExprKind::Call && e.text == "meta") {
      const bool hf = is_hf_folder(options_);
      const Expr* gguf_key = e.args.empty() ? nullptr : e.args[0].get();
      const Expr* key = hf ? named_value(e, "hf") : gguf_key;
      if (key) add_alternatives(names_.expand(key->text));
    }
    for (const ExprPtr& a : e.args) {
      if (a) collect_meta_keys(*a);
    }
    for (const NamedArg& n : e.named) {
      if (n.value) collect_meta_keys(*n.value);
    }
  }

  // Each non-empty alternative of "a|b".
  void add_alternatives(const std::string& keys) {
    size_t begin = 0;
    while (begin <= keys.size()) {
      const size_t end = std::min(keys.find('|', begin), keys.size());
      if (end > begin) out_.named_meta_keys.insert(keys.substr(begin, end - begin));
      begin = end + 1;
    }
  }

  // The resolved key of a definition that is exactly meta("..."), else "";
  // `hf` picks the hf: key.
  std::string meta_key(const HParamDecl& h, bool hf) const {
    const Expr& e = *h.value;
    if (e.kind != ExprKind::Call || e.text != "meta") return "";
    if (!hf) return names_.expand(e.args[0]->text);
    const Expr* hf_key = named_value(e, "hf");
    if (!hf_key) return "";
    const std::string keys = names_.expand(hf_key->text);
    return keys.substr(0, keys.find('|'));  // the first alternative is the current name
  }

  const ModelDef& model_;
  const CompileOptions& options_;
  HParamValues& out_;
  ValueScope names_;  // for {placeholders}: arch and the values so far
  std::map<std::string, NumberKind, std::less<>> kinds_;  // of each definition
  std::map<std::string, std::string> origins_;          // "from ..." of each value so far
  const HParamDecl* current_ = nullptr;
  mutable std::string origin_;  // of the value being evaluated, once read_source knows it
};

std::string architecture(const ModelDef& model, const CompileOptions& options) {
  if (options.weights) {
    if (std::optional<std::string> arch = options.weights->meta_string(architecture_key(*options.weights))) return *arch;
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
  std::string found;
  const std::optional<Scalar> v = meta_as(*m, NumberKind::Flag, &found);
  if (!v) {
    throw tessera::Error(options.weights->metadata_path() + ": " + std::string(kHfLayoutKey) + " is " + found +
                         ", but it must be true or false (or 1 or 0)");
  }
  return v->integer != 0;
}

HParamValues evaluate_hparams(const ModelDef& model, const CompileOptions& options) {
  HParamValues out;
  out.arch = architecture(model, options);
  out.values[std::string(kHfFormatName)] = Scalar::of_integer(has_hf_layout(options) ? 1 : 0);
  HParamEvaluator(model, options, out).run();
  return out;
}

}  // namespace tessera::dsl
