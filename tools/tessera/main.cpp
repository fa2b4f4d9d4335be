// tessera: the command-line front end. Thin over the library: every subcommand
// lives in its own file; errors become one line on stderr and a non-zero exit.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "core/util/error.h"
#include "dsl/diagnostics.h"
#include "tools/tessera/commands.h"
#include "tools/tessera/options.h"

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const tessera::cli::Args&);
};

constexpr Command kCommands[] = {
    {"generate", "generate text from a prompt", tessera::cli::run_generate},
    {"chat", "talk with an instruct model through its chat template", tessera::cli::run_chat},
    {"check", "validate a model definition and print its summary", tessera::cli::run_check},
    {"backends", "list the backend plugins, their devices and kernels", tessera::cli::run_backends},
    {"bench", "measure prefill and decode speed", tessera::cli::run_bench},
    {"init", "write a random-weight GGUF model of any shape a definition allows", tessera::cli::run_init},
    {"convert", "write a GGUF from a Hugging Face folder or any weights file", tessera::cli::run_convert},
    {"quantize", "write a quantised GGUF (q4_k_m, q4_0, q6_k, ...) of a model", tessera::cli::run_quantize},
    {"serve", "serve a model over HTTP with OpenAI's API", tessera::cli::run_serve},
};

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: tessera <command> [options]\n\ncommands:\n");
  for (const Command& c : kCommands) {
    std::fprintf(out, "  %-10s %.*s\n", std::string(c.name).c_str(), static_cast<int>(c.summary.size()),
                 c.summary.data());
  }
  std::fprintf(out, "\n'tessera <command> --help' describes a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string_view name = argv[1];
  for (const Command& c : kCommands) {
    if (c.name != name) continue;
    const tessera::cli::Args args(argv + 2, argv + argc);
    try {
      return c.run(args);
    } catch (const tessera::cli::UsageError& e) {
      std::fprintf(stderr, "tessera %s: %s\n", argv[1], e.message.c_str());
      return 2;
    } catch (const tessera::dsl::DslError& e) {
      std::fprintf(stderr, "%s\n", e.what());  // already "file:line:col: error: ..." with a caret
      return 1;
    } catch (const std::bad_alloc&) {
      // Allocations sized from files are checked against the file before they are made;
      // what is left is the machine running out (a KV cache, a context, a batch too big).
      std::fprintf(stderr,
                   "tessera %s: error: out of memory: an allocation failed (try a smaller --ctx, --kv-mem or "
                   "--max-batch, or a smaller model)\n",
                   argv[1]);
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tessera %s: error: %s\n", argv[1], e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "tessera: unknown command '%s'\n\n", argv[1]);
  print_usage(stderr);
  return 2;
}
