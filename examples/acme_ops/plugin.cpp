// acme_ops: an example kernel plugin that adds an op to Tessera's model language and
// overrides a built-in kernel. It extends the "cpu" backend:
//  - it declares acme.fused_silu_mul (kernels.h), which a model definition calls by
//    name (llama_acme.tsr), with its f32 kernel;
//  - its RMS_NORM f32 kernel, at priority 10, replaces the built-in one (priority 0).
// No devices or buffers of its own: kernels get device NULL and the tensors' host addresses.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <tessera/kit/guard.h>
#include <tessera/kit/last_error.h>
#include <tessera/plugin_abi.h>

#include "kernels.h"

namespace acme {
namespace {

namespace kit = tessera::kit;

constexpr int32_t kPriority = 10;  // built-in kernels use 0: the highest priority runs

kit::LastError g_last_error;  // last_error(NULL): every failure of this plugin

// Calls per kernel, printed on unload when ACME_STATS is set in the environment (a way
// to see that the host really ran these kernels).
std::atomic<long long> g_op_calls{0};
std::atomic<long long> g_norm_calls{0};

struct StatsReport {
  ~StatsReport() {
    if (std::getenv("ACME_STATS") != nullptr) {
      std::fprintf(stderr, "acme_ops: %lld fused_silu_mul calls, %lld rms_norm calls\n", g_op_calls.load(),
                   g_norm_calls.load());
    }
  }
} g_stats_report;

// The C entry of one kernel: the kit's guard keeps exceptions inside the plugin.
template <tsr_op Op, void (*Body)(const tsr_op_call&), std::atomic<long long>* Calls>
tsr_status entry(void* /*device: always NULL for a kernel plugin*/, const tsr_op_call* call) {
  return kit::run_guarded(
      call, Op, "acme_ops", [](std::string message) noexcept { g_last_error.set(message); },
      [](const tsr_op_call& checked) {
        Body(checked);
        ++*Calls;
      });
}

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_CUSTOM, TSR_DTYPE_F32, 0, "acme.fused_silu_mul.f32",
     entry<TSR_OP_CUSTOM, fused_silu_mul_f32, &g_op_calls>, "acme.fused_silu_mul"},
    {TSR_OP_RMS_NORM, TSR_DTYPE_F32, kPriority, "acme.rms_norm.f32",
     entry<TSR_OP_RMS_NORM, rms_norm_f32, &g_norm_calls>, nullptr},
};

const char* last_error(void*) { return g_last_error.get(); }

tsr_plugin make_plugin() {
  tsr_plugin p{};  // device, buffer and step slots stay NULL: the host never calls them
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = "acme";
  p.version = "0.1.0";
  p.last_error = last_error;
  p.kernel_count = static_cast<int32_t>(sizeof kKernels / sizeof kKernels[0]);
  p.kernels = kKernels;
  p.extends = "cpu";
  p.op_count = 1;
  p.ops = &kFusedSiluMul;
  return p;
}

}  // namespace
}  // namespace acme

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = acme::make_plugin();
  return &plugin;
}
