// The parser of model definitions: runs the grammar with the AST-building actions
// (parse_actions.h), turns parse errors into DslErrors, and runs the semantic check.
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "dsl/composition.h"
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

// Parses bytes [begin, end) of `source.text`, a file of its own named `file_name` (its
// lines count from 1), into `model`; the syntax tree's offsets count from the start of
// `source.text`. A syntax error is reported against that file alone.
void parse_part(ModelDef& model, const SourceText& source, size_t begin, size_t end, const std::string& file_name) {
  ParseState state(model);
  pegtl::memory_input<> in(source.text.data() + begin, source.text.data() + end, file_name, begin, 1, 1);
  try {
    pegtl::parse<g::model_file, action, g::limited_control>(in, state);
  } catch (const pegtl::parse_error& e) {
    if (begin == 0 && end == source.text.size()) throw syntax_error(source, e);
    const pegtl::position& p = e.positions().front();
    const pegtl::parse_error in_file(std::string(e.message()),
                                     pegtl::position(p.byte - begin, p.line, p.column, file_name));
    throw syntax_error(SourceText{file_name, source.text.substr(begin, end - begin)}, in_file);
  }
}

// ---- use "base.tsr" ---------------------------------------------------------------------
namespace fs = std::filesystem;

// A definition on the chain of `use` being read: its identity, its name in messages
// (the file name without folders) and where it says `use`.
struct ChainLink {
  fs::path canonical;
  std::string display;
  SourceLocation use_loc;
};

fs::path canonical_of(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

std::string display_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return name.empty() ? path : name;
}

// Reads the definition `model` (in file `file_name`, the last link of `chain`) uses,
// appends its text to `source`, parses it, merges the bases it uses in turn, and then
// merges it into `model`.
void resolve_use(ModelDef& model, const std::string& file_name, SourceText& source, std::vector<ChainLink>& chain) {
  const fs::path folder = fs::path(file_name).parent_path();
  const fs::path written(model.use_path);
  const std::string path = (written.is_absolute() || folder.empty() ? written : folder / written).string();
  const fs::path canonical = canonical_of(path);
  chain.back().use_loc = model.use_loc;
  for (size_t i = 0; i < chain.size(); ++i) {
    if (chain[i].canonical != canonical) continue;
    std::string message = "'use' cycle: " + chain[i].display;
    for (size_t j = i + 1; j < chain.size(); ++j) {
      message += (j == i + 1 ? " uses " : ", which uses ") + chain[j].display;
    }
    message += (i + 1 == chain.size() ? " uses " : ", which uses ") + chain[i].display;
    throw make_error(source, chain[i].use_loc, std::move(message));
  }
  if (chain.size() > static_cast<size_t>(kMaxUseDepth)) {
    throw make_error(source, model.use_loc,
                     "'use' chain too deep: " + path + " would be base number " + std::to_string(chain.size()) +
                         ", and at most " + std::to_string(kMaxUseDepth) + " are allowed");
  }
  std::string text;
  try {
    text = read_text_file(path, kMaxDefinitionBytes, "a model definition");
  } catch (const tessera::Error& e) {
    const std::string message = e.what();
    std::string cause = message.rfind(path + ": ", 0) == 0 ? message.substr(path.size() + 2) : message;
    if (cause.rfind("cannot open: ", 0) == 0) cause = cause.substr(13);
    throw make_error(source, model.use_loc, "cannot read " + path + ", the definition 'use' names: " + cause);
  }
  source.text += '\n';
  const size_t begin = source.text.size();
  source.text += text;
  source.parts.push_back(SourcePart{begin, path});

  ModelDef base;
  parse_part(base, source, begin, source.text.size(), path);
  if (!base.use_path.empty()) {
    chain.push_back(ChainLink{canonical, display_name(path), {}});
    resolve_use(base, path, source, chain);
    chain.pop_back();
  }
  merge_base(model, std::move(base));
}

}  // namespace

std::unique_ptr<ModelDef> parse_syntax(std::string_view source, std::string file_name) {
  auto model = std::make_unique<ModelDef>();
  model->source.file_name = std::move(file_name);
  model->source.text = std::string(source);
  parse_part(*model, model->source, 0, model->source.text.size(), model->source.file_name);
  if (!model->use_path.empty()) {
    std::vector<ChainLink> chain{
        ChainLink{canonical_of(model->source.file_name), display_name(model->source.file_name), {}}};
    resolve_use(*model, model->source.file_name, model->source, chain);
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
