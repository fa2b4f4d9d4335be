// Reading what the user types in `tessera chat`: with line editing and history (libedit)
// when standard input and output are a terminal and the build has libedit, else plain
// lines. A line ending in a backslash continues on the next one.
#pragma once

#include <optional>
#include <string>

namespace tessera::cli {

class LineInput {
 public:
  LineInput();
  ~LineInput();
  LineInput(const LineInput&) = delete;
  LineInput& operator=(const LineInput&) = delete;

  // The next entry (its continuation lines joined with newlines), or nullopt at the
  // end of the input. `prompt` is shown on a terminal only.
  std::optional<std::string> read(const std::string& prompt);
  bool interactive() const { return interactive_; }
  // Whether the line editor is in use (a terminal and a build with libedit).
  bool editing() const { return editing_; }

 private:
  std::optional<std::string> read_line(const std::string& prompt);

  bool interactive_ = false;
  bool editing_ = false;
};

// Reads all of standard input (a piped question), at most `max_bytes`; throws
// tessera::Error beyond that.
std::string read_all_stdin(size_t max_bytes);

}  // namespace tessera::cli
