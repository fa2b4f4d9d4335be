// The subcommands of the `tessera` CLI; each parses its own option table and
// returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace tessera::cli {

using Args = std::vector<std::string>;

int run_generate(const Args& args);
int run_chat(const Args& args);
int run_check(const Args& args);
int run_backends(const Args& args);
int run_bench(const Args& args);
int run_init(const Args& args);
int run_convert(const Args& args);
int run_quantize(const Args& args);
int run_serve(const Args& args);

}  // namespace tessera::cli
