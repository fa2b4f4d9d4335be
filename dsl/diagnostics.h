// Diagnostics of the model DSL: the DslError exception (file:line:col, message, the
// source line and a caret) and the "did you mean" hints for misspelt names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"
#include "dsl/ast.h"

namespace tessera::dsl {

// An error in a model definition. what() is the full rendering:
//   models/bad.tsr:12:9: error: unknown op 'rms_nrom'; did you mean 'rms_norm'?
//       h = rms_nrom(x, attn_norm[i], eps: norm_eps)
//           ^
// line and column are 1-based (column counts bytes); both are 0 when the error is
// about the file as a whole (e.g. it cannot be read).
class DslError : public tessera::Error {
 public:
  DslError(std::string file, int line, int column, std::string message, std::string rendered);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }  // without location or source

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

// "file:line:col: error: message\n<source line>\n<caret>\n" (the location prefix is
// just "file: " when loc.line is 0).
std::string render_diagnostic(const SourceText& source, SourceLocation loc,
                              std::string_view message);

// Builds the DslError for `message` at `loc` in `source`.
DslError make_error(const SourceText& source, SourceLocation loc, std::string message);
[[noreturn]] void fail_at(const SourceText& source, SourceLocation loc, std::string message);

// Edit distance with adjacent transpositions (optimal string alignment).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name` if it is close enough to be a likely typo (a few
// edits, or one is a prefix of the other: eps / epsilon), else "".
std::string nearest_match(std::string_view name, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" for the nearest candidate, or "" when none is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace tessera::dsl
