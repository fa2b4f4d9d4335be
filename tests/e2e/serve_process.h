// A `tessera serve` process for end-to-end tests: started on a free loopback port
// (--port 0; the port read from its "listening on" line), its stderr in a file, and
// stopped with a signal, its exit status returned.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/run_command.h"
#include "support/temp_path.h"
#include "support/testdata.h"

namespace tessera::test {

class ServeProcess {
 public:
  // `args` follow "tessera serve --port 0"; `env` entries ("NAME=VALUE") are added to
  // the environment. Throws std::runtime_error when no port shows within 60 s.
  explicit ServeProcess(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    static int counter = 0;
    log_ = temp_path("serve-" + std::to_string(counter++) + ".err");
    std::vector<std::string> argv = {tessera_exe(), "serve", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) exec_child(argv, env);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+))");
    while (std::chrono::steady_clock::now() < deadline) {
      std::smatch m;
      const std::string err = stderr_text();
      if (std::regex_search(err, m, listening)) {
        port_ = std::stoi(m[1]);
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) throw std::runtime_error("tessera serve exited: " + err);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("tessera serve printed no port: " + stderr_text());
  }
  ~ServeProcess() {
    if (pid_ > 0) stop(SIGKILL);
    std::remove(log_.c_str());
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::string stderr_text() const { return read_all(log_); }

  // Sends `signal` and waits for the exit: the exit code, or 128 + the signal that killed it.
  int stop(int signal = SIGTERM) {
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  [[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDIN_FILENO);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }

  std::string log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// curl's answer: the body, then "\n" and the HTTP status on the last line.
struct CurlReply {
  int status = 0;
  std::string body;
};

inline CurlReply curl(const std::string& args) {
  const CommandResult r = run_command("curl -sS -N -w '\\n%{http_code}' " + args);
  CurlReply reply;
  const size_t cut = r.out.rfind('\n');
  reply.body = cut == std::string::npos ? "" : r.out.substr(0, cut);
  reply.status = std::atoi(r.out.substr(cut == std::string::npos ? 0 : cut + 1).c_str());
  return reply;
}

}  // namespace tessera::test
