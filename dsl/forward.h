// Unrolling the forward section: loops run at compile time, each assignment's
// expression is lowered to graph nodes through the GraphBuilder.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/ops/custom_op.h"
#include "dsl/ast.h"
#include "dsl/hparams.h"
#include "dsl/lowering.h"
#include "dsl/weight_binding.h"

namespace tessera::dsl {

class ForwardCompiler {
 public:
  // `plugin_ops`: the declarations calls to plugins' ops are checked against; null: none.
  ForwardCompiler(const ModelDef& model, const HParamValues& hparams, const WeightBindings& weights,
                  GraphBuilder& builder, const CustomOpCatalog* plugin_ops = nullptr);

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
  int weight_value(const Expr& e, bool may_be_absent = false);
  int binary_value(const Expr& e);
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
  ValueScope scope_;
  std::map<std::string, int> variables_;  // name -> tensor id
  std::map<std::string, const Statement*> assigned_by_;
  const BlockDef* in_block_ = nullptr;  // the block being unrolled, if any
  int64_t block_layer_ = -1;            // the caller's layer while in a block
};

}  // namespace tessera::dsl
