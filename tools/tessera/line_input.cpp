#include "tools/tessera/line_input.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "core/util/error.h"

#if TESSERA_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

namespace tessera::cli {

LineInput::LineInput() : interactive_(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
#if TESSERA_HAVE_LIBEDIT
  editing_ = interactive_;
  if (editing_) using_history();
#endif
}

LineInput::~LineInput() = default;

std::optional<std::string> LineInput::read_line(const std::string& prompt) {
#if TESSERA_HAVE_LIBEDIT
  if (editing_) {
    errno = 0;
    char* line = readline(prompt.c_str());
    if (line == nullptr) return std::nullopt;
    std::string text = line;
    std::free(line);
    return text;
  }
#endif
  if (interactive_) {
    std::fputs(prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  std::string text;
  if (!std::getline(std::cin, text)) {
    std::cin.clear();
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> LineInput::read(const std::string& prompt) {
  std::optional<std::string> line = read_line(prompt);
  if (!line) return std::nullopt;
  std::string entry = *line;
  while (!entry.empty() && entry.back() == '\\') {
    entry.back() = '\n';
    std::optional<std::string> more = read_line("... ");
    if (!more) break;
    entry += *more;
  }
#if TESSERA_HAVE_LIBEDIT
  if (editing_ && !entry.empty()) add_history(entry.c_str());
#endif
  return entry;
}

std::string read_all_stdin(size_t max_bytes) {
  std::string text;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    text.append(buf, n);
    if (text.size() > max_bytes) {
      throw Error("standard input is longer than " + std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  return text;
}

}  // namespace tessera::cli
