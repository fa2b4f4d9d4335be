// The grammar of model definitions (.tsr files) as PEGTL rules, one per line. The
// actions that build the AST are in parser.cpp, the messages of failed `must`s in grammar_errors.h.
#pragma once

#include <tao/pegtl.hpp>

namespace tessera::dsl::grammar {

using namespace tao::pegtl;  // NOLINT: rules read best unqualified

// A rule with an error message raises whenever it fails, so a rule that is required
// in one place (must<>) and optional in another gets a twin for the optional use
// (`positional_arg` and `condition` for `expression`, `unary` for `negated`, `argument`
// for `next_argument`).

// ---- lexical ---------------------------------------------------------------
struct comment : seq<one<'#'>, until<eolf>> {};                 // '#' to the end of the line
struct blank : sor<space, comment> {};                         // spaces, line breaks, comments
struct sep : star<blank> {};                                    // optional blanks between tokens
struct name : identifier {};                                    // [A-Za-z_][A-Za-z0-9_]*
struct digits : plus<digit> {};                                 // 0-9 at least once
struct fraction : seq<one<'.'>, digits> {};                     // a digit must follow '.', so `0..n` is a range
struct exponent : seq<one<'e', 'E'>, opt<one<'+', '-'>>, digits> {};  // e-5
struct number : seq<digits, opt<fraction>, opt<exponent>> {};   // 8, 10000.0, 1e-5
struct string_body : star<not_one<'"', '\n'>> {};               // no escapes, no line breaks
struct string_close : one<'"'> {};                              // the closing quote
struct string_literal : seq<one<'"'>, string_body, must<string_close>> {};  // "blk.{i}.attn_q.weight"

struct kw_model : TAO_PEGTL_KEYWORD("model") {};
struct kw_hparams : TAO_PEGTL_KEYWORD("hparams") {};
struct kw_weights : TAO_PEGTL_KEYWORD("weights") {};
struct kw_forward : TAO_PEGTL_KEYWORD("forward") {};
struct kw_layer : TAO_PEGTL_KEYWORD("layer") {};
struct kw_for : TAO_PEGTL_KEYWORD("for") {};
struct kw_in : TAO_PEGTL_KEYWORD("in") {};
struct kw_else : TAO_PEGTL_KEYWORD("else") {};
struct kw_hf : TAO_PEGTL_KEYWORD("hf") {};
struct kw_block : TAO_PEGTL_KEYWORD("block") {};
struct kw_return : TAO_PEGTL_KEYWORD("return") {};
struct kw_transposed : TAO_PEGTL_KEYWORD("transposed") {};
struct kw_require : TAO_PEGTL_KEYWORD("require") {};
struct kw_use : TAO_PEGTL_KEYWORD("use") {};
struct kw_true : TAO_PEGTL_KEYWORD("true") {};
struct kw_false : TAO_PEGTL_KEYWORD("false") {};

struct equals : one<'='> {};                                    // name = value
struct open_brace : one<'{'> {};                                // opens a block
struct close_brace : one<'}'> {};                               // closes a block
struct comma : one<','> {};                                     // separates list items
struct colon : one<':'> {};                                     // attribute: value
struct dotdot : TAO_PEGTL_STRING("..") {};                      // begin .. end

// ---- expressions ------------------------------------------------------------------
// Precedence as in C, tightest first: unary - and !, then * / %, + -, < <= > >=, == !=,
// &&, ||; binary operators associate left.
struct expression;
struct negation;
struct logical_not;
struct primary;
struct product;
struct sum_tail;
struct or_tail;
struct conjunction;
struct paren_open : one<'('> {};                                // grouping
struct paren_close : one<')'> {};                               // end of grouping
struct paren_expr : seq<paren_open, sep, must<expression>, sep, must<paren_close>> {};  // (a + b)
struct name_ref : name {};                                      // variable, weight, hyper-parameter
struct call_open : one<'('> {};                                 // directly after a name: a call
struct call_close : one<')'> {};                                // end of the argument list
struct named_arg : seq<at<name, sep, colon>, name, sep, colon, sep, must<expression>> {};  // eps: norm_eps
struct positional_arg : seq<conjunction, star<sep, or_tail>> {};  // x (an expression, but optional here)
struct argument : sor<named_arg, positional_arg> {};            // one argument
struct next_argument : sor<named_arg, positional_arg> {};       // an argument after a comma
struct more_arguments : star<comma, sep, must<next_argument>, sep> {};  // , y, eps: 1e-5
struct call_suffix : seq<call_open, sep, opt<argument, sep, more_arguments>, must<call_close>> {};  // (x, w)
struct index_open : one<'['> {};                                // directly after a name: an index
struct index_close : one<']'> {};                               // end of the index
struct index_suffix : seq<index_open, sep, must<expression>, sep, must<index_close>> {};  // [i]
struct name_expr : seq<name_ref, opt<sor<call_suffix, index_suffix>>> {};  // x, f(...), w[i]
struct plugin_op_name : seq<name, one<'.'>, name> {};           // acme.fused_silu_mul: an op a plugin declares
struct plugin_call_args : seq<call_open, sep, opt<argument, sep, more_arguments>, must<call_close>> {};  // call_suffix's twin
struct plugin_call : seq<plugin_op_name, must<plugin_call_args>> {};  // acme.fused_silu_mul(a, b, alpha: 0.5)
struct flag_literal : sor<kw_true, kw_false> {};               // true (1), false (0): a flag
struct primary : sor<number, flag_literal, string_literal, paren_expr, plugin_call, name_expr> {};  // an operand
struct negated : sor<negation, logical_not, primary> {};        // the operand of unary minus
struct negation : seq<one<'-'>, sep, must<negated>> {};         // -x
struct not_operand : sor<negation, logical_not, primary> {};    // the operand of '!'
struct not_sign : seq<one<'!'>, not_at<one<'='>>> {};           // '!', not the start of '!='
struct logical_not : seq<not_sign, sep, must<not_operand>> {};  // !x: 1 when x is 0, else 0
struct unary : sor<negation, logical_not, primary> {};          // operand with optional minus or '!'
struct mul_op : one<'*', '/', '%'> {};                          // * or / or % (remainder)
struct product_rhs : unary {};                                  // right operand of * or /
struct product_tail : seq<mul_op, sep, must<product_rhs>> {};   // * b
struct product : seq<unary, star<sep, product_tail>> {};        // a * b / c
struct add_op : one<'+', '-'> {};                               // + or -
struct sum_rhs : product {};                                    // right operand of + or -
struct sum_tail : seq<add_op, sep, must<sum_rhs>> {};           // + b
struct sum : seq<product, star<sep, sum_tail>> {};              // a + b * c
struct compare_op : sor<string<'<', '='>, string<'>', '='>, one<'<', '>'>> {};  // < <= > >=
struct compare_rhs : sum {};                                    // right operand of a comparison
struct compare_tail : seq<compare_op, sep, must<compare_rhs>> {};  // < b
struct comparison : seq<sum, star<sep, compare_tail>> {};       // i % 4 < 3
struct equality_op : sor<string<'=', '='>, string<'!', '='>> {};  // == or !=
struct equality_rhs : comparison {};                            // right operand of == or !=
struct equality_tail : seq<equality_op, sep, must<equality_rhs>> {};  // == b
struct equality : seq<comparison, star<sep, equality_tail>> {};  // i % 4 == 3
struct and_op : string<'&', '&'> {};                            // && (short-circuit)
struct and_rhs : equality {};                                   // right operand of &&
struct and_tail : seq<and_op, sep, must<and_rhs>> {};           // && b
struct conjunction : seq<equality, star<sep, and_tail>> {};     // a && b
struct or_op : string<'|', '|'> {};                             // || (short-circuit)
struct or_rhs : conjunction {};                                 // right operand of ||
struct or_tail : seq<or_op, sep, must<or_rhs>> {};              // || b
struct expression : seq<conjunction, star<sep, or_tail>> {};    // a || b && c

// ---- model NAME --------------------------------------------------------------
struct model_name : name {};                                    // the model's name, also {arch} without a file
struct section_keyword : sor<kw_hparams, kw_weights, kw_forward, kw_block, kw_use> {};  // starts a section (or `use`), so no alias
struct alias_name : seq<not_at<section_keyword>, name> {};      // another architecture name it serves
struct alias_string : seq<one<'"'>, string_body, must<string_close>> {};  // "command-r": one that is no name
struct model_alias : sor<alias_string, alias_name> {};          // phi, "command-r"
struct model_aliases : star<sep, comma, sep, must<model_alias>> {};  // , phi
struct model_decl : seq<kw_model, sep, must<model_name>, model_aliases> {};  // model phi2, phi

// ---- use "base.tsr": the definition this one extends (right after `model`) ------------
struct use_path : seq<one<'"'>, string_body, must<string_close>> {};  // "llama.tsr", relative to this file
struct use_decl : seq<kw_use, sep, must<use_path>> {};          // use "llama.tsr"

// ---- hparams { name = expression ... require condition, ... } ---------------------
struct hparam_def : seq<name, sep, must<equals>, sep, must<expression>> {};  // d_model = meta("...")
struct condition : seq<conjunction, star<sep, or_tail>> {};     // an expression, with its own message here
struct requirement : seq<not_at<kw_require>, condition> {};     // a condition the values must meet
struct next_requirement : seq<not_at<kw_require>, condition> {};  // one after a comma (`require` there: a comma too many)
struct more_requirements : star<sep, comma, sep, must<next_requirement>> {};  // , n_heads >= 1
struct require_statement : seq<kw_require, sep, must<requirement>, more_requirements> {};  // require n_layers >= 1, ...
struct hparam_entry : sor<require_statement, hparam_def> {};    // a definition or requirements
struct hparams_section : seq<kw_hparams, sep, must<open_brace>, sep, until<close_brace, must<hparam_entry>, sep>> {};

// ---- weights { name [dims] = "file name" else fallback ... } -----------------
struct dim : expression {};                                     // one dimension, outermost first
struct dim_open : one<'['> {};                                  // starts the shape
struct dim_close : one<']'> {};                                 // ends the shape
struct dim_list : seq<dim_open, sep, must<dim>, sep, star<comma, sep, must<dim>, sep>, must<dim_close>> {};  // [n_vocab, d_model]
struct weight_file : string_literal {};                         // the tensor's name in a GGUF file
struct hf_file : string_literal {};                             // its name in a Hugging Face folder
struct hf_transposed_file : string_literal {};                  // the same inside transposed( ), with its own message
struct hf_open : one<'('> {};                                   // transposed( ... )
struct hf_close : one<')'> {};                                  // end of transposed( ... )
struct hf_transposed : seq<kw_transposed, sep, must<hf_open>, sep, must<hf_transposed_file>, sep, must<hf_close>> {};  // stored [in, out]
struct hf_value : sor<hf_transposed, hf_file> {};               // "name" or transposed("name")
struct hf_colon : one<':'> {};                                  // hf: (a twin of colon, which has no message)
struct hf_name : seq<comma, sep, must<kw_hf>, sep, must<hf_colon>, sep, must<hf_value>> {};  // , hf: "model.embed_tokens.weight"
struct fallback_name : name {};                                 // weight used when the file lacks this one
struct weight_fallback : seq<kw_else, sep, must<fallback_name>> {};  // else tok_embd
struct weight_def : seq<name, sep, must<dim_list>, sep, must<equals>, sep, must<weight_file>, opt<sep, hf_name>, opt<sep, weight_fallback>> {};
struct loop_var : name {};                                      // i
struct range_begin : expression {};                             // first index
struct range_end : expression {};                               // one past the last index
struct range : seq<loop_var, sep, must<kw_in>, sep, must<range_begin>, sep, must<dotdot>, sep, must<range_end>> {};  // i in 0 .. n_layers
struct layer_header : seq<kw_layer, sep, must<range>, sep, must<open_brace>> {};  // layer i in 0 .. n_layers {
struct layer_group : seq<layer_header, sep, until<close_brace, must<weight_def>, sep>> {};  // one tensor per layer
struct weight_entry : sor<layer_group, weight_def> {};          // a declaration or a layer group
struct weights_section : seq<kw_weights, sep, must<open_brace>, sep, until<close_brace, must<weight_entry>, sep>> {};

// ---- forward { statements } ---------------------------------------------------
struct statement;
struct assignment : seq<name, sep, must<equals>, sep, must<expression>> {};  // x = x + h
struct for_header : seq<kw_for, sep, must<range>, sep, must<open_brace>> {};  // for i in 0 .. n_layers {
struct for_loop : seq<for_header, sep, until<close_brace, must<statement>, sep>> {};  // unrolled at compile time
struct statement : sor<for_loop, assignment> {};                // one statement
struct forward_section : seq<kw_forward, sep, must<open_brace>, sep, until<close_brace, must<statement>, sep>> {};

// ---- block NAME(params) { statements  return expression } -------------------------
struct block_name : name {};                                    // called like an op
struct block_param : name {};                                   // a tensor or a number, by its calls
struct param_open : one<'('> {};                                // starts the parameters
struct param_close : one<')'> {};                               // ends them
struct block_params : seq<param_open, sep, opt<block_param, sep, star<comma, sep, must<block_param>, sep>>, must<param_close>> {};  // (x, i)
struct return_statement : seq<kw_return, sep, must<expression>> {};  // return x + h
struct block_statement : sor<return_statement, for_loop, assignment> {};  // a statement of a block
struct block_header : seq<kw_block, sep, must<block_name>, sep, must<block_params>, sep, must<open_brace>> {};  // block norm(x, w) {
struct block_def : seq<block_header, sep, until<close_brace, must<block_statement>, sep>> {};

// ---- the file ----------------------------------------------------------------------
struct section : sor<hparams_section, weights_section, forward_section, block_def> {};  // any order; checked later
struct end_of_file : eof {};                                    // nothing after the last section
struct model_file : seq<sep, must<model_decl>, sep, opt<use_decl, sep>, star<section, sep>, must<end_of_file>> {};

}  // namespace tessera::dsl::grammar
