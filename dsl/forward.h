// Unrolling the forward section: loops run at compile time, each assignment's
// expression is lowered to graph nodes through the GraphBuilder, and an assignment of
// a number names it for the statements after it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/custom_op.h"
#include "dsl/ast.h"
#include "dsl/hparams.h"
#include "dsl/lowering.h"
#include "dsl/weight_binding.h"

namespace tessera::dsl {

// What the forward section's numbers see: its named numbers (`s = 1.0 / sqrt(d)`, a
// block's number parameters) over the loop variables and hyper-parameters, and the
// weights file for has().
class ForwardScope : public ValueScope {
 public:
  using Numbers = std::map<std::string, Scalar, std::less<>>;

  // `options`: the weights file has() reads (must outlive the scope). `source` is the
  // definition, for has()'s diagnostics.
  ForwardScope(const HParamValues& hparams, const CompileOptions& options, const SourceText& source)
      : ValueScope(hparams), options_(options), source_(source) {}

  std::optional<Scalar> find(std::string_view name) const override;
  bool has_tensor(const Expr& call) const override;
  // The named numbers of the statements being unrolled (swapped out during a block call).
  Numbers& numbers() { return numbers_; }

 private:
  const CompileOptions& options_;
  const SourceText& source_;
  Numbers numbers_;
};

class ForwardCompiler {
 public:
  // `options`: plugin_ops, the declarations calls to plugins' ops are checked against
  // (null: none), and the weights file has() reads.
  ForwardCompiler(const ModelDef& model, const HParamValues& hparams, const WeightBindings& weights,
                  GraphBuilder& builder, const CompileOptions& options);

  // Lowers the whole forward section.
  void run();
  // The tensor a top-level variable holds at the end, and the statement that set it last.
  int variable(const std::string& name) const { return variables_.at(name); }
  const Statement& last_assignment(const std::string& name) const { return *assigned_by_.at(name); }

 private:
  void run_block(const std::vector<Statement>& block);
  void run_loop(const Statement& s);
  void run_assignment(const Statement& s);
  int tensor_value(const Expr& e);
  const Expr& chosen(const Expr& e) const;
  int weight_value(const Expr& e, bool may_be_absent = false);
  int unary_value(const Expr& e);
  int binary_value(const Expr& e);
  int tensor_and_number_value(const Expr& e);
  int call_value(const Expr& e);
  int plugin_op_value(const Expr& e);
  int block_value(const Expr& e, const BlockDef& block);
  int64_t current_layer() const;
  std::string label_of(const Statement& s) const;
  ArgValue bind(const ArgSpec& spec, const Expr& e, const std::string& what);
  ArgValue default_value(const ArgSpec& spec) const;
  int choice_index(const ArgSpec& spec, const Expr& e) const;
  Scalar scalar(const Expr& e) const { return eval_scalar(e, scope_, model_.source); }

  const ModelDef& model_;
  const WeightBindings& weights_;
  GraphBuilder& builder_;
  const CustomOpCatalog* plugin_ops_;
  ForwardScope scope_;
  const CompileOptions& options_;  // the weights file (null: none) and the dtype of made weights
  std::map<std::string, int> variables_;  // name -> tensor id
  std::map<std::string, const Statement*> assigned_by_;
  const BlockDef* in_block_ = nullptr;  // the block being unrolled, if any
  int64_t block_layer_ = -1;            // the caller's layer while in a block
};

}  // namespace tessera::dsl
