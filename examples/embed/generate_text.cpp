// A program embedding Tessera: it loads the backend plugins, a model (its definition
// chosen by the weights' architecture, or given), and generates a continuation of a
// prompt through the batching engine, printing the text as it is produced.
//   generate_text -m MODEL.gguf -p PROMPT [-n TOKENS] [--plugin-dir DIR] [--arch FILE.tsr] [-b BACKEND]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "core/engine/backend.h"
#include "core/engine/engine.h"
#include "core/plugin/plugin_host.h"
#include "dsl/model_loader.h"

namespace {

struct Args {
  std::string model, prompt, plugin_dir, arch, backend = "cpu";
  int n_tokens = 32;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "-m") a.model = value;
    else if (flag == "-p") a.prompt = value;
    else if (flag == "-n") a.n_tokens = std::atoi(value);
    else if (flag == "--plugin-dir") a.plugin_dir = value;
    else if (flag == "--arch") a.arch = value;
    else if (flag == "-b") a.backend = value;
    else throw std::runtime_error("unknown option " + std::string(flag));
  }
  if (a.model.empty() || a.prompt.empty() || a.n_tokens <= 0) {
    throw std::runtime_error("usage: generate_text -m MODEL -p PROMPT [-n TOKENS] [--plugin-dir DIR] [--arch FILE] [-b BACKEND]");
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    // Plugins: --plugin-dir first, then $TESSERA_PLUGIN_PATH and the installed ones.
    const tessera::PluginHost host(tessera::PluginHost::default_search_dirs(args.plugin_dir));
    const tessera::Backend backend = tessera::open_backend(host, args.backend, /*n_threads=*/0);

    const tessera::CustomOpCatalog plugin_ops = host.op_catalog();  // ops the plugins add
    tessera::dsl::ModelSpec spec;
    spec.weights_path = args.model;
    spec.arch_path = args.arch;
    spec.model_dirs = tessera::dsl::builtin_model_dirs();
    spec.plugin_ops = &plugin_ops;
    const auto model = tessera::dsl::load_model(spec);

    tessera::EngineOptions options;
    options.max_batch = 1;
    options.kv_budget = tessera::KvBudget::tokens(1024);
    tessera::Engine engine(*model, backend, options);

    tessera::Request request;
    request.prompt = args.prompt;
    request.max_tokens = args.n_tokens;
    request.sampling.temperature = 0;  // greedy: the same text every run
    request.on_event = [](const tessera::RequestEvent& e) {
      std::fputs(e.text.c_str(), stdout);
      std::fflush(stdout);
    };
    std::fputs(args.prompt.c_str(), stdout);
    engine.submit(std::move(request));
    engine.run_until_idle();
    std::fputc('\n', stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "generate_text: %s\n", e.what());
    return 1;
  }
}
