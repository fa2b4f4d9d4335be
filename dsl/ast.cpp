#include "dsl/ast.h"

#include <algorithm>
#include <cctype>

namespace tessera::dsl {

bool is_arithmetic_operator(std::string_view op) {
  return op == "+" || op == "-" || op == "*" || op == "/" || op == "%";
}

bool is_relational_operator(std::string_view op) { return op == "<" || op == "<=" || op == ">" || op == ">="; }

bool is_equality_operator(std::string_view op) { return op == "==" || op == "!="; }

const Expr* named_value(const Expr& call, std::string_view name) {
  for (const NamedArg& n : call.named) {
    if (n.name == name) return n.value.get();
  }
  return nullptr;
}

std::string collapse_blanks(std::string_view text) {
  std::string out;
  bool in_string = false;
  bool in_comment = false;
  for (char c : text) {
    if (in_comment) {
      if (c == '\n') in_comment = false;
      else continue;
    }
    if (c == '"') in_string = !in_string;
    if (c == '#' && !in_string) {
      in_comment = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) && !in_string) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {

// Line `line` (1-based) of `text`, without its line break; empty if out of range.
std::string_view nth_line(std::string_view text, int line) {
  if (line < 1) return {};
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  size_t stop = text.find('\n', start);
  if (stop == std::string_view::npos) stop = text.size();
  if (stop > start && text[stop - 1] == '\r') --stop;  // CRLF files
  return text.substr(start, stop - start);
}

}  // namespace

std::string_view SourceText::line_at(int line) const { return nth_line(text, line); }

std::string_view SourceText::line_at(int line, size_t offset) const {
  size_t begin = 0;
  size_t end = text.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].begin > offset) {
      end = std::min(end, parts[i].begin - 1);  // before the separating line break
      break;
    }
    begin = parts[i].begin;
  }
  if (begin > end) return {};
  return nth_line(std::string_view(text).substr(begin, end - begin), line);
}

const std::string& SourceText::file_at(size_t offset) const {
  const std::string* name = &file_name;
  for (const SourcePart& p : parts) {
    if (p.begin > offset) break;
    name = &p.file_name;
  }
  return *name;
}

size_t SourceText::begin_of(std::string_view file) const {
  for (const SourcePart& p : parts) {
    if (p.file_name == file) return p.begin;
  }
  return 0;
}

std::string_view SourceText::slice(size_t begin, size_t end) const {
  if (begin > text.size() || end < begin) return {};
  return std::string_view(text).substr(begin, end - begin);
}

const HParamDecl* ModelDef::find_hparam(std::string_view wanted) const {
  for (const HParamDecl& h : hparams) {
    if (h.name == wanted) return &h;
  }
  return nullptr;
}

const WeightDecl* ModelDef::find_weight(std::string_view wanted) const {
  for (const WeightDecl& w : weights) {
    if (w.name == wanted) return &w;
  }
  return nullptr;
}

namespace {

bool has_plugin_call(const Expr& e) {
  if (e.kind == ExprKind::Call && e.text.find('.') != std::string::npos) return true;
  for (const ExprPtr& a : e.args) {
    if (has_plugin_call(*a)) return true;
  }
  for (const NamedArg& n : e.named) {
    if (has_plugin_call(*n.value)) return true;
  }
  return false;
}

bool has_plugin_call(const std::vector<Statement>& body) {
  for (const Statement& s : body) {
    if ((s.value && has_plugin_call(*s.value)) || has_plugin_call(s.body)) return true;
  }
  return false;
}

}  // namespace

bool ModelDef::calls_plugin_ops() const {
  if (has_plugin_call(forward)) return true;
  for (const BlockDef& b : blocks) {
    if (has_plugin_call(b.body)) return true;
  }
  return false;
}

const BlockDef* ModelDef::find_block(std::string_view wanted) const {
  for (const BlockDef& b : blocks) {
    if (b.name == wanted) return &b;
  }
  return nullptr;
}

}  // namespace tessera::dsl
