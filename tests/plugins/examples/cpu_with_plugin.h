// Test helpers for a kernel plugin of the CPU backend: the backend opened as the CLI
// opens it (open_backend over a host that loaded the CPU plugin and the kernel plugin),
// running the chosen f32 kernel of an op on host data, and the CPU reference kernels'
// output for the same inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/plugin/plugin_host.h"

namespace tessera::test {

class CpuWithPlugin {
 public:
  // Loads the built CPU plugin, then `plugin_file`, and opens backend "cpu".
  explicit CpuWithPlugin(const std::string& plugin_file);

  // The kernel the registry chose for (op, f32) on the CPU device; throws if none.
  const RegisteredKernel& chosen(OpKind op) const;

  // Runs the chosen f32 kernel of `op` with `inputs`, each [rows, cols], and returns the
  // [rows, cols] output. With `in_place`, the output is written over input 0.
  std::vector<float> run(OpKind op, int64_t rows, int64_t cols,
                         const std::vector<std::vector<float>>& inputs, bool in_place = false) const;

  // The same through a tensor of another dtype for input `index` (for error paths);
  // returns the tessera::Error message, or "" if the kernel succeeded.
  std::string run_with_dtype(OpKind op, int index, tsr_dtype dtype) const;

  const PluginHost& host() const { return *host_; }
  const Backend& backend() const { return backend_; }

 private:
  std::unique_ptr<PluginHost> host_;
  Backend backend_;
};

// The CPU reference kernel (silu_ref, swiglu_ref) of `op` on the same inputs.
std::vector<float> cpu_reference(OpKind op, int64_t rows, int64_t cols,
                                 const std::vector<std::vector<float>>& inputs);

// Largest |a[i] - b[i]| / max(|b[i]|, 1e-20): every element's own relative error.
double max_relative_error(const std::vector<float>& a, const std::vector<float>& b);

// n values uniform in [-12, 12) from `seed`, then a few from the sigmoid's tails.
std::vector<float> silu_test_values(size_t n, uint32_t seed);

}  // namespace tessera::test
