// The semantic check of expressions: what each name refers to, whether calls match the
// op table (arity, attribute names and types), and the type (tensor or number) of each.
// Operators and if() are checked in semantic_operators.cpp.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dsl/ast.h"

namespace tessera::dsl {

struct ArgSpec;

// The predefined number that is 1 when the weights are a Hugging Face folder, else 0.
inline constexpr std::string_view kHfFormatName = "hf";

// Where an expression is written; Requirement: a condition of `require` (hparams section).
enum class Section { HParams, Requirement, Weights, Forward };

// "'true' is reserved: ..." when `name` is predefined in the language (arch, hf, true,
// false), else "".
std::string reserved_name(std::string_view name);

// A name assigned in the forward section or a block: a tensor, or a named number.
struct Variable {
  SourceLocation loc;  // its first assignment
  ValueType type = ValueType::Tensor;
};
using VariableScopes = std::vector<std::map<std::string, Variable>>;

// What an expression may refer to where it is written.
struct NameScope {
  Section section = Section::Forward;
  size_t visible_hparams = 0;          // hparams [0, n) of the model are defined here
  std::vector<std::string> loop_vars;  // innermost last
  // Forward: the variables defined so far, one map per block, innermost last.
  const VariableScopes* variables = nullptr;
  int block_index = -1;  // inside a block's body: its index in ModelDef::blocks

  bool has_loop_var(std::string_view name) const;
  const Variable* find_variable(std::string_view name) const;
};

class ExprChecker {
 public:
  // Checks a block's body for its parameters' types (at its first call).
  using BlockBodyCheck = std::function<void(const BlockDef& block, const std::vector<ValueType>& param_types)>;

  // Weights the forward section refers to are added to *used_weights.
  ExprChecker(const ModelDef& model, std::set<std::string>* used_weights);
  void set_block_body_check(BlockBodyCheck check) { check_block_body_ = std::move(check); }
  // Blocks called so far, with their parameter types.
  bool is_called(const BlockDef& block) const { return block_param_types_.count(&block) > 0; }

  // Resolves names, checks calls, and annotates `e` (type, name_kind); returns its type.
  ValueType check(Expr& e, const NameScope& scope);
  // check() and require the result to be `want` (Tensor or Scalar); `what` names the
  // expression's role in the message: "the value of 'x'".
  void expect(Expr& e, const NameScope& scope, ValueType want, std::string_view what);
  // Checks the {placeholders} of a name template written at `at` (the opening quote).
  // `stacks`: {*} is allowed (the hf: name of a stacked weight, see WeightFile::stack_tensors).
  void check_template(std::string_view text, SourceLocation at, const NameScope& scope, bool stacks = false);

 private:
  [[noreturn]] void fail(SourceLocation at, std::string message) const;
  ValueType check_name(Expr& e, const NameScope& scope);
  ValueType check_index(Expr& e, const NameScope& scope);
  ValueType check_unary(Expr& e, const NameScope& scope);
  ValueType check_binary(Expr& e, const NameScope& scope);
  ValueType check_arithmetic(Expr& e, ValueType a, ValueType b);
  ValueType check_logic(Expr& e);
  ValueType check_call(Expr& e, const NameScope& scope);
  ValueType check_if(Expr& e, const NameScope& scope);
  ValueType check_op_call(Expr& e, const NameScope& scope);
  ValueType check_plugin_op_call(Expr& e, const NameScope& scope);
  ValueType check_scalar_call(Expr& e, const NameScope& scope);
  ValueType check_block_call(Expr& e, const BlockDef& block, const NameScope& scope);
  void check_attributes(Expr& e, const NameScope& scope);
  void check_choice(Expr& value, const ArgSpec& spec, const std::string& what, const NameScope& scope);
  std::vector<std::string> visible_names(const NameScope& scope) const;
  std::vector<std::string> weight_names() const;

  const ModelDef& model_;
  std::set<std::string>* used_weights_;
  BlockBodyCheck check_block_body_;
  std::map<const BlockDef*, std::vector<ValueType>> block_param_types_;
  int block_nesting_ = 0;  // block bodies being checked, the outermost first
};

// True for a call name of the form `plugin.op`: an op a plugin declares.
inline bool is_plugin_op_name(std::string_view name) { return name.find('.') != std::string_view::npos; }

// "a tensor", "a number", ... for messages.
std::string_view describe_type(ValueType t);

}  // namespace tessera::dsl
