// The parse control that holds the parser to the nesting limits (nesting_limits.h):
// the parse stops at the rule that passes kMaxNesting, before the parser's own
// recursion can exhaust the stack.
#pragma once

#include <string>

#include <tao/pegtl.hpp>

#include "dsl/grammar.h"
#include "dsl/grammar_errors.h"
#include "dsl/nesting_limits.h"

namespace tessera::dsl {

namespace grammar {

template <typename Rule>
inline constexpr bool nests = false;
template <> inline constexpr bool nests<paren_expr> = true;
template <> inline constexpr bool nests<call_suffix> = true;
template <> inline constexpr bool nests<plugin_call_args> = true;
template <> inline constexpr bool nests<index_suffix> = true;
template <> inline constexpr bool nests<negation> = true;
template <> inline constexpr bool nests<logical_not> = true;
template <> inline constexpr bool nests<for_loop> = true;

// error_control, counting the nesting rules entered in the parse state's `nesting`:
// past kMaxNesting the parse stops there, before the parser's own recursion can
// exhaust the stack.
template <typename Rule>
struct limited_control : error_control<Rule> {
  template <typename Input, typename State>
  static void start(const Input& in, State& st) {
    if constexpr (nests<Rule>) {
      if (++st.nesting > kMaxNesting) {
        throw tao::pegtl::parse_error("expression nested deeper than " + std::to_string(kMaxNesting) + " levels", in);
      }
    }
    error_control<Rule>::start(in, st);
  }
  template <typename Input, typename State>
  static void success(const Input& in, State& st) {
    if constexpr (nests<Rule>) --st.nesting;
    error_control<Rule>::success(in, st);
  }
  template <typename Input, typename State>
  static void failure(const Input& in, State& st) {
    if constexpr (nests<Rule>) --st.nesting;
    error_control<Rule>::failure(in, st);
  }
};

}  // namespace grammar
}  // namespace tessera::dsl
