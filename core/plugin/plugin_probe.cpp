#include "core/plugin/plugin_probe.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <sstream>

#include "core/plugin/plugin_library.h"

namespace tessera {
namespace {

// The child's report, one field per line: "ok", name, extends, then one op a line; or
// "error" and the message.
std::string describe(const std::filesystem::path& file) {
  try {
    // Never released: unloading would run the library's exit code in the child, whose
    // output (say, statistics printed on unload) is not the program's.
    const auto& plugin = *new std::shared_ptr<const PluginLibrary>(PluginLibrary::load(file));
    std::string out = "ok\n" + plugin->name() + "\n" + plugin->extends() + "\n";
    for (const tsr_op_decl& d : plugin->op_decls()) out += std::string(d.name) + "\n";
    // Backends list their devices here too: a fault there is caught as well.
    for (int32_t i = 0; i < plugin->device_count(); ++i) plugin->device_info(i);
    return out;
  } catch (const std::exception& e) {
    return std::string("error\n") + e.what();
  }
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Reads the child's report until it closes the pipe or `timeout` passes; false on timeout.
bool read_report(int fd, std::chrono::milliseconds timeout, std::string* out) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;  // timed out, or the pipe cannot be waited on: the child is killed
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // the child closed the pipe (exited)
    out->append(buf, static_cast<size_t>(n));
  }
}

PluginProbe parse_report(const std::filesystem::path& file, const std::string& report) {
  PluginProbe p;
  p.path = file.string();
  std::istringstream in(report);
  std::string status;
  std::getline(in, status);
  if (status == "ok") {
    p.ok = true;
    std::getline(in, p.name);
    std::getline(in, p.extends);
    for (std::string op; std::getline(in, op);) {
      if (!op.empty()) p.ops.push_back(op);
    }
  } else if (status == "error") {
    p.failure = report.substr(6);
  } else {
    p.failure = p.path + ": the process loading it ended without a report";
  }
  return p;
}

}  // namespace

PluginProbe probe_plugin(const std::filesystem::path& file, std::chrono::milliseconds timeout) {
  PluginProbe failed;
  failed.path = file.string();
  int fds[2];
  if (::pipe(fds) != 0) {
    failed.failure = failed.path + ": cannot probe: pipe: " + strerror(errno);
    return failed;
  }
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t pid = ::fork();
  if (pid < 0) {
    failed.failure = failed.path + ": cannot probe: fork: " + strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return failed;
  }
  if (pid == 0) {  // the child: load, report, and leave without running exit handlers
    ::close(fds[0]);
    write_all(fds[1], describe(file));
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string report;
  const bool finished = read_report(fds[0], timeout, &report);
  ::close(fds[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    failed.failure = failed.path + ": did not finish loading within " + std::to_string(timeout.count() / 1000) +
                     " s (killed)";
    return failed;
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    failed.failure = failed.path + ": crashed while loading: signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    return failed;
  }
  return parse_report(file, report);
}

}  // namespace tessera
