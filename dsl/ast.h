// The syntax tree of a model definition (.tsr file) as the parser builds it. Every
// node keeps its source location so that later passes can point at the offending text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::dsl {

// `else none`: the weight is optional (a bias some checkpoints of a family lack).
inline constexpr std::string_view kAbsentFallback = "none";

// A place in the source: 1-based line and byte column, and the byte offset.
struct SourceLocation {
  int line = 0;
  int column = 0;
  size_t offset = 0;
};

// A file whose text follows the first one's in a SourceText: a definition that one of
// them names with `use`. It begins at byte `begin`, after a separating line break.
struct SourcePart {
  size_t begin = 0;
  std::string file_name;
};

// The text of a model definition with the name it is reported under. A definition that
// `use`s another holds the texts of both (and of the bases' bases) one after the other,
// so every offset in the syntax tree is one number; line numbers count within each file.
struct SourceText {
  SourceText() = default;
  SourceText(std::string name, std::string contents) : file_name(std::move(name)), text(std::move(contents)) {}

  std::string file_name;
  std::string text;
  std::vector<SourcePart> parts;  // the files after the first; empty for a single file

  // The text of line `line` (1-based) without its line break; empty if out of range.
  std::string_view line_at(int line) const;
  // Line `line` of the file that holds byte `offset`.
  std::string_view line_at(int line, size_t offset) const;
  // The name of the file that holds byte `offset`.
  const std::string& file_at(size_t offset) const;
  // Where the text of the file named `file` begins (0 when no part has that name).
  size_t begin_of(std::string_view file) const;
  // Bytes [begin, end) of the text.
  std::string_view slice(size_t begin, size_t end) const;
};

enum class ExprKind {
  Number,  // 8, 1e-5, 10000.0, true, false
  String,  // "blk.{i}.attn_q.weight"
  Name,    // x, d_model, tok_embd, i, neox
  Index,   // wq[i]: args[0] is the index
  Call,    // rms_norm(x, w, eps: norm_eps): args are positional, `named` the attributes
  Unary,   // -x, !x: args[0]
  Binary,  // a + b, i % 4 == 3, a && b: args[0] op args[1]
};

// The kinds of binary operator: + - * / % compute; < <= > >= (relational) and == !=
// (equality) compare numbers, && || combine them; both give 1 or 0.
bool is_arithmetic_operator(std::string_view op);
bool is_relational_operator(std::string_view op);
bool is_equality_operator(std::string_view op);

// What an expression evaluates to; filled in by the semantic check.
enum class ValueType { Unknown, Tensor, Scalar, String, Choice };

// What a Name refers to; filled in by the semantic check.
enum class NameKind { Unresolved, Variable, Weight, HParam, LoopVar, Choice };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// `name: value` inside a call.
struct NamedArg {
  std::string name;
  SourceLocation loc;
  ExprPtr value;
};

struct Expr {
  ExprKind kind = ExprKind::Number;
  SourceLocation loc;       // first character
  SourceLocation op_loc;    // Unary/Binary: the operator
  size_t begin = 0;         // source bytes [begin, end) of the whole expression
  size_t end = 0;
  std::string text;         // Name/Index/Call: the name; String: the contents
  double number = 0;        // Number: the value
  bool is_integer = false;  // Number: written without '.' or exponent
  int64_t integer = 0;      // Number: the value when is_integer
  bool is_flag = false;     // Number: written `true` (integer 1) or `false` (0)
  // Unary: "-", "!"; Binary: "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=",
  // "&&", "||".
  std::string op;
  bool parenthesized = false;  // written in parentheses: (a < b)
  std::vector<ExprPtr> args;
  std::vector<NamedArg> named;

  int depth = 1;            // levels of this tree (parse_limits.h bounds it)
  ValueType type = ValueType::Unknown;      // set by the semantic check
  NameKind name_kind = NameKind::Unresolved;  // Name/Index: set by the semantic check
};

// `var in begin .. end`: the half-open integer range [begin, end).
struct Range {
  std::string var;
  SourceLocation var_loc;
  ExprPtr begin;
  ExprPtr end;
};

// The value of the named argument `name` of a call (`hf: "key"`), or nullptr.
const Expr* named_value(const Expr& call, std::string_view name);

// `text` on one line, for messages and node labels: comments dropped, blanks collapsed.
std::string collapse_blanks(std::string_view text);

struct HParamDecl {
  std::string name;
  SourceLocation loc;
  ExprPtr value;
};

// One condition of `require a, b` in the hparams section: the hyper-parameters must
// meet it. It is checked as soon as every hyper-parameter it names has its value.
struct Requirement {
  SourceLocation loc;  // the condition's first character
  ExprPtr condition;
};

// `layer i in 0 .. n_layers { ... }` in the weights section: one tensor per index.
struct LayerGroup {
  SourceLocation loc;
  Range range;
};

// `name [dims] = "file name" else fallback`.
struct WeightDecl {
  std::string name;
  SourceLocation loc;
  SourceLocation dims_loc;           // the '['
  std::vector<ExprPtr> dims;         // outermost first
  std::string file_name;             // may hold {i}, {arch} or {hparam} placeholders
  SourceLocation file_name_loc;
  std::string hf_name;               // the name in a Hugging Face folder; "" = none given
  SourceLocation hf_name_loc;
  bool hf_transposed = false;        // the Hugging Face tensor is stored [in, out]
  std::string fallback;              // weight used when the file lacks this one; "" = none;
                                     // kAbsentFallback: the weight may be absent
  SourceLocation fallback_loc;
  int group = -1;                    // index into ModelDef::layer_groups; -1 = one tensor
};

struct Statement {
  enum class Kind { Assign, For, Return };
  Kind kind = Kind::Assign;
  SourceLocation loc;
  std::string text;        // Assign: the statement's source, blanks collapsed (node labels)
  std::string target;      // Assign: the variable
  ExprPtr value;           // Assign, Return
  Range range;             // For
  std::vector<Statement> body;  // For
};

// `block NAME(a, b) { statements; return expr }`: a named piece of the forward
// computation, called like an op; it sees its parameters, hyper-parameters, weights and
// blocks defined before it.
struct BlockDef {
  std::string name;
  SourceLocation loc;
  std::vector<std::string> params;
  std::vector<SourceLocation> param_locs;
  std::vector<Statement> body;  // ends with a Return
};

// A top-level section as it appeared (to report duplicates and missing ones).
struct SectionMark {
  std::string keyword;  // "hparams", "weights", "forward"
  SourceLocation loc;
};

struct ModelDef {
  SourceText source;
  std::string name;
  SourceLocation name_loc;
  std::vector<std::string> aliases;  // `model phi2, phi`: other architecture names it serves
  std::string use_path;              // `use "llama.tsr"`: the definition it extends, as written; "" = none
  SourceLocation use_loc;            // the quoted path
  std::vector<SectionMark> sections;
  std::vector<HParamDecl> hparams;
  std::vector<Requirement> requirements;  // in the order written
  std::vector<LayerGroup> layer_groups;
  std::vector<WeightDecl> weights;
  std::vector<Statement> forward;
  SourceLocation forward_loc;  // the `forward` keyword
  std::vector<BlockDef> blocks;  // in definition order

  const HParamDecl* find_hparam(std::string_view name) const;  // nullptr if absent
  const WeightDecl* find_weight(std::string_view name) const;  // nullptr if absent
  const BlockDef* find_block(std::string_view name) const;     // nullptr if absent
  // Whether the forward section or a block calls an op a plugin declares (`acme.x(...)`):
  // compiling it then needs the loaded plugins' declarations.
  bool calls_plugin_ops() const;
};

}  // namespace tessera::dsl
