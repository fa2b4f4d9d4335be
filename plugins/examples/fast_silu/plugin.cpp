// fast_silu as a Tessera kernel plugin: it extends the "cpu" backend with SILU and
// SWIGLU f32 kernels at priority 10, above the built-in ones (0), so the host runs
// these on CPU devices. No devices or buffers of its own: kernels get device NULL and
// the tensors' host addresses.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tessera/kit/guard.h>
#include <tessera/kit/last_error.h>
#include <tessera/plugin_abi.h>

#include "kernels.h"

namespace fast_silu {
namespace {

namespace kit = tessera::kit;

constexpr int32_t kPriority = 10;  // built-in kernels use 0: the highest priority runs

kit::LastError g_last_error;  // last_error(NULL): every failure of this plugin

// Calls per kernel, reported on unload when FAST_SILU_STATS is set in the environment
// (a way to see that the host really ran these kernels).
std::atomic<long long> g_silu_calls{0};
std::atomic<long long> g_swiglu_calls{0};

struct StatsReport {
  ~StatsReport() {
    if (std::getenv("FAST_SILU_STATS") != nullptr) {
      std::fprintf(stderr, "fast_silu: %lld silu calls, %lld swiglu calls\n", g_silu_calls.load(),
                   g_swiglu_calls.load());
    }
  }
} g_stats_report;

// The C entry of one kernel: the kit's guard keeps exceptions inside the plugin.
template <tsr_op Op, void (*Body)(const tsr_op_call&), std::atomic<long long>* Calls>
tsr_status entry(void* /*device: always NULL for a kernel plugin*/, const tsr_op_call* call) {
  return kit::run_guarded(
      call, Op, "fast_silu", [](std::string message) noexcept { g_last_error.set(message); },
      [](const tsr_op_call& checked) {
        Body(checked);
        ++*Calls;
      });
}

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_SILU, TSR_DTYPE_F32, kPriority, "fast_silu.silu.f32",
     entry<TSR_OP_SILU, silu_f32, &g_silu_calls>},
    {TSR_OP_SWIGLU, TSR_DTYPE_F32, kPriority, "fast_silu.swiglu.f32",
     entry<TSR_OP_SWIGLU, swiglu_f32, &g_swiglu_calls>},
};

const char* last_error(void*) { return g_last_error.get(); }

tsr_plugin make_plugin() {
  tsr_plugin p{};  // device, buffer and step slots stay NULL: the host never calls them
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = "fast_silu";
  p.version = "0.1.0";
  p.last_error = last_error;
  p.kernel_count = static_cast<int32_t>(sizeof kKernels / sizeof kKernels[0]);
  p.kernels = kKernels;
  p.extends = "cpu";
  return p;
}

}  // namespace
}  // namespace fast_silu

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = fast_silu::make_plugin();
  return &plugin;
}
