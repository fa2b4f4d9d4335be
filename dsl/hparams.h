// Hyper-parameter values of a model being compiled: evaluated in definition order
// from --set overrides, the weights file (meta(), shape()) and defaults, plus the
// scope that later expressions (shapes, loop bounds, attributes) are evaluated in.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dsl/ast.h"
#include "dsl/compiler.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

struct HParamValues {
  std::string arch;          // {arch}: general.architecture of the file, else the model name
  std::vector<HParam> list;  // in definition order
  std::map<std::string, Scalar, std::less<>> values;
  // Every metadata key a meta() of the definition names for this file's format (each
  // alternative of "a|b", placeholders filled in), evaluated or not: an overridden
  // hyper-parameter's and the branch if() did not take count too, as keys the
  // definition knows about.
  std::set<std::string> named_meta_keys;
};

// Throws tessera::Error for a bad override, DslError for a value that cannot be found.
HParamValues evaluate_hparams(const ModelDef& model, const CompileOptions& options);

// Whether the weights are a Hugging Face folder (names and keys come from hf: then).
bool is_hf_folder(const CompileOptions& options);
// Whether the tensors are laid out as Hugging Face stores them: a Hugging Face folder,
// or a GGUF converted from one without re-layout (metadata kHfLayoutKey = 1). This is
// the DSL's predefined number `hf`.
bool has_hf_layout(const CompileOptions& options);

// Hyper-parameters plus the loop variables currently bound.
class ValueScope : public ScalarScope {
 public:
  explicit ValueScope(const HParamValues& hparams) : hparams_(hparams) {}

  void push_loop_var(std::string name, int64_t value) { push_scalar(std::move(name), Scalar::of_integer(value)); }
  // A named number: a loop variable, or a block's number parameter.
  void push_scalar(std::string name, Scalar value) { loop_vars_.emplace_back(std::move(name), value); }
  void pop_loop_var() { loop_vars_.pop_back(); }
  // The outermost loop variable's value, or -1 outside loops: with nested loops
  // (`for i in 0 .. n_layers { for j in 0 .. 2 { ... } }`) the layer is the outer index.
  int64_t outermost_loop_value() const { return loop_vars_.empty() ? -1 : loop_vars_.front().second.integer; }

  std::optional<Scalar> find(std::string_view name) const override;
  // `text` with its {placeholders} filled in: arch, loop variables, hyper-parameters.
  std::string expand(std::string_view text) const;

 private:
  const HParamValues& hparams_;
  std::vector<std::pair<std::string, Scalar>> loop_vars_;
};

}  // namespace tessera::dsl
