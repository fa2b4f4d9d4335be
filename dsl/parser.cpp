// The parser of model definitions: runs the grammar with the AST-building actions
// (parse_actions.h), turns parse errors into DslErrors, and runs the semantic check.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "dsl/grammar.h"
#include "dsl/grammar_errors.h"
#include "dsl/parse_actions.h"
#include "dsl/parse.h"
#include "dsl/semantic.h"

namespace tessera::dsl {
namespace {

namespace pegtl = tao::pegtl;
namespace g = grammar;
using parsing::action;
using parsing::ParseState;

// ---- errors -------------------------------------------------------------------------
// The token at `offset`, to say what was found where something else was expected.
std::string token_at(const std::string& text, size_t offset) {
  if (offset >= text.size()) return "end of file";
  const auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  const char c = text[offset];
  if (c == '\n' || c == '\r') return "end of line";
  size_t n = 1;
  if (is_word(c)) {
    while (offset + n < text.size() && is_word(text[offset + n])) ++n;
  }
  return "'" + text.substr(offset, n) + "'";
}

DslError syntax_error(const SourceText& source, const pegtl::parse_error& e) {
  const pegtl::position& p = e.positions().front();
  SourceLocation loc{static_cast<int>(p.line), static_cast<int>(p.column), p.byte};
  if (p.byte >= source.text.size() && p.column == 1 && p.line > 1) {
    // At the end of a file that ends with a line break: point after the last line.
    loc.line -= 1;
    loc.column = static_cast<int>(source.line_at(loc.line).size()) + 1;
  }
  std::string message(e.message());
  if (message.rfind("expected", 0) == 0) message += ", found " + token_at(source.text, p.byte);
  return make_error(source, loc, std::move(message));
}

}  // namespace

std::unique_ptr<ModelDef> parse_syntax(std::string_view source, std::string file_name) {
  auto model = std::make_unique<ModelDef>();
  model->source.file_name = std::move(file_name);
  model->source.text = std::string(source);
  ParseState state(*model);
  pegtl::memory_input<> in(model->source.text, model->source.file_name);
  try {
    pegtl::parse<g::model_file, action, g::error_control>(in, state);
  } catch (const pegtl::parse_error& e) {
    throw syntax_error(model->source, e);
  }
  return model;
}

std::shared_ptr<const ModelDef> parse_model(std::string_view source, std::string file_name) {
  std::unique_ptr<ModelDef> model = parse_syntax(source, std::move(file_name));
  check_model(*model);
  return std::shared_ptr<const ModelDef>(std::move(model));
}

std::shared_ptr<const ModelDef> parse_model_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const std::string why = std::strerror(errno);
    throw make_error(SourceText{path, ""}, SourceLocation{},
                     "cannot read the model file: " + why);
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse_model(text.str(), path);
}

}  // namespace tessera::dsl
