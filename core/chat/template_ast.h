// The syntax tree of a chat template (the Jinja2 subset real templates use): text,
// {{ expressions }} and {% statements %}, each node with its place in the source.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/chat/template_value.h"

namespace tessera::chat {

struct SourcePos {
  int line = 1;
  int column = 1;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    Literal,     // value
    Name,        // name
    List,        // items
    Dict,        // items as key, value pairs
    Attribute,   // items[0].name
    Subscript,   // items[0][items[1]]
    Slice,       // items[0][items[1]:items[2]:items[3]] (null parts are open)
    Call,        // items[0](items[1..]), keyword arguments in keywords
    Filter,      // items[0] | name(items[1..], keywords)
    Test,        // items[0] is [not] name(items[1..]); negated
    Unary,       // op items[0]: "not", "-", "+"
    Binary,      // items[0] op items[1]: or and == != < > <= >= in "not in" + - * / // % ** ~
    Conditional, // items[0] if items[1] else items[2] (items[2] null: undefined)
  };
  Kind kind = Kind::Literal;
  SourcePos pos;
  Value value;
  std::string name;  // Name, Attribute, Filter, Test; the operator of Unary and Binary
  std::vector<ExprPtr> items;
  std::vector<std::pair<std::string, ExprPtr>> keywords;
  bool negated = false;
};

struct Node;
using NodeList = std::vector<Node>;

struct Node {
  enum class Kind { Text, Output, If, For, Set, Break, Continue };
  Kind kind = Kind::Text;
  SourcePos pos;
  std::string text;                 // Text
  ExprPtr expr;                     // Output; For: the iterable; Set: the value
  // If: one (condition, body) per if/elif, condition null for else.
  std::vector<std::pair<ExprPtr, NodeList>> branches;
  std::vector<std::string> targets;  // For: loop variables; Set: the name, or namespace and field
  ExprPtr filter;                   // For: `if` condition on items
  NodeList body, else_body;         // For
  bool set_field = false;           // Set: targets = {namespace, field}
};

}  // namespace tessera::chat
