// Calls to ops that plugins declare (`acme.fused_silu_mul(a, b, alpha: 0.5)`): found in
// the catalog of the loaded plugins' declarations, checked against the declaration
// (arguments, attribute names and types, shape rules) with file:line:col diagnostics,
// and lowered to one OpKind::Custom node.
#pragma once

#include <vector>

#include "core/ops/custom_op.h"
#include "dsl/ast.h"
#include "dsl/lowering.h"
#include "dsl/scalar_eval.h"

namespace tessera::dsl {

// The declaration `call` names. Fails at the call when `catalog` is null or lacks it,
// saying whether the plugin is not loaded or does not declare that op; also when the
// number of arguments does not fit the declaration.
const CustomOpSchema& find_plugin_op(const CustomOpCatalog* catalog, const Expr& call, const SourceText& source);

// The attribute values for the node, in declaration order, defaults filled in: `given`
// holds the value of each of call.named, in order. Fails at an unknown attribute, a
// fraction given to an int one, or a required one left out.
std::vector<tsr_attr_value> bind_plugin_op_attrs(const CustomOpSchema& op, const Expr& call,
                                                 const std::vector<Scalar>& given, const SourceText& source);

// Adds the node: `inputs` holds a tensor id per argument written (-1 for an optional
// input given an absent weight). Fails when a shape rule or a dtype does not hold.
int lower_plugin_op(GraphBuilder& b, const CustomOpSchema& op, const Expr& call, const std::vector<int>& inputs,
                    std::vector<tsr_attr_value> attrs);

}  // namespace tessera::dsl
