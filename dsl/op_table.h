// The table of what the DSL can call: graph ops (name, positional parameters, named
// attributes with types and defaults, the function lowering a call) and scalar functions.
// Adding an op to the language is adding a row here and its lowering function.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/ast.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

enum class ArgType {
  Tensor,  // a tensor expression
  Int,     // a scalar expression with an integer value
  Float,   // a scalar expression (integers convert)
  Choice,  // one of the names in ArgSpec::choices, written bare: pairing: neox
};

struct ArgSpec {
  std::string_view name;
  ArgType type = ArgType::Tensor;
  // Attributes only (positional parameters are always required): an attribute that
  // is neither required nor defaulted is computed by the lowering when absent.
  bool required = false;
  std::optional<double> default_value;   // Int/Float; Choice: index into choices
  std::vector<std::string_view> choices;  // Choice: the accepted names, in value order
  std::string_view help;
  bool optional = false;  // positional only: may be left out (only trailing ones are)
};

class GraphBuilder;
struct OpCall;
// Adds the nodes of one call to the graph and returns the tensor id of the result.
using LowerFn = int (*)(GraphBuilder& builder, const OpCall& call);

struct OpSpec {
  std::string_view name;
  std::vector<ArgSpec> params;      // positional, in order
  std::vector<ArgSpec> attributes;  // named
  LowerFn lower = nullptr;
  std::string_view help;

  // Index of the attribute called `name` in `attributes`, or -1.
  int attribute_index(std::string_view name) const;
  std::vector<std::string> attribute_names() const;
  std::string signature() const;  // "rms_norm(x, weight)"; optional ones in brackets
  size_t required_params() const;  // positional params that must be given
};

const std::vector<OpSpec>& op_table();
const OpSpec* find_op(std::string_view name);  // nullptr if unknown

// Functions of numbers. meta() and shape() read the weights file, so only the hparams
// section may call them; has() reads it too, and is also asked per layer in forward.
struct ScalarParam {
  std::string_view name;
  ValueType type;  // String (a literal) or Scalar
};

struct ScalarFunctionSpec {
  std::string_view name;
  ScalarFunction id;
  std::vector<ScalarParam> params;
  size_t required = 0;  // the first `required` params must be given
  // Where a call may be written: weight shapes are bound before anything is read
  // per layer, so what reads the file is refused there.
  enum class Sections { All, HParams, HParamsAndForward };
  Sections sections = Sections::All;
  // Takes `hf: "key"`: the key (or tensor name) to read instead in a Hugging Face folder.
  bool takes_hf_key = false;
  std::string_view help;
  // Takes `null: value`: the value when a Hugging Face config.json gives the key as null.
  bool takes_null_value = false;

  std::string signature() const;  // "meta(key, default)"
};

const std::vector<ScalarFunctionSpec>& scalar_function_table();
const ScalarFunctionSpec* find_scalar_function(std::string_view name);  // nullptr if unknown

// Every name a call may use (ops and scalar functions), for "did you mean" hints.
std::vector<std::string> callable_names();

}  // namespace tessera::dsl
