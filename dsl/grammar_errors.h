// The error-message table of the DSL grammar: what the parser says when a rule that
// is required at that point (inside must<>) does not match. Messages start with "expected".
#pragma once

#include "dsl/grammar.h"

namespace tessera::dsl::grammar {

template <typename Rule>
inline constexpr const char* error_message = nullptr;

// clang-format off
template <> inline constexpr auto error_message<string_close> = "expected '\"' to close the string before the end of the line";
template <> inline constexpr auto error_message<equals> = "expected '='";
template <> inline constexpr auto error_message<open_brace> = "expected '{'";
template <> inline constexpr auto error_message<kw_in> = "expected 'in' after the loop variable";
template <> inline constexpr auto error_message<dotdot> = "expected '..' between the first and the end index";
template <> inline constexpr auto error_message<expression> = "expected an expression";
template <> inline constexpr auto error_message<paren_close> = "expected ')' to close the parenthesis";
template <> inline constexpr auto error_message<next_argument> = "expected an argument after ','";
template <> inline constexpr auto error_message<call_close> = "expected ',' or ')' after an argument";
template <> inline constexpr auto error_message<plugin_call_args> = "expected '(' and the arguments after the name of a plugin's op";
template <> inline constexpr auto error_message<index_close> = "expected ']' after the index";
template <> inline constexpr auto error_message<negated> = "expected an operand after '-'";
template <> inline constexpr auto error_message<not_operand> = "expected an operand after '!'";
template <> inline constexpr auto error_message<product_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<sum_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<compare_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<equality_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<and_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<or_rhs> = "expected an operand after the operator";
template <> inline constexpr auto error_message<model_name> = "expected the model's name after 'model'";
template <> inline constexpr auto error_message<use_path> = "expected a quoted file name after 'use', as use \"llama.tsr\"";
template <> inline constexpr auto error_message<model_decl> = "expected 'model NAME' at the start of the file";
template <> inline constexpr auto error_message<hparam_entry> = "expected a hyper-parameter 'name = expression', 'require' or '}'";
template <> inline constexpr auto error_message<requirement> = "expected a condition after 'require', as 'require n_layers >= 1'";
template <> inline constexpr auto error_message<next_requirement> = "expected a condition after ','";
template <> inline constexpr auto error_message<dim> = "expected a dimension";
template <> inline constexpr auto error_message<dim_list> = "expected the weight's shape '[dim, ...]' after its name";
template <> inline constexpr auto error_message<dim_close> = "expected ',' or ']' after a dimension";
template <> inline constexpr auto error_message<weight_file> = "expected the tensor's name in the weights file, as a string";
template <> inline constexpr auto error_message<model_alias> = "expected another architecture name after ',' (a name, or in quotes: \"command-r\")";
template <> inline constexpr auto error_message<kw_hf> = "expected 'hf:' and the tensor's Hugging Face name after ','";
template <> inline constexpr auto error_message<hf_colon> = "expected ':' after 'hf'";
template <> inline constexpr auto error_message<hf_value> = "expected the tensor's Hugging Face name as a string, or transposed(\"name\")";
template <> inline constexpr auto error_message<hf_open> = "expected '(' after 'transposed'";
template <> inline constexpr auto error_message<hf_transposed_file> = "expected the tensor's Hugging Face name, as a string";
template <> inline constexpr auto error_message<hf_close> = "expected ')' after the name";
template <> inline constexpr auto error_message<fallback_name> = "expected the name of a weight after 'else'";
template <> inline constexpr auto error_message<weight_def> = "expected a weight 'name [dims] = \"file name\"' or '}'";
template <> inline constexpr auto error_message<weight_entry> = "expected a weight 'name [dims] = \"file name\"', 'layer' or '}'";
template <> inline constexpr auto error_message<range> = "expected a loop variable: 'i in begin .. end'";
template <> inline constexpr auto error_message<range_begin> = "expected the first index";
template <> inline constexpr auto error_message<range_end> = "expected the end index";
template <> inline constexpr auto error_message<statement> = "expected a statement 'name = expression', 'for' or '}'";
template <> inline constexpr auto error_message<end_of_file> = "expected a section: 'hparams {', 'weights {', 'forward {' or 'block NAME(...) {'";
template <> inline constexpr auto error_message<block_name> = "expected the block's name after 'block'";
template <> inline constexpr auto error_message<block_params> = "expected '(' and the block's parameters after its name";
template <> inline constexpr auto error_message<block_param> = "expected a parameter name after ','";
template <> inline constexpr auto error_message<param_close> = "expected ',' or ')' after a parameter";
template <> inline constexpr auto error_message<block_statement> = "expected a statement 'name = expression', 'for', 'return expression' or '}'";
// clang-format on

// The table in the form PEGTL's must_if<> reads it.
struct error_table {
  template <typename Rule>
  static constexpr const char* message = error_message<Rule>;
};

// Parse control: a failed must<Rule> throws a parse_error with Rule's message.
template <typename Rule>
using error_control = tao::pegtl::must_if<error_table>::control<Rule>;

}  // namespace tessera::dsl::grammar
