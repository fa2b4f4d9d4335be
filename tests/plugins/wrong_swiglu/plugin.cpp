// A deliberately wrong kernel plugin for the verify-mode tests: it extends the "cpu"
// backend with a SWIGLU f32 kernel at a higher priority than the built-in one that
// returns silu(gate) * up, 1% too large. `tessera generate --verify cpu` must stop at
// the first swiglu node. It also brings a kernel for an op another plugin declares
// (examples/acme_ops' acme.fused_silu_mul, alpha ignored), 1% too large as well and
// above the declaring plugin's own: verify mode checks it against that one.
#include <cmath>
#include <cstdint>
#include <string>

#include <tessera/kit/call_args.h>
#include <tessera/kit/guard.h>
#include <tessera/kit/last_error.h>
#include <tessera/kit/tensor_check.h>
#include <tessera/plugin_abi.h>

namespace wrong_swiglu {
namespace {

namespace kit = tessera::kit;

kit::LastError g_last_error;

void swiglu_f32(const tsr_op_call& call) {
  const char* op = "swiglu";
  kit::expect_input_count(call, 2, 2, op);
  const kit::HostView gate = kit::host_input(call, 0, op, "gate");  // [N, C]
  const kit::HostView up = kit::host_input(call, 1, op, "up");      // [N, C]
  const kit::HostView out = kit::host_output(call, op);             // [N, C]
  kit::expect_matrix(up, gate.rows(), gate.cols(), op, "up");
  kit::expect_matrix(out, gate.rows(), gate.cols(), op, "out");
  const float* g = gate.as<const float>();
  const float* u = up.as<const float>();
  float* o = out.as<float>();
  for (int64_t i = 0; i < gate.elements(); ++i) o[i] = 1.01f * g[i] / (1.0f + std::exp(-g[i])) * u[i];
}

template <tsr_op Op>
tsr_status entry(void*, const tsr_op_call* call) {
  return kit::run_guarded(
      call, Op, "wrong_swiglu", [](std::string message) noexcept { g_last_error.set(message); },
      [](const tsr_op_call& checked) { swiglu_f32(checked); });
}

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_SWIGLU, TSR_DTYPE_F32, 20, "wrong_swiglu.swiglu.f32", entry<TSR_OP_SWIGLU>, nullptr},
    {TSR_OP_CUSTOM, TSR_DTYPE_F32, 20, "wrong_swiglu.fused_silu_mul.f32", entry<TSR_OP_CUSTOM>, "acme.fused_silu_mul"},
};

const char* last_error(void*) { return g_last_error.get(); }

tsr_plugin make_plugin() {
  tsr_plugin p{};
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = "wrong_swiglu";
  p.version = "0.1.0";
  p.last_error = last_error;
  p.kernel_count = 2;
  p.kernels = kKernels;
  p.extends = "cpu";
  return p;
}

}  // namespace
}  // namespace wrong_swiglu

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = wrong_swiglu::make_plugin();
  return &plugin;
}
