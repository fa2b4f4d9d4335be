// Requirements of the hparams section, `require n_layers >= 1, n_heads % n_kv_heads == 0`:
// what a condition names, when it can be checked, and the message when it fails.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dsl/ast.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

// The hyper-parameters (and `hf`) `condition` names, each once, in order of first
// appearance. Names are those the semantic check resolved to hyper-parameters.
std::vector<std::string> names_in(const Expr& condition);

// The part of a failed condition to report: in a chain of && the first operand that
// does not hold (`n_kv >= 1 && n_heads % n_kv == 0` with n_kv = 3 is the second), else
// the condition itself. `holds` evaluates an operand.
const Expr& failing_part(const Expr& condition, const std::function<bool(const Expr&)>& holds);

// One hyper-parameter a failed condition names: its value and where it came from.
struct NamedValue {
  std::string name;
  std::string value;   // as the summary prints it: "64", "1e-05"
  std::string origin;  // "from --set n_layers=-1", "from model.gguf: llama.block_count"
};

// "n_layers = -1 (from --set n_layers=-1) breaks n_layers >= 1", or for several names
// "a = 8 (from ...) and b = 3 (from ...) break a % b == 0"; `condition` is its text.
std::string broken_requirement(const std::vector<NamedValue>& values, const std::string& condition);

// Evaluates `r` in `scope`; when it does not hold, throws the DslError of
// broken_requirement() at its failing part, `describe` giving each name's value and origin.
void check_requirement(const Requirement& r, const ScalarScope& scope, const SourceText& source,
                       const std::function<NamedValue(const std::string& name)>& describe);

}  // namespace tessera::dsl
