#include "tools/tessera/runtime_options.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/graph/graph.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "core/util/format_bytes.h"
#include "dsl/model_loader.h"
#include "core/weights/weight_check.h"
#include "tools/tessera/coverage_report.h"
#include "tools/tessera/weights_residency.h"

#include <tessera/kit/host_memory.h>

namespace tessera::cli {

void RuntimeOptions::add_to(OptionTable& t) {
  t.text("-m, --model", "FILE", "weights: a GGUF file or a llama2.c checkpoint", &model)
      .text("--tokenizer", "FILE", "llama2.c tokenizer file (tok512.bin) for a llama2.c checkpoint", &tokenizer)
      .text("--arch", "FILE",
            "model definition (.tsr); default: the one the weights' general.architecture (model_type) names, by "
            "file name or alias, found in the folders of $TESSERA_MODEL_PATH (':'-separated), then the installed ones",
            &arch)
      .texts("--set", "NAME=VALUE", "override a hyper-parameter of the model definition", &sets)
      .text("-b, --backend", "NAME[:N]", "backend plugin and device index", &backend, "TESSERA_BACKEND")
      .text("--plugin-dir", "DIR", "extra directory searched first for backend plugins", &plugin_dir)
      .text("--fallback", "NAME[:N]", "backend for the ops the chosen one has no kernel for", &fallback)
      .flag("--no-fallback", "refuse a model with ops the backend has no kernel for, instead of running them "
            "on the --fallback backend", &no_fallback)
      .integer("-t, --threads", "N", "CPU threads; 0 = all cores", &threads, 0, 1024, "TESSERA_THREADS")
      .integer("-c, --ctx", "N", "context length of each sequence; 0 = the model's", &ctx, 0,
               int64_t{1} << 24)
      .integer("--kv-block", "N", "tokens per KV cache block", &kv_block, 1, 4096)
      .text("--kv-dtype", "TYPE",
            "KV cache element type: f32, f16 or int8 (= q8_0: blocks of 32 int8 with an f16 scale)",
            &kv_dtype)
      .flag("--strict", "refuse a definition that leaves tensors of the weights file unused, or metadata that "
            "changes the computation unread, instead of warning", &strict)
      .flag("--check-weights", "read every weight once before running and refuse a file with a NaN or an "
            "infinity, naming the tensor and element (tessera check does it by default)", &check_weights)
      .flag("--mmap", "map the weights file (paged in on demand, no private memory) even when the backend "
            "reads the weights in host memory (cpu)", &mmap)
      .flag("--no-mmap", "read a GGUF or llama2.c weights file into memory (2 MiB pages where the system "
            "grants them) even for a GPU backend; default: read when the backend reads the weights in host "
            "memory (cpu) and the file takes at most half the available memory, mapped otherwise", &no_mmap);
}

SessionOptions RuntimeOptions::session_options() const {
  SessionOptions s;
  s.kv_block = static_cast<int32_t>(kv_block);
  s.n_ctx = ctx;
  return s;
}

std::map<std::string, std::string> parse_overrides(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> out;
  for (const std::string& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      throw UsageError{"--set expects NAME=VALUE, got '" + s + "'"};
    }
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

DType parse_kv_dtype(const std::string& name) {
  if (name == "int8" || name == "q8_0") return DType::Q8_0;
  DType t;
  if (!dtype_from_name(name, &t) || (t != DType::F32 && t != DType::F16)) {
    throw UsageError{"--kv-dtype must be f32, f16 or int8, got '" + name + "'"};
  }
  return t;
}

std::vector<dsl::ModelDir> model_dirs() {
  std::vector<dsl::ModelDir> dirs;
  if (const char* env = std::getenv("TESSERA_MODEL_PATH"); env && *env) {
    std::stringstream ss(env);
    std::string d;
    while (std::getline(ss, d, ':')) {
      if (!d.empty()) dirs.emplace_back(d, "TESSERA_MODEL_PATH");
    }
  }
  for (dsl::ModelDir& d : dsl::builtin_model_dirs()) dirs.push_back(std::move(d));
  return dirs;
}

namespace {

// The KV dtype asked for must fit the model's cache rows (q8_0: whole blocks of 32).
void check_kv_rows(const Model& model, const RuntimeOptions& o) {
  try {
    check_kv_dtype(model.compiled().graph, model.compiled().kv_dtype);
  } catch (const Error& e) {
    throw Error(o.model + ": --kv-dtype " + o.kv_dtype + ": " + e.what() + "; use --kv-dtype f16");
  }
}

// TESSERA_HIDE_KERNELS=backend:op:dtype[,...]: a test switch that makes a backend
// lack kernels it has (to exercise the fallback and the refusals without a backend
// that really lacks them). `op` is a built-in op's name or a declared one's (acme.x).
void hide_kernels(const std::string& backend, KernelRegistry& registry) {
  const char* env = std::getenv("TESSERA_HIDE_KERNELS");
  if (!env || !*env) return;
  const std::string list = env;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string entry = list.substr(start, comma - start);
    const size_t a = entry.find(':');
    const size_t b = a == std::string::npos ? a : entry.find(':', a + 1);
    OpKind op = OpKind::Custom;
    DType dtype;
    const std::string name = b == std::string::npos ? "" : entry.substr(a + 1, b - a - 1);
    const bool declared = name.find('.') != std::string::npos;
    if (b == std::string::npos || (!declared && !op_from_name(name, &op)) ||
        !dtype_from_name(entry.substr(b + 1), &dtype)) {
      throw Error("TESSERA_HIDE_KERNELS: expected BACKEND:OP:DTYPE entries (e.g. vulkan:rms_norm:f32), got '" +
                  entry + "'");
    }
    if (entry.substr(0, a) == backend) registry.hide(declared ? OpRef(OpKind::Custom, name) : OpRef(op), dtype);
    start = comma + 1;
  }
}

}  // namespace

Backend open_cli_backend(PluginHost& host, const std::string& spec, int32_t n_threads, bool with_kernel_plugins) {
  host.load_available_backend(spec.substr(0, spec.find(':')));  // if the load policy left it out
  Backend b = open_backend(host, spec, n_threads, with_kernel_plugins);
  hide_kernels(b.device->plugin().name(), *b.registry);
  return b;
}

void attach_fallback(Backend& backend, PluginHost& host, const Graph& graph, const RuntimeOptions& o) {
  if (o.no_fallback || backend.fallback) return;
  bool lacking = false;
  for (const GraphNode& n : graph.nodes()) {
    lacking = lacking || !backend.registry->find(n.op_ref(), key_dtype(graph, n), backend.device->plugin());
  }
  if (!lacking) return;
  const std::string name = o.fallback.substr(0, o.fallback.find(':'));
  if (name == backend.device->plugin().name()) return;  // nowhere else to go: the executor refuses
  try {
    backend.fallback = std::make_shared<Backend>(open_cli_backend(host, o.fallback, static_cast<int32_t>(o.threads)));
  } catch (const Error& e) {
    throw Error(backend.device->name() + " lacks kernels this model needs, and the fallback backend cannot be "
                "opened: " + e.what());
  }
}

void log_placement(const GraphExecutor& executor) {
  const PlacementSummary p = executor.placement();
  if (p.devices.size() < 2) return;
  std::string lacking, follows;
  for (const PlacementSummary::OpCount& m : p.ops[1]) {
    std::string& list = m.follows_cache ? follows : lacking;
    list += (list.empty() ? "" : ", ") + m.op + " " + std::string(dtype_name(m.dtype)) + " (" +
            std::to_string(m.nodes) + ")";
  }
  const std::string ops = lacking + (follows.empty() ? "" : "; beside their KV cache: " + follows);
  std::fprintf(stderr,
               "tessera: %s has no kernel for %s: those %lld node(s) run on %s; %lld segment(s) a step, %s copied "
               "between the devices per token (--no-fallback refuses instead)\n",
               p.devices[0].c_str(), ops.c_str(), static_cast<long long>(p.nodes[1]), p.devices[1].c_str(),
               static_cast<long long>(p.segments), format_bytes(static_cast<double>(p.bytes_moved_per_token)).c_str());
}

PluginLoadPolicy plugins_needed(const RuntimeOptions& o) {
  std::set<std::string> backends;
  for (const std::string* spec : {&o.backend, &o.fallback, &o.verify}) {
    if (!spec->empty()) backends.insert(spec->substr(0, spec->find(':')));
  }
  for (const std::string& spec : o.more_backends) backends.insert(spec.substr(0, spec.find(':')));
  PluginLoadPolicy policy;
  policy.probe_first = true;
  policy.wanted = [backends](const PluginProbe& p) {
    return backends.count(p.extends.empty() ? p.name : p.extends) > 0 || !p.ops.empty();
  };
  return policy;
}

Runtime load_runtime(const RuntimeOptions& o) {
  if (o.model.empty()) throw UsageError{"no model given: pass -m FILE (see --help)"};
  const DType kv_dtype = parse_kv_dtype(o.kv_dtype);
  const auto t0 = std::chrono::steady_clock::now();
  Runtime rt;
  rt.host = std::make_unique<PluginHost>(PluginHost::default_search_dirs(o.plugin_dir), plugins_needed(o));
  for (const PluginFailure& f : rt.host->failures()) std::fprintf(stderr, "tessera: warning: plugin refused: %s\n", f.message.c_str());
  rt.backend = open_cli_backend(*rt.host, o.backend, static_cast<int32_t>(o.threads));

  dsl::ModelSpec spec;
  spec.weights_path = o.model;
  spec.tokenizer_path = o.tokenizer;
  spec.arch_path = o.arch;
  spec.model_dirs = model_dirs();
  spec.overrides = parse_overrides(o.sets);
  spec.kv_dtype = kv_dtype;
  ResidencyRequest residency{o.mmap, o.no_mmap, rt.backend.device->table().buffer_wrap_host != nullptr, 0,
                             kit::memory_available_bytes()};
  std::error_code size_error;
  if (std::filesystem::is_regular_file(o.model, size_error)) residency.file_bytes = std::filesystem::file_size(o.model, size_error);
  spec.weights_residency = choose_weights_residency(residency);
  const CustomOpCatalog plugin_ops = rt.host->op_catalog();
  spec.plugin_ops = &plugin_ops;
  rt.model = dsl::load_model(spec);
  report_coverage(rt.model->compiled(), o.model, o.strict);
  if (o.check_weights) check_weights_finite(rt.model->weights());
  check_kv_rows(*rt.model, o);
  attach_fallback(rt.backend, *rt.host, rt.model->compiled().graph, o);
  if (!o.verify.empty()) {
    rt.backend.reference =
        std::make_shared<Backend>(open_cli_backend(*rt.host, o.verify, static_cast<int32_t>(o.threads), false));
  }
  rt.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  const auto& info = rt.backend.device->info();
  const std::string format = rt.model->weights().format();  // a model folder ("hf") is always mapped
  const bool in_memory = spec.weights_residency == FileResidency::kInMemory && format != "hf" && residency.file_bytes > 0;
  std::fprintf(stderr, "tessera: model %s (%s, %s), definition %s (%s)\n", o.model.c_str(),
               format.c_str(), in_memory ? "read into memory" : "mapped",
               rt.model->arch_path().c_str(), rt.model->arch_reason().c_str());
  std::fprintf(stderr, "tessera: backend %s (%s), loaded in %.0f ms\n", rt.backend.device->name().c_str(),
               info.description, rt.load_ms);
  return rt;
}

}  // namespace tessera::cli
