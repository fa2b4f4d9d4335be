// The options every command that runs a model shares (model files, architecture,
// backend, threads, KV cache), and loading the model and backend they name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/plugin/plugin_host.h"
#include "dsl/model_loader.h"
#include "tools/tessera/options.h"

namespace tessera::cli {

struct RuntimeOptions {
  std::string model;
  std::string tokenizer;
  std::string arch;
  std::string backend = "cpu";
  std::string plugin_dir;
  std::string fallback = "cpu";
  std::string verify;  // reference backend of verify mode; "" = off
  bool no_fallback = false;
  std::string kv_dtype = "f32";
  std::vector<std::string> sets;
  int64_t threads = 0;
  int64_t ctx = 0;
  int64_t kv_block = 16;
  bool strict = false;  // refuse a definition that leaves tensors or architectural metadata unread
  bool check_weights = false;  // read every weight once for NaN/Inf before running
  bool mmap = false;     // map the weights file even on the CPU backend
  bool no_mmap = false;  // read the weights file into memory on any backend
  std::vector<std::string> more_backends;  // backends a command moves to later (--swap-at): loaded up front

  void add_to(OptionTable& table);
  SessionOptions session_options() const;
};

struct Runtime {
  std::unique_ptr<PluginHost> host;
  Backend backend;
  std::unique_ptr<Model> model;
  double load_ms = 0;
};

// Parses "--set name=value" entries; throws UsageError on a malformed one.
std::map<std::string, std::string> parse_overrides(const std::vector<std::string>& sets);
// The KV cache dtype --kv-dtype names: f32, f16, or int8 (= q8_0 blocks); UsageError otherwise.
DType parse_kv_dtype(const std::string& name);

// Where definitions are looked up without --arch: $TESSERA_MODEL_PATH entries, then the
// built-in model folders.
std::vector<dsl::ModelDir> model_dirs();
// Which plugins a command loads: each file is loaded in a child process first (one that
// crashes there is refused, not fatal), then only the backends `options` names (the
// backend, --fallback, --verify, more_backends) with the kernel plugins extending
// them, and the plugins that declare ops, are loaded here; the others stay available
// (PluginHost::load_available), e.g. for a chat's /backend.
PluginLoadPolicy plugins_needed(const RuntimeOptions& options);

// Loads the plugins, opens the backend and loads the model; logs one line to stderr.
// When the backend lacks a kernel the model needs, opens the fallback backend for
// those nodes (unless --no-fallback).
Runtime load_runtime(const RuntimeOptions& options);

// open_backend, with the test switch TESSERA_HIDE_KERNELS=backend:op:dtype[,...]
// applied: the named backend then lacks those kernels (to exercise the fallback and
// the refusals without a backend that really lacks them).
Backend open_cli_backend(PluginHost& host, const std::string& spec, int32_t n_threads,
                         bool with_kernel_plugins = true);

// Gives `backend` the --fallback backend when it lacks a kernel `graph` needs and the
// fallback is another backend (not with --no-fallback).
void attach_fallback(Backend& backend, PluginHost& host, const Graph& graph, const RuntimeOptions& options);

// Says on stderr which nodes run on the fallback device, if any (once per placement).
void log_placement(const GraphExecutor& executor);

}  // namespace tessera::cli
