// RoPE rotates each head's columns on its own, so a rope must split its input into
// the heads the attention reading it uses. rope's lowering only checks that `heads`
// divides the columns: q rotated with `heads: n_kv_heads` (or k with n_heads) divides
// them too, into heads of another size, and the model runs with wrong positions.
#pragma once

#include "core/graph/graph.h"
#include "dsl/ast.h"

namespace tessera::dsl {

// Follows every ROPE node's output, through SCALE nodes (a scaled query), to the
// ATTENTION reading it as queries or the KV_WRITE storing it as keys, and throws
// DslError at the rope's statement (naming the tensor it makes, "blk.3.k", since a
// block's statement serves several calls) when its head size differs from theirs. A rope
// whose output reaches no attention (or only through other ops) is not judged.
void check_rope_heads(const Graph& graph, const SourceText& source);

}  // namespace tessera::dsl
