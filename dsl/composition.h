// Composition of model definitions: a definition that says `use "llama.tsr"` right after
// its `model` line inherits that file's hyper-parameters, weights, blocks and forward
// section, and its own sections override and extend them (dsl/README.md, "use").
#pragma once

#include "dsl/ast.h"

namespace tessera::dsl {

// How many definitions a chain of `use` may pass through above the one read: a
// variant, its base, the base's base... at most kMaxUseDepth bases.
inline constexpr int kMaxUseDepth = 8;

// Merges `base` (the definition `variant` uses, its own bases already merged) into
// `variant`, whose syntax tree shares its SourceText with it:
//   - hyper-parameters: one of a name the base has takes the base's place (later base
//     definitions see the new value); new ones follow all of the base's. Requirements:
//     the base's, then the variant's.
//   - weights and blocks: one of a name the base has replaces it in its place; new ones
//     are added after the base's. The variant's layer groups are groups of their own.
//   - forward: the variant's if it has one, else the base's.
//   - the name, aliases and source stay the variant's; the section marks of both are
//     kept (the semantic check refuses a section repeated within one file).
void merge_base(ModelDef& variant, ModelDef&& base);

}  // namespace tessera::dsl
