// Loading a plugin in a child process first: a library that crashes (abort(), a
// segfault) or hangs while it loads or lists its devices takes down only the child,
// and is reported ("crashed while loading: signal 6 (Aborted)") instead of ending the
// program that wanted to list or use the others.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace tessera {

// What a child process saw of one plugin file.
struct PluginProbe {
  std::string path;
  bool ok = false;
  std::string failure;          // !ok: the whole reason, starting with the path
  std::string name;             // ok: the table's name ("cpu")
  std::string extends;          // ok: the backend a kernel plugin extends; "" for a backend
  std::vector<std::string> ops;  // ok: the ops it declares ("acme.fused_silu_mul")
};

// Forks; the child loads `file` (PluginLibrary::load: entry point and table checks)
// and asks a backend for its devices, then reports and exits. Never throws for the
// plugin's faults: a child killed by a signal or still running after `timeout` (then
// killed) gives ok = false with the reason. Call while the process has no other
// threads (before any device is opened): the child runs only async-signal-safe code
// until it exits, but libraries may assume otherwise.
PluginProbe probe_plugin(const std::filesystem::path& file,
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(20000));

}  // namespace tessera
