// The PEGTL actions that build the AST of a model definition while the grammar
// matches (internal to parser.cpp).
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dsl/ast.h"
#include "dsl/grammar.h"
#include "dsl/parse_limits.h"

namespace tessera::dsl::parsing {

namespace pegtl = tao::pegtl;
namespace g = grammar;

// What the actions share while the grammar matches. Expressions are built bottom-up
// on `stack`; the grammar only fires an action once its rule can no longer be undone
// (alternatives are chosen by their first token), so the stack never holds debris.
struct ParseState {
  explicit ParseState(ModelDef& m) : model(m) {}

  ModelDef& model;
  int nesting = 0;  // nesting rules open now (limited_control, parse_limits.h)
  std::vector<ExprPtr> stack;
  std::vector<size_t> call_frames;  // stack index of each call whose arguments are open
  std::vector<std::vector<Statement>*> blocks;  // statement lists, innermost last
  // Parts of the declaration being parsed, collected until its rule completes.
  std::vector<ExprPtr> pending_dims;
  SourceLocation pending_dims_loc;
  std::string pending_file_name;
  SourceLocation pending_file_name_loc;
  std::string pending_hf_name;
  SourceLocation pending_hf_name_loc;
  bool pending_hf_transposed = false;
  std::string pending_fallback;
  SourceLocation pending_fallback_loc;
  Range pending_range;
  int current_group = -1;
  std::string pending_block_name;
  SourceLocation pending_block_loc;
  std::vector<std::string> pending_params;
  std::vector<SourceLocation> pending_param_locs;

  ExprPtr pop() {
    ExprPtr e = std::move(stack.back());
    stack.pop_back();
    return e;
  }
};

template <typename Input>
SourceLocation location(const Input& in) {
  const pegtl::position p = in.position();
  return SourceLocation{static_cast<int>(p.line), static_cast<int>(p.column), p.byte};
}

template <typename Input>
size_t end_offset(const Input& in) {
  return in.position().byte + in.size();
}

// The identifier a matched rule starts with (its declared or assigned name).
template <typename Input>
std::string leading_name(const Input& in) {
  const std::string_view text = in.string_view();
  size_t n = 0;
  while (n < text.size() && (std::isalnum(static_cast<unsigned char>(text[n])) || text[n] == '_')) {
    ++n;
  }
  return std::string(text.substr(0, n));
}

template <typename Input>
ExprPtr make_expr(ExprKind kind, const Input& in) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->loc = location(in);
  e->begin = e->loc.offset;
  e->end = end_offset(in);
  return e;
}

// Sets e.depth from its operands' and refuses a tree deeper than kMaxExpressionDepth
// (a long chain of operators: every pass over the tree recurses once per level).
template <typename Input>
void limit_depth(Expr& e, const Input& in) {
  int deepest = 0;
  for (const ExprPtr& a : e.args) deepest = std::max(deepest, a->depth);
  for (const NamedArg& n : e.named) deepest = std::max(deepest, n.value->depth);
  e.depth = deepest + 1;
  if (e.depth > kMaxExpressionDepth) {
    throw pegtl::parse_error("expression nested deeper than " + std::to_string(kMaxExpressionDepth) + " levels", in);
  }
}

template <typename Rule>
struct action : pegtl::nothing<Rule> {};

// ---- expressions ----------------------------------------------------------------
template <>
struct action<g::number> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr e = make_expr(ExprKind::Number, in);
    const std::string_view text = in.string_view();
    const char* first = text.data();
    const char* last = text.data() + text.size();
    e->is_integer = text.find_first_of(".eE") == std::string_view::npos;
    if (e->is_integer) {
      const auto r = std::from_chars(first, last, e->integer);
      if (r.ec != std::errc()) {
        throw pegtl::parse_error("integer '" + std::string(text) + "' is too large", in);
      }
      e->number = static_cast<double>(e->integer);
    } else {
      const auto r = std::from_chars(first, last, e->number);
      if (r.ec != std::errc()) {
        throw pegtl::parse_error("number '" + std::string(text) + "' is out of range", in);
      }
    }
    st.stack.push_back(std::move(e));
  }
};

template <>
struct action<g::flag_literal> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr e = make_expr(ExprKind::Number, in);
    e->is_integer = true;
    e->is_flag = true;
    e->integer = in.string_view() == "true" ? 1 : 0;
    e->number = static_cast<double>(e->integer);
    st.stack.push_back(std::move(e));
  }
};

template <>
struct action<g::string_literal> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr e = make_expr(ExprKind::String, in);
    const std::string_view text = in.string_view();
    e->text = std::string(text.substr(1, text.size() - 2));  // without the quotes
    st.stack.push_back(std::move(e));
  }
};

template <>
struct action<g::name_ref> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr e = make_expr(ExprKind::Name, in);
    e->text = in.string();
    st.stack.push_back(std::move(e));
  }
};

// `acme.fused_silu_mul`: a Name that its arguments make a Call, like name_ref's.
template <>
struct action<g::plugin_op_name> : action<g::name_ref> {};

template <>
struct action<g::call_open> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.stack.back()->kind = ExprKind::Call;
    st.call_frames.push_back(st.stack.size() - 1);
  }
};

template <>
struct action<g::named_arg> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr value = st.pop();
    Expr& call = *st.stack[st.call_frames.back()];
    call.named.push_back(NamedArg{leading_name(in), location(in), std::move(value)});
  }
};

template <>
struct action<g::positional_arg> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    if (!st.stack[st.call_frames.back()]->named.empty()) {
      throw pegtl::parse_error("a positional argument cannot follow named arguments", in);
    }
  }
};

template <>
struct action<g::call_suffix> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const size_t at = st.call_frames.back();
    st.call_frames.pop_back();
    Expr& call = *st.stack[at];
    for (size_t i = at + 1; i < st.stack.size(); ++i) call.args.push_back(std::move(st.stack[i]));
    st.stack.resize(at + 1);
    call.end = end_offset(in);
    limit_depth(call, in);
  }
};

template <>
struct action<g::plugin_call_args> : action<g::call_suffix> {};

template <>
struct action<g::index_suffix> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr index = st.pop();
    Expr& base = *st.stack.back();
    base.kind = ExprKind::Index;
    base.args.push_back(std::move(index));
    base.end = end_offset(in);
    limit_depth(base, in);
  }
};

template <>
struct action<g::paren_expr> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.stack.back()->begin = location(in).offset;
    st.stack.back()->end = end_offset(in);
    st.stack.back()->parenthesized = true;
  }
};

// `-x` or `!x` once x has been parsed: the matched text starts with the operator.
struct unary_action {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr e = make_expr(ExprKind::Unary, in);
    e->op = std::string(1, in.peek_char(0));
    e->op_loc = e->loc;
    e->args.push_back(st.pop());
    limit_depth(*e, in);
    st.stack.push_back(std::move(e));
  }
};
template <>
struct action<g::negation> : unary_action {};
template <>
struct action<g::logical_not> : unary_action {};

// The operator a binary tail's text starts with: two characters (<= >= == != && ||)
// or one.
inline std::string leading_operator(std::string_view text) {
  for (std::string_view two : {"<=", ">=", "==", "!=", "&&", "||"}) {
    if (text.substr(0, 2) == two) return std::string(two);
  }
  return std::string(text.substr(0, 1));
}

// `a op b` once b has been parsed: the matched text starts with the operator.
struct binary_action {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    ExprPtr rhs = st.pop();
    ExprPtr lhs = st.pop();
    ExprPtr e = make_expr(ExprKind::Binary, in);
    e->op = leading_operator(in.string_view());
    e->op_loc = e->loc;
    e->loc = lhs->loc;
    e->begin = lhs->begin;
    e->end = rhs->end;
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    limit_depth(*e, in);
    st.stack.push_back(std::move(e));
  }
};
template <>
struct action<g::product_tail> : binary_action {};
template <>
struct action<g::sum_tail> : binary_action {};
template <>
struct action<g::compare_tail> : binary_action {};
template <>
struct action<g::equality_tail> : binary_action {};
template <>
struct action<g::and_tail> : binary_action {};
template <>
struct action<g::or_tail> : binary_action {};

// ---- sections and declarations ----------------------------------------------------
template <>
struct action<g::model_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.model.name = in.string();
    st.model.name_loc = location(in);
  }
};

template <>
struct action<g::alias_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.model.aliases.push_back(in.string());
  }
};

// `"command-r"`: an architecture name that is not an identifier (llama.cpp spells
// several with dashes). It is matched against a file's architecture as it is, so only
// the characters such names use are allowed.
template <>
struct action<g::alias_string> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const std::string_view text = in.string_view();
    const std::string_view alias = text.substr(1, text.size() - 2);  // without the quotes
    if (alias.empty()) throw pegtl::parse_error("an architecture name in quotes must not be empty", in);
    for (char c : alias) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
        throw pegtl::parse_error("architecture name \"" + std::string(alias) + "\" may only hold letters, digits, "
                                 "'_', '-' and '.', not '" + std::string(1, c) + "'", in);
      }
    }
    st.model.aliases.emplace_back(alias);
  }
};

// `use "llama.tsr"`: the path as written; parser.cpp reads and merges the file.
template <>
struct action<g::use_path> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const std::string_view text = in.string_view();
    const std::string_view path = text.substr(1, text.size() - 2);  // without the quotes
    if (path.empty()) throw pegtl::parse_error("the file name after 'use' must not be empty", in);
    st.model.use_path = std::string(path);
    st.model.use_loc = location(in);
  }
};

template <typename Input>
void mark_section(const Input& in, ParseState& st) {
  st.model.sections.push_back(SectionMark{in.string(), location(in)});
}

template <>
struct action<g::kw_hparams> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    mark_section(in, st);
  }
};

template <>
struct action<g::kw_weights> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    mark_section(in, st);
  }
};

template <>
struct action<g::kw_forward> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    mark_section(in, st);
    st.model.forward_loc = location(in);
    st.blocks = {&st.model.forward};
  }
};

template <>
struct action<g::hparam_def> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.model.hparams.push_back(HParamDecl{leading_name(in), location(in), st.pop()});
  }
};

// `require a, b`: each condition once parsed.
template <>
struct action<g::requirement> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.model.requirements.push_back(Requirement{location(in), st.pop()});
  }
};
template <>
struct action<g::next_requirement> : action<g::requirement> {};

template <>
struct action<g::dim_open> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.pending_dims_loc = location(in);
  }
};

template <>
struct action<g::dim> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.pending_dims.push_back(st.pop());
  }
};

template <>
struct action<g::weight_file> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const std::string_view text = in.string_view();
    st.pending_file_name = std::string(text.substr(1, text.size() - 2));
    st.pending_file_name_loc = location(in);
  }
};

struct hf_file_action {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    const std::string_view text = in.string_view();
    st.pending_hf_name = std::string(text.substr(1, text.size() - 2));
    st.pending_hf_name_loc = location(in);
  }
};
template <>
struct action<g::hf_file> : hf_file_action {};
template <>
struct action<g::hf_transposed_file> : hf_file_action {};

template <>
struct action<g::hf_transposed> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.pending_hf_transposed = true;
  }
};

template <>
struct action<g::fallback_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.pending_fallback = in.string();
    st.pending_fallback_loc = location(in);
  }
};

template <>
struct action<g::weight_def> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    WeightDecl w;
    w.name = leading_name(in);
    w.loc = location(in);
    w.dims_loc = st.pending_dims_loc;
    w.dims = std::move(st.pending_dims);
    w.file_name = std::move(st.pending_file_name);
    w.file_name_loc = st.pending_file_name_loc;
    w.hf_name = std::move(st.pending_hf_name);
    w.hf_name_loc = st.pending_hf_name_loc;
    w.hf_transposed = st.pending_hf_transposed;
    w.fallback = std::move(st.pending_fallback);
    w.fallback_loc = st.pending_fallback_loc;
    w.group = st.current_group;
    st.model.weights.push_back(std::move(w));
    st.pending_dims.clear();
    st.pending_file_name.clear();
    st.pending_hf_name.clear();
    st.pending_hf_transposed = false;
    st.pending_fallback.clear();
  }
};

template <>
struct action<g::loop_var> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.pending_range.var = in.string();
    st.pending_range.var_loc = location(in);
  }
};

template <>
struct action<g::range_begin> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.pending_range.begin = st.pop();
  }
};

template <>
struct action<g::range_end> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.pending_range.end = st.pop();
  }
};

template <>
struct action<g::layer_header> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.model.layer_groups.push_back(LayerGroup{location(in), std::move(st.pending_range)});
    st.current_group = static_cast<int>(st.model.layer_groups.size()) - 1;
  }
};

template <>
struct action<g::layer_group> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.current_group = -1;
  }
};

// ---- forward statements --------------------------------------------------------
template <>
struct action<g::for_header> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    Statement s;
    s.kind = Statement::Kind::For;
    s.loc = location(in);
    s.range = std::move(st.pending_range);
    st.blocks.back()->push_back(std::move(s));
    st.blocks.push_back(&st.blocks.back()->back().body);
  }
};

template <>
struct action<g::for_loop> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    st.blocks.pop_back();
  }
};

template <>
struct action<g::assignment> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    Statement s;
    s.kind = Statement::Kind::Assign;
    s.loc = location(in);
    s.text = collapse_blanks(in.string_view());
    s.target = leading_name(in);
    s.value = st.pop();
    st.blocks.back()->push_back(std::move(s));
  }
};

// ---- blocks -----------------------------------------------------------------------
template <>
struct action<g::block_name> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.pending_block_name = in.string();
    st.pending_block_loc = location(in);
    st.pending_params.clear();
    st.pending_param_locs.clear();
  }
};

template <>
struct action<g::block_param> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    st.pending_params.push_back(in.string());
    st.pending_param_locs.push_back(location(in));
  }
};

template <>
struct action<g::block_header> {
  template <typename Input>
  static void apply(const Input&, ParseState& st) {
    BlockDef b;
    b.name = std::move(st.pending_block_name);
    b.loc = st.pending_block_loc;
    b.params = std::move(st.pending_params);
    b.param_locs = std::move(st.pending_param_locs);
    st.model.blocks.push_back(std::move(b));
    st.blocks = {&st.model.blocks.back().body};
  }
};

template <>
struct action<g::return_statement> {
  template <typename Input>
  static void apply(const Input& in, ParseState& st) {
    Statement s;
    s.kind = Statement::Kind::Return;
    s.loc = location(in);
    s.text = collapse_blanks(in.string_view());
    s.value = st.pop();
    st.blocks.back()->push_back(std::move(s));
  }
};

}  // namespace tessera::dsl::parsing
