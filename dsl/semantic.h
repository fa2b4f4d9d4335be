// The semantic check of a parsed model definition: sections, definitions before use,
// duplicates, op calls against the op table, unused weights and the `logits` output.
#pragma once

#include "dsl/ast.h"

namespace tessera::dsl {

// Checks `model` and annotates its expressions (ValueType, NameKind). Throws DslError
// at the first problem. What needs hyper-parameter values (shapes, exact division) is
// checked when compiling.
void check_model(ModelDef& model);

}  // namespace tessera::dsl
