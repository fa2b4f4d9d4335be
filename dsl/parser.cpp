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
#include "core/util/text_file.h"

namespace tessera::dsl {
namespace {

// Definitions are a few KiB; anything this large is not one (or is /dev/zero).
constexpr uint64_t kMaxDefinitionBytes = uint64_t{4} << 20;

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
    pegtl::parse<g::model_file, action, g::limited_control>(in, state);
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
  std::string text;
  try {
    text = read_text_file(path, kMaxDefinitionBytes, "a model definition");
  } catch (const tessera::Error& e) {
    // "<path>: <cause>": the diagnostic names the file itself.
    const std::string message = e.what();
    std::string cause = message.rfind(path + ": ", 0) == 0 ? message.substr(path.size() + 2) : message;
    if (cause.rfind("cannot open: ", 0) == 0) cause = cause.substr(13);
    throw make_error(SourceText{path, ""}, SourceLocation{}, "cannot read the model file: " + cause);
  }
  return parse_model(text, path);
}

}  // namespace tessera::dsl
