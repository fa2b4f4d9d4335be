// How deep a definition may nest. Every pass over an expression (parsing, the semantic
// check, evaluation, lowering, freeing the tree) recurses once per level, so without a
// bound a hostile file of 30,000 parentheses or a sum of 20,000 terms would overflow
// the stack. No real model comes near these bounds.
#pragma once

namespace tessera::dsl {

// Rules that contain themselves: parentheses, calls, indexes, unary operators, loops.
inline constexpr int kMaxNesting = 200;
// Levels of an expression's tree: a chain of binary operators adds one per operator.
inline constexpr int kMaxExpressionDepth = 1000;
// Block calls inside block calls (each block may call those defined before it).
inline constexpr int kMaxBlockNesting = 64;

}  // namespace tessera::dsl
