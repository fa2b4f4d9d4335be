// Runs a shell command for end-to-end tests and captures its exit code, stdout
// and stderr (through temporary files, so large outputs never block).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace tessera::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Quotes one argument for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline CommandResult run_command(const std::string& command) {
  static int counter = 0;
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("tessera_cmd_" + std::to_string(getpid()) + "_" + std::to_string(counter++)))
                               .string();
  const int status = std::system((command + " >" + base + ".out 2>" + base + ".err").c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_all(base + ".out");
  r.err = read_all(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

}  // namespace tessera::test
