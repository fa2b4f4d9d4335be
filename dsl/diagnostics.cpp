#include "dsl/diagnostics.h"

#include <algorithm>
#include <utility>

namespace tessera::dsl {

DslError::DslError(std::string file, int line, int column, std::string message,
                   std::string rendered)
    : tessera::Error(rendered),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

std::string render_diagnostic(const SourceText& source, SourceLocation loc,
                              std::string_view message) {
  std::string out = source.file_at(loc.offset);
  if (loc.line > 0) {
    out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
  }
  out += ": error: ";
  out += message;
  out += "\n";
  if (loc.line <= 0) return out;
  const std::string_view line = source.line_at(loc.line, loc.offset);
  out += line;
  out += "\n";
  // The caret line keeps the tabs of the source line so the caret lines up.
  const size_t caret_at = static_cast<size_t>(std::max(loc.column, 1) - 1);
  for (size_t i = 0; i < caret_at; ++i) {
    out += (i < line.size() && line[i] == '\t') ? '\t' : ' ';
  }
  out += "^\n";
  return out;
}

DslError make_error(const SourceText& source, SourceLocation loc, std::string message) {
  std::string rendered = render_diagnostic(source, loc, message);
  return DslError(source.file_at(loc.offset), loc.line, loc.column, std::move(message),
                  std::move(rendered));
}

void fail_at(const SourceText& source, SourceLocation loc, std::string message) {
  throw make_error(source, loc, std::move(message));
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Rows i-2, i-1 and i of the dynamic programme over prefixes of a and b.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);  // swapped neighbours
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest_match(std::string_view name, const std::vector<std::string>& candidates) {
  // A third of the name's length, at least 1 and at most 3 edits, counts as a typo.
  const size_t allowed = std::clamp<size_t>(name.size() / 3, 1, 3);
  std::string best;
  size_t best_distance = allowed + 1;
  for (const std::string& c : candidates) {
    if (c == name) continue;
    const size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (!best.empty()) return best;
  // A shortened or lengthened name (eps / epsilon) is a likely slip too.
  for (const std::string& c : candidates) {
    const std::string_view shorter = c.size() < name.size() ? std::string_view(c) : name;
    const std::string_view longer = c.size() < name.size() ? name : std::string_view(c);
    if (shorter.size() >= 3 && longer.substr(0, shorter.size()) == shorter) return c;
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string best = nearest_match(name, candidates);
  return best.empty() ? std::string() : "; did you mean '" + best + "'?";
}

}  // namespace tessera::dsl
